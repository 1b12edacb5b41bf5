package schema_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
)

// textResult is an MCP tool result whose one text content is text.
func textResult(text string) schema.World {
	raw, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
	return schema.ToolResultWorld(raw)
}

// TestItemPicks: an output chooses among a listing's items at replay by
// its rules, among the items shaped like the recorded one, and stops,
// typed, when none or several could be meant.
func TestItemPicks(t *testing.T) {
	files := schema.Output{Line: "[FILE] ", Pick: &schema.ItemPick{Like: "report-#-#.md", Rules: []schema.PickRule{{Order: schema.OrderNewest}}}}
	branches := schema.Output{JSON: "$.branches", Pick: &schema.ItemPick{Field: "name", Like: "release/#-#", Rules: []schema.PickRule{{Order: schema.OrderOldest}}}}
	hit := schema.Output{JSON: "$.entities", Pick: &schema.ItemPick{Field: "name", Rules: []schema.PickRule{{Order: schema.OrderOnly}}}}
	named := schema.Output{Line: "[FILE] ", Pick: &schema.ItemPick{Rules: []schema.PickRule{{Order: schema.OrderIs, Value: "{{name}}.md"}}}}
	b := schema.Bindings{Params: map[string]any{"name": "beta"}}
	for _, c := range []struct {
		name string
		o    schema.Output
		w    schema.World
		want any
		code schema.Code
	}{
		{"newest of the like items", files, textResult("[FILE] README.md\n[FILE] report-2026-02.md\n[DIR] report-2027-01.md\n[FILE] report-2026-10.md\n[FILE] notes.txt"), "report-2026-10.md", ""},
		{"no like item", files, textResult("[FILE] README.md\n[DIR] old"), nil, schema.CodeBindingNotFound},
		{"a tie", schema.Output{Line: "[FILE] ", Pick: &schema.ItemPick{Rules: []schema.PickRule{{Order: schema.OrderNewest}}}}, textResult("[FILE] a-2026-02.md\n[FILE] b-2026-02.md"), nil, schema.CodeAmbiguous},
		{"an item with no date", schema.Output{Line: "[FILE] ", Pick: &schema.ItemPick{Rules: []schema.PickRule{{Order: schema.OrderNewest}}}}, textResult("[FILE] report-2026-02.md\n[FILE] draft.md"), nil, schema.CodeNotFound},
		{"oldest branch", branches, jsonResult(`{"branches":[{"name":"main"},{"name":"release/2026-03"},{"name":"release/2025-12"}]}`), "release/2025-12", ""},
		{"a branch list gone", branches, jsonResult(`{"branches":"none"}`), nil, schema.CodeBindingNotFound},
		{"the one hit", hit, jsonResult(`{"entities":[{"name":"Alice Zhang","entityType":"person"}]}`), "Alice Zhang", ""},
		{"two hits", hit, jsonResult(`{"entities":[{"name":"Alice Okafor"},{"name":"Bob Okafor"}]}`), nil, schema.CodeAmbiguous},
		{"no hit", hit, jsonResult(`{"entities":[]}`), nil, schema.CodeBindingNotFound},
		{"the item a parameter names", named, textResult("[FILE] alpha.md\n[FILE] beta.md\n[FILE] beta.md.bak"), "beta.md", ""},
		{"a parameter names none", named, textResult("[FILE] alpha.md\n[FILE] beta.txt"), nil, schema.CodeNotFound},
	} {
		got, err := c.o.Locate(c.w, b)
		switch {
		case c.code == "" && (err != nil || got != c.want):
			t.Errorf("%s: got %v, %v; want %v", c.name, got, err, c.want)
		case c.code != "" && schema.AsError(err).Code != c.code:
			t.Errorf("%s: got %v, %v; want %s", c.name, got, err, c.code)
		}
	}
	var e *schema.Error
	if _, err := files.Locate(textResult(""), b); !errors.As(err, &e) {
		t.Errorf("an empty result: %v", err)
	}
	whole := schema.Output{Text: true}
	if got, err := whole.Locate(textResult("line one\nline two"), b); err != nil || got != "line one\nline two" {
		t.Errorf("whole text: %v, %v", got, err)
	}
}

// TestItemPicksValidate: a pick says how to choose, with rules it knows,
// and reads other fields only of JSON items.
func TestItemPicksValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		yaml string
	}{
		{"no rule", `{line: "[FILE] ", pick: {rules: []}}`},
		{"an unknown order", `{line: "[FILE] ", pick: {rules: [{order: best}]}}`},
		{"a field of a line", `{line: "[FILE] ", pick: {field: name, rules: [{order: only}]}}`},
		{"by of a line", `{line: "[FILE] ", pick: {rules: [{order: newest, by: date}]}}`},
		{"a token beside a pick", `{line: "[FILE] ", token: "[a-z]", pick: {rules: [{order: only}]}}`},
		{"text beside a path", `{json: $.content, text: true}`},
		{"only with a value", `{json: $.x, pick: {rules: [{order: only, value: a}]}}`},
	} {
		doc := "name: p\nintent: do it\nsteps:\n  - id: list\n    kind: deterministic\n    tool: list\n    outputs:\n      item: " + c.yaml + "\n  - id: use\n    kind: deterministic\n    needs: [list]\n    tool: use\n    args: {x: \"{{steps.list.item}}\"}\nverify:\n  - text_visible: done\n"
		if _, err := schema.DecodePlaybook([]byte(doc)); err == nil || !strings.Contains(err.Error(), "outputs.item") {
			t.Errorf("%s: %v, want a problem at the output", c.name, err)
		}
	}
	ok := "name: p\nintent: do it\nparams:\n  name: {type: string, required: true}\nsteps:\n  - id: list\n    kind: deterministic\n    tool: list\n    outputs:\n      item: {json: $.files, pick: {field: path, like: \"r-#.md\", rules: [{order: is, value: \"{{name}}\"}, {order: newest, by: modified}]}}\n  - id: use\n    kind: deterministic\n    needs: [list]\n    tool: use\n    args: {x: \"{{steps.list.item}}\"}\nverify:\n  - text_visible: done\n"
	if _, err := schema.DecodePlaybook([]byte(ok)); err != nil {
		t.Errorf("a pick whose rule names the parameter: %v", err)
	}
}

// jsonResult is an MCP tool result whose structured content is doc.
func jsonResult(doc string) schema.World {
	return schema.ToolResultWorld([]byte(`{"content":[],"structuredContent":` + doc + `}`))
}

// TestItemPicksWeighTheirKin: an item of another shape that names itself
// as the family does stops an order it would win or cannot be read for,
// and is passed over when the family's choice beats it anyway.
func TestItemPicksWeighTheirKin(t *testing.T) {
	newest := schema.Output{Line: "[FILE] ", Pick: &schema.ItemPick{Like: "report-#-#.md", Rules: []schema.PickRule{{Order: schema.OrderNewest}}}}
	for _, kin := range []string{"report 2026-03.md", "draft-report-2026-05.md", "Report_2026-04.md", "report-2026-03-draft.md"} {
		w := textResult("[FILE] report-2026-02.md\n[FILE] " + kin)
		if _, err := newest.Locate(w, schema.Bindings{}); !errors.Is(err, schema.ErrAmbiguous) {
			t.Errorf("%s beside report-2026-02.md: %v, want ambiguous", kin, err)
		}
	}
	w := textResult("[FILE] report-2026-02.md\n[FILE] report 2025-12.md\n[FILE] notes-2027-01.md")
	if got, err := newest.Locate(w, schema.Bindings{}); err != nil || got != "report-2026-02.md" {
		t.Errorf("an older kin and another family: %v, %v", got, err)
	}
	backups := schema.Output{Line: "[FILE] ", Pick: &schema.ItemPick{Like: "backup-#.tar", Rules: []schema.PickRule{{Order: schema.OrderNewest}}}}
	if got, err := backups.Locate(textResult("[FILE] backup-20260101-old.tar\n[FILE] backup-20260102.tar"), schema.Bindings{}); err != nil || got != "backup-20260102.tar" {
		t.Errorf("an older kin: %v, %v", got, err)
	}
	hits := schema.Output{JSON: "$.entities", Pick: &schema.ItemPick{Field: "name", Kind: map[string]string{"entityType": "person"}, Rules: []schema.PickRule{{Order: schema.OrderOnly}}}}
	if got, err := hits.Locate(jsonResult(`{"entities":[{"name":"Alice Okafor","entityType":"organization"},{"name":"Bob Okafor","entityType":"person"}]}`), schema.Bindings{}); err != nil || got != "Bob Okafor" {
		t.Errorf("the one person among the hits: %v, %v", got, err)
	}
}
