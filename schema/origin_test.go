package schema

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckNavigation(t *testing.T) {
	portal := []string{"http://127.0.0.1:8080"}
	ok := []struct{ raw, origin string }{
		{"http://127.0.0.1:8080/login", "http://127.0.0.1:8080"},
		{"HTTP://127.0.0.1:8080/a?b=c#d", "http://127.0.0.1:8080"},
		{"about:blank", ""},
	}
	for _, c := range ok {
		u, err := CheckNavigation(c.raw, portal)
		if err != nil || Origin(u) != c.origin {
			t.Errorf("%q: %v, origin %q", c.raw, err, Origin(u))
		}
	}
	refused := []string{
		"file:///etc/passwd", "chrome://version", "view-source:http://127.0.0.1:8080/", "javascript:fetch('//evil')",
		"data:text/html,<form>", "blob:http://127.0.0.1:8080/x", "ftp://127.0.0.1:8080/", "about:version",
		"//127.0.0.1:9999/evil", "/relative", "http://127.0.0.1:9999/steal?p=secret", "https://127.0.0.1:8080/",
		"http://127.0.0.1:8080@evil.example/", "http://user:pw@127.0.0.1:8080/", "http:\\\\evil.example\\", "http://127.0.0.1:8080/\t/x",
		"http://evil.example\n.127.0.0.1:8080/", "http://127.0.0.1:8080%2f@evil/", "",
	}
	for _, raw := range refused {
		_, err := CheckNavigation(raw, portal)
		if !errors.Is(err, ErrOutOfOrigin) {
			t.Errorf("%q: %v, want out_of_origin", raw, err)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%q: the message repeats the address: %v", raw, err)
		}
	}
	if _, err := CheckNavigation("http://anywhere.example:81/x", nil); err != nil {
		t.Errorf("an unconfined session, any http origin: %v", err)
	}
	if _, err := CheckNavigation("file:///etc/passwd", nil); !errors.Is(err, ErrOutOfOrigin) {
		t.Errorf("an unconfined session loads files: %v", err)
	}
}

func TestParseOrigin(t *testing.T) {
	for in, want := range map[string]string{"http://Example.COM:80": "http://example.com", "https://a.example:443/": "https://a.example", "http://[::1]:8080": "http://[::1]:8080"} {
		if got, err := ParseOrigin(in); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"example.com", "http://a.example/path", "http://a.example?q", "file:///", "http://u@a.example", ""} {
		if _, err := ParseOrigin(in); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v, want invalid", in, err)
		}
	}
}

func TestPlaybookOrigins(t *testing.T) {
	p := &Playbook{Name: "p", Intent: "do it", Steps: []Step{{ID: "a", Kind: StepDeterministic, Tool: "navigate", Args: map[string]any{"url": "/"}}},
		Verify: []Expect{{Op: OpURLContains, Arg: "/"}}, Origins: []string{"https://sso.example"}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	for bad, says := range map[string]string{"file:///etc": "scheme://host", "https://SSO.example:443": "write it as https://sso.example", "https://sso.example/login": "scheme://host"} {
		p.Origins = []string{bad}
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("origin %q: %v", bad, err)
		}
	}
}

func TestMCPOrigins(t *testing.T) {
	step := func(url string) Step {
		return Step{ID: "s", Kind: StepDeterministic, Tool: "browser_navigate", Args: map[string]any{URLArg: url}}
	}
	p := &Playbook{Origins: []string{"https://sso.example"}, Steps: []Step{
		step("http://127.0.0.1:8080/login"), step("http://127.0.0.1:8080/{{page}}"), step("{{base}}/x"),
		step("http://{{host}}/x"), step("http://127.0.0.1:{{port}}/x"), step("https://other.example/a{{b}}"),
		{ID: "t", Tool: "browser_type", Args: map[string]any{"text": "http://typed.example/"}},
	}}
	want := []string{"https://sso.example", "http://127.0.0.1:8080", "https://other.example"}
	if got := p.MCPOrigins(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("origins %v, want %v", got, want)
	}
	for _, ok := range []string{"http://127.0.0.1:8080/x", "https://sso.example/"} {
		if _, err := CheckNavigation(ok, want); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"/vendors", "/127.0.0.1:9999/x", "ok", "http://evil.example/steal", "//evil.example/x", "/\\evil.example", "file:///etc/passwd", "javascript:alert(1)", "data:text/html,x", "chrome://version"} {
		if _, err := CheckNavigation(bad, want); !errors.Is(err, ErrOutOfOrigin) {
			t.Errorf("%q: %v, want out_of_origin", bad, err)
		}
	}
	if _, err := CheckNavigation("http://anywhere.example/", nil); err != nil {
		t.Errorf("a playbook that names no origin, an http address: %v", err)
	}
	if _, err := CheckNavigation("file:///etc/passwd", nil); !errors.Is(err, ErrOutOfOrigin) {
		t.Errorf("a playbook that names no origin, a file: %v", err)
	}
}
