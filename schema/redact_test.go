package schema_test

import (
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
)

func TestRedactArguments(t *testing.T) {
	r := schema.Redactor{Key: []byte("k"), Values: []string{"hunter22", "xy"}}
	inputSchema := []byte(`{"type":"object","properties":{"pin":{"type":"string","format":"password"},"nested":{"type":"object","properties":{"otp":{"writeOnly":true}}},"list":{"type":"array","items":{"format":"password"}}}}`)
	args := []byte(`{"user":"ann","password":"p4ss","api_key":12345,"pin":"0000","key":"Enter",
		"nested":{"otp":"999","note":"login with hunter22 please"},"list":["a","b"],"short":"xy","shorter":"axyb","auth":{"Authorization":"Bearer abc"},"maxTokens":20,"token_count":7,"tokenLimit":"hunter"}`)
	out, changed, err := r.RedactArguments(args, inputSchema)
	if err != nil || !changed {
		t.Fatalf("changed=%v err=%v", changed, err)
	}
	got := string(out)
	for _, clear := range []string{"p4ss", "12345", "hunter\"", "0000", "999", "hunter22", "Bearer abc", `"a"`, `"b"`} {
		if strings.Contains(got, clear) {
			t.Errorf("%q left in clear: %s", clear, got)
		}
	}
	for _, kept := range []string{`"user":"ann"`, `"key":"Enter"`, `"shorter":"axyb"`, "login with secret:", `"maxTokens":20`, `"token_count":7`} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q should be kept: %s", kept, got)
		}
	}
	if !strings.Contains(got, `"short":"`+r.Digest("xy")+`"`) {
		t.Errorf("a whole value equal to a short secret is not replaced: %s", got)
	}
	// Stable: the same secret always gives the same digest, another key another.
	if r.Digest("p4ss") != (schema.Redactor{Key: r.Key}).Digest("p4ss") || r.Digest("p4ss") == (schema.Redactor{Key: []byte("other")}).Digest("p4ss") {
		t.Fatal("digest is not stable per key")
	}
	if !strings.Contains(got, `"password":"`+r.Digest("p4ss")+`"`) {
		t.Errorf("password digest differs from Digest: %s", got)
	}
	// Nothing secret: the bytes come back untouched.
	plain := []byte(`{ "url" : "http://x" }`)
	out, changed, err = r.RedactArguments(plain, nil)
	if err != nil || changed || string(out) != string(plain) {
		t.Fatalf("plain arguments changed: %s %v %v", out, changed, err)
	}
}
