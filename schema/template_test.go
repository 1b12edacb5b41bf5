package schema_test

import (
	"errors"
	"testing"

	"github.com/rote-agent/rote/schema"
)

func TestParseRefs(t *testing.T) {
	refs, err := schema.ParseRefs("Hi {{ who }}, tier {{steps.pick}} and {{who}}")
	if err != nil {
		t.Fatal(err)
	}
	want := []schema.Ref{{Param: "who"}, {Step: "pick"}, {Param: "who"}}
	if len(refs) != len(want) {
		t.Fatalf("refs %v", refs)
	}
	for i := range want {
		if refs[i] != want[i] {
			t.Fatalf("ref %d = %v, want %v", i, refs[i], want[i])
		}
	}
	for _, bad := range []string{"{{}}", "{{ two words }}", "{{steps.}}", "{{1abc}}", "open {{ only", "close }} only", "{{a}}}}"} {
		if _, err := schema.ParseRefs(bad); !errors.Is(err, schema.ErrInvalid) {
			t.Errorf("ParseRefs(%q) accepted", bad)
		}
	}
}

func TestRenderString(t *testing.T) {
	b := schema.Bindings{Params: map[string]any{"n": 2.5, "ok": false, "s": "x"}, Steps: map[string]string{"pick": "gold"}}
	got, err := schema.RenderString("{{s}}-{{n}}-{{ok}}-{{steps.pick}}", b)
	if err != nil || got != "x-2.5-false-gold" {
		t.Fatalf("RenderString = %q, %v", got, err)
	}
	if _, err := schema.RenderString("{{steps.later}}", b); !errors.Is(err, schema.ErrUnbound) {
		t.Fatalf("unbound step output: %v", err)
	}
}

func TestJSONPath(t *testing.T) {
	doc := map[string]any{"a": map[string]any{"b c": []any{"x", "y"}, "it's": 1.0, "]": true}}
	for path, want := range map[string]any{
		"$.a['b c'][1]":  "y",
		`$.a["b c"][-2]`: "x",
		`$.a['it\'s']`:   1.0,
		"$.a[']']":       true,
	} {
		p, err := schema.ParseJSONPath(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got, ok := p.Lookup(doc)
		if !ok || got != want {
			t.Errorf("%s = %v, %v; want %v", path, got, ok, want)
		}
	}
	for _, bad := range []string{"", "a", "$..a", "$.", "$[", "$['x", "$[1", "$x"} {
		if _, err := schema.ParseJSONPath(bad); !errors.Is(err, schema.ErrInvalid) {
			t.Errorf("ParseJSONPath(%q) accepted", bad)
		}
	}
}

func TestSelector(t *testing.T) {
	s, err := schema.ParseSelector(`button "Save \"draft\""`)
	if err != nil || s.Role != "button" || s.Name != `Save "draft"` || s.String() != `button "Save \"draft\""` {
		t.Fatalf("ParseSelector = %+v, %v", s, err)
	}
	for _, bad := range []string{"", "a b", `Button "x"`, `button x"`, `button "x`} {
		if _, err := schema.ParseSelector(bad); !errors.Is(err, schema.ErrInvalid) {
			t.Errorf("ParseSelector(%q) accepted", bad)
		}
	}
}
