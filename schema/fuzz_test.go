package schema_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
)

// FuzzDecodePlaybook feeds arbitrary bytes to the YAML importer. It must
// never panic; it either rejects the input with a *ValidationError or
// accepts a playbook that validates, exports, and imports back to the same
// export.
func FuzzDecodePlaybook(f *testing.F) {
	files, _ := filepath.Glob("testdata/playbooks/*.yaml")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"", "name: x", "{}", "[]", "- a\n- b", "name: &a x\nintent: *a\n",
		base + "steps:\n  - {id: a, kind: deterministic, tool: click}\nverify: [{text_visible: x}]\n",
		base + "steps:\n  - {id: a, kind: slot, prompt: '{{who}}', max_tokens: 9}\nverify: [{exit_code: 0}]\n",
		"name: p\nintent: i\nsteps: [{id: a, kind: judgment, prompt: x, options: [a, b], on_fail: retry(2)}]\nverify: [{json_path_equals: $.a, equals: {b: [1, 2]}}]\n",
		// Nesting: at the bound, past it, and hidden behind quotes.
		strings.Repeat("[", 64) + strings.Repeat("]", 64), strings.Repeat("[", 65), strings.Repeat("{a: ", 70),
		"a: [b '" + strings.Repeat("[", 70), strings.Repeat(`["]",`, 70), strings.Repeat("- ", 70) + "x", "a: 'it''s [[[[' # [[[[\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := schema.DecodePlaybook(data)
		if err != nil {
			var verr *schema.ValidationError
			if !errors.As(err, &verr) || len(verr.Problems) == 0 {
				t.Fatalf("rejection is not a ValidationError with problems: %v", err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted an invalid playbook: %v", err)
		}
		if _, err := p.Order(); err != nil {
			t.Fatalf("accepted playbook has no order: %v", err)
		}
		out, err := schema.EncodePlaybook(p)
		if err != nil {
			t.Fatalf("accepted playbook does not export: %v", err)
		}
		again, err := schema.DecodePlaybook(out)
		if err != nil {
			t.Fatalf("export does not import: %v\n%s", err, out)
		}
		out2, err := schema.EncodePlaybook(again)
		if err != nil || string(out2) != string(out) {
			t.Fatalf("export is not a fixed point:\n%s\n---\n%s", out, out2)
		}
	})
}

// FuzzExpect feeds arbitrary JSON to the expect decoder. It must never
// panic; an accepted expect validates, round-trips through its written
// form, and evaluates against a page and a tool world without panicking.
func FuzzExpect(f *testing.F) {
	for _, s := range []string{
		`{"exit_code": 0}`, `{"selector_visible": "button \"Save\""}`, `{"selector_absent": "k3"}`,
		`{"input_value": "k3", "equals": "x"}`, `{"url_contains": "/x"}`, `{"text_visible": "ok"}`,
		`{"json_path_exists": "$.a[0]['b']"}`, `{"json_path_equals": "$.a", "equals": [1, {"b": null}]}`,
		`{"output_matches": "^a+$"}`, `{"nonempty": "$"}`, `{"text_visible": "{{p}}"}`, `{}`, `[]`, `null`,
		`{"exit_code": 1e400}`, `{"json_path_equals": "$", "equals": 1e999}`,
	} {
		f.Add([]byte(s))
	}
	code := 0
	worlds := []schema.World{
		{Page: true, URL: "http://x/a", Text: "ok", Nodes: []schema.WorldNode{{ID: "k3", Role: "button", Name: "Save", Value: "x"}}},
		{Text: "ok", Output: schema.RawJSON(`{"a":[1,{"b":null}]}`), ExitCode: &code},
		{Output: schema.RawJSON(`"aaa"`)},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var e schema.Expect
		if err := json.Unmarshal(data, &e); err != nil {
			return
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("accepted an invalid expect: %v", err)
		}
		out, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("accepted expect does not encode: %v", err)
		}
		var again schema.Expect
		if err := json.Unmarshal(out, &again); err != nil || again.String() != e.String() {
			t.Fatalf("written form %s does not round-trip: %v", out, err)
		}
		for _, w := range worlds {
			_, _ = e.Evaluate(w)
		}
	})
}
