package distiller

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
)

// mcpRun is a verified MCP session of calls (tool, arguments, result).
func mcpRun(params map[string]string, text string, calls ...[3]string) *schema.RunFold {
	r := &schema.RunFold{
		Spec:     schema.RunSpec{RunID: "run-2", Mode: schema.ModeAgent, Fingerprint: fp, Task: schema.TaskSpec{Name: "label-record", Text: text, Params: params}},
		Finished: &schema.RunFinished{Manifest: schema.Manifest{Outcome: schema.OutcomeSuccess}},
		Verify:   &schema.VerifyChecked{Passed: true, Checks: []schema.Check{{Expect: schema.Expect{Op: schema.OpTextVisible, Arg: "labelled"}, Passed: true}}},
	}
	for i, c := range calls {
		r.Calls = append(r.Calls, &schema.ToolCall{Seq: uint64(i + 1), Tool: c[0], Arguments: schema.RawJSON(c[1]), Result: schema.RawJSON(c[2])})
	}
	return r
}

func textResult(s string) string {
	b, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}})
	return string(b)
}

// TestDistillBindsProducedValues: an id a create call returned, and refs
// a snapshot gave, become outputs of the step that produced them, found
// again at replay; the task's values stay parameters and constants stay.
func TestDistillBindsProducedValues(t *testing.T) {
	snapshot := "### Page\n- Page URL: http://127.0.0.1:8080/vendors/new\n```yaml\n- main [ref=e27]:\n  - textbox \"Company name\" [ref=e36]\n  - textbox \"Tax ID\" [ref=e39]\n  - button \"Next\" [ref=e48] [cursor=pointer]\n```"
	r := mcpRun(map[string]string{"name": "Acme", "label": "urgent"}, "Create a record named Acme and label it urgent",
		[3]string{"create_record", `{"name":"Acme"}`, `{"content":[{"type":"text","text":"created"}],"structuredContent":{"id":"r-17","name":"Acme","count":3}}`},
		[3]string{"label_record", `{"id":"r-17","label":"urgent","note":"see r-17 now","limit":3}`, textResult("labelled r-17")},
		[3]string{"browser_snapshot", `{}`, textResult(snapshot)},
		[3]string{"browser_type", `{"element":"Company name","target":"e36","text":"Acme"}`, textResult("typed")},
		[3]string{"browser_click", `{"element":"Next","target":"e48"}`, textResult("labelled")},
	)
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := schema.EncodePlaybook(c.Playbook)
	steps := c.Playbook.Steps
	if o := steps[0].Outputs["id"]; o.JSON != "$.id" {
		t.Fatalf("create_record's output: %+v\n%s", steps[0].Outputs, doc)
	}
	args := steps[1].Args
	if args["id"] != "{{steps.create-record.id}}" || args["note"] != "see {{steps.create-record.id}} now" || args["label"] != "{{label}}" || args["limit"] != float64(3) {
		t.Fatalf("label_record's arguments: %v\n%s", args, doc)
	}
	snap := steps[2].Outputs
	if snap["company_name"].Line != `- textbox "Company name" [ref=` || snap["next"].Line != `- button "Next" [ref=` || snap["next"].Token != "[a-z0-9]" {
		t.Fatalf("the snapshot's outputs: %+v\n%s", snap, doc)
	}
	if steps[3].Args["target"] != "{{steps.browser-snapshot.company_name}}" || steps[4].Args["target"] != "{{steps.browser-snapshot.next}}" {
		t.Fatalf("refs not bound to the snapshot: %v %v\n%s", steps[3].Args, steps[4].Args, doc)
	}
	if len(steps[0].Expect) != 1 || steps[0].Expect[0].Arg != "$.structuredContent.name" || string(steps[0].Expect[0].Value) != `"{{name}}"` {
		t.Errorf("create_record's check: %v", steps[0].Expect)
	}
	if len(steps[2].Expect) != 1 || steps[2].Expect[0].Arg != "Page URL: http://127.0.0.1:8080/vendors/new" {
		t.Errorf("the snapshot's check: %v", steps[2].Expect)
	}
	if tg := steps[3].Target; tg == nil || tg.Role != "textbox" || tg.Name != "Company name" {
		t.Errorf("browser_type's control: %+v", tg)
	}
	if tg := steps[4].Target; tg == nil || tg.Role != "button" || tg.Name != "Next" {
		t.Errorf("browser_click's control: %+v", tg)
	}
	if steps[1].OnFail.Policy != "" || steps[2].OnFail.Policy != schema.FailRetry {
		t.Errorf("a write is retried or a read is not: %v %v", steps[1].OnFail, steps[2].OnFail)
	}
	if _, err := schema.DecodePlaybook(doc); err != nil {
		t.Fatalf("the playbook does not decode: %v\n%s", err, doc)
	}
}

// TestDistillRefusesAValueItCannotFindAgain: a ref that two identical
// snapshot lines carry cannot be told apart at replay.
func TestDistillRefusesAValueItCannotFindAgain(t *testing.T) {
	snapshot := "- form \"Billing\":\n  - textbox \"Name\" [ref=e3]\n- form \"Shipping\":\n  - textbox \"Name\" [ref=e7]\n"
	r := mcpRun(map[string]string{"name": "Acme"}, "Type Acme as the shipping name",
		[3]string{"browser_snapshot", `{}`, textResult(snapshot)},
		[3]string{"browser_type", `{"target":"e7","text":"Acme"}`, textResult("labelled")},
	)
	_, err := Distill(r, Options{})
	if !errors.Is(err, schema.ErrAmbiguous) || !strings.Contains(err.Error(), `"e7"`) {
		t.Fatalf("distill: %v", err)
	}
}

// TestDistillBindsIDsThatLookLikeWords: a slug an id field returned, a
// number field called number, a record's id inside a URL's path, and a
// URL a result returned whole are produced values too; a URL's host and
// port stay as they were.
func TestDistillBindsIDsThatLookLikeWords(t *testing.T) {
	r := mcpRun(map[string]string{"name": "North Star"}, "Create a project named North Star and open it",
		[3]string{"create_project", `{"name":"North Star"}`, `{"content":[{"type":"text","text":"created"}],"structuredContent":{"slug":"north-star","number":17,"record":"r-40"}}`},
		[3]string{"open_issue", `{"project":"north-star","number":17}`, textResult("opened")},
		[3]string{"fetch", `{"url":"http://127.0.0.1:8080/records/r-40/issues/17?via=north-star"}`, textResult("fetched")},
		[3]string{"get_link", `{}`, `{"content":[{"type":"text","text":"link"}],"structuredContent":{"link":"http://127.0.0.1:8080/s/x7"}}`},
		[3]string{"open", `{"url":"http://127.0.0.1:8080/s/x7"}`, textResult("labelled")},
	)
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := schema.EncodePlaybook(c.Playbook)
	steps := c.Playbook.Steps
	if a := steps[1].Args; a["project"] != "{{steps.create-project.slug}}" || a["number"] != "{{steps.create-project.number}}" {
		t.Errorf("open_issue's arguments: %v\n%s", a, doc)
	}
	want := "http://127.0.0.1:8080/records/{{steps.create-project.record}}/issues/{{steps.create-project.number}}?via={{steps.create-project.slug}}"
	if got := steps[2].Args["url"]; got != want {
		t.Errorf("fetch's url:\n got %v\nwant %s\n%s", got, want, doc)
	}
	if got := steps[4].Args["url"]; got != "{{steps.get-link.link}}" {
		t.Errorf("a URL a result returned whole: %v\n%s", got, doc)
	}
	if _, err := schema.DecodePlaybook(doc); err != nil {
		t.Fatalf("the playbook does not decode: %v\n%s", err, doc)
	}
}

// TestDistillLetsAnElementDescriptionQuoteTheTask: a browser server's
// element argument only describes the control; words of the task in it
// are no unbound value, while the same words in any other argument are.
func TestDistillLetsAnElementDescriptionQuoteTheTask(t *testing.T) {
	snapshot := "- button \"Register vendor\" [ref=e9]\n"
	calls := [][3]string{
		{"browser_snapshot", `{}`, textResult(snapshot)},
		{"browser_click", `{"element":"Register vendor","target":"e9"}`, textResult("labelled")},
	}
	inventory := &schema.Inventory{Environment: schema.Environment{Tools: []schema.ToolSpec{{Name: "browser_snapshot"}, {Name: "browser_click"}}}}
	r := mcpRun(map[string]string{"name": "Acme"}, "Register vendor Acme", calls...)
	r.Inventories = append(r.Inventories, inventory)
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Playbook.Steps[1].Args; a["element"] != "Register vendor" || a["target"] != "{{steps.browser-snapshot.register_vendor}}" {
		t.Fatalf("browser_click's arguments: %v", a)
	}
	calls[1][1] = `{"note":"Register vendor","target":"e9"}`
	r = mcpRun(map[string]string{"name": "Acme"}, "Register vendor Acme", calls...)
	r.Inventories = append(r.Inventories, inventory)
	if _, err := Distill(r, Options{}); !errors.Is(err, schema.ErrUnbound) {
		t.Fatalf("task words in another argument: %v, want unbound", err)
	}
}
