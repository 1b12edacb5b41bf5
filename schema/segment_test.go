package schema_test

import (
	"errors"
	"testing"

	"github.com/rote-agent/rote/schema"
)

// TestSegmentValuesStayInTheirSegment: a value that fills a path segment
// and would reach outside it (../escaped.md, a/b, NUL) is refused before
// any call, as a parameter at bind time and as an output when rendered;
// in a query, in prose or as a whole argument it is left alone (issue 38,
// item 4).
func TestSegmentValuesStayInTheirSegment(t *testing.T) {
	p, err := schema.DecodePlaybook([]byte(`name: note
intent: write the note {{file}}
params:
  file: {type: string, required: true}
  body: {type: string, required: true}
steps:
  - id: write
    kind: deterministic
    tool: write_file
    args: {path: "notes/{{file}}.md", content: "see notes/ for {{body}}", url: "https://x.example/find?q={{body}}", whole: "{{body}}", root: "{{body}}/x"}
verify:
  - text_visible: done
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"../escaped", "..", ".", "a/b", `a\b`, "a\x00b"} {
		if _, err := p.Bind(map[string]string{"file": bad, "body": "x"}); !errors.Is(err, schema.ErrInvalidParam) {
			t.Errorf("file=%q: %v, want invalid_param", bad, err)
		}
	}
	for _, empty := range []string{"", "  "} {
		if _, err := p.Bind(map[string]string{"file": empty, "body": "x"}); !errors.Is(err, schema.ErrMissingParam) {
			t.Errorf("file=%q: %v, want missing_param", empty, err)
		}
	}
	for _, good := range []string{"alpha", "report 2026-01", "a..b", ".hidden"} {
		if _, err := p.Bind(map[string]string{"file": good, "body": "../a/b c"}); err != nil {
			t.Errorf("file=%q: %v", good, err)
		}
	}
	b := schema.Bindings{Outputs: map[string]any{"list.item": "../../etc/passwd"}}
	if _, err := schema.RenderString("/d/reports/{{steps.list.item}}", b); !errors.Is(err, schema.ErrInvalidParam) {
		t.Errorf("an output that climbs out of its directory: %v", err)
	}
	if _, err := schema.RenderString("/d/{{steps.list.item}}/x.md", schema.Bindings{Outputs: map[string]any{"list.item": ""}}); !errors.Is(err, schema.ErrInvalidParam) {
		t.Errorf("an empty segment: %v", err)
	}
	if got, err := schema.RenderString("/d/reports/{{steps.list.item}}", schema.Bindings{Outputs: map[string]any{"list.item": "r-2026.md"}}); err != nil || got != "/d/reports/r-2026.md" {
		t.Errorf("a name: %q, %v", got, err)
	}
}
