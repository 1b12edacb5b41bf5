package distiller

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
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
	if len(steps[2].Expect) != 1 || steps[2].Expect[0].Arg != "\n- Page URL: http://127.0.0.1:8080/vendors/new\n" {
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
	snapshot := "- textbox \"Vendor name\" [ref=e8]\n- button \"Register vendor\" [ref=e9]\n"
	calls := [][3]string{
		{"browser_snapshot", `{}`, textResult(snapshot)},
		{"browser_click", `{"element":"Register vendor","target":"e9"}`, textResult("labelled")},
		{"browser_type", `{"element":"Vendor name","target":"e8","text":"Acme"}`, textResult("typed")},
	}
	inventory := &schema.Inventory{Environment: schema.Environment{Tools: []schema.ToolSpec{{Name: "browser_snapshot"}, {Name: "browser_click"}, {Name: "browser_type"}}}}
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

// TestDistillRefusesATaskValueAResultAlsoReturned: a value that is both
// the task's and one an earlier result issued (the title n-42 and the
// note n-42) is refused as ambiguous; a result that echoes the value its
// call was passed leaves it the task's.
func TestDistillRefusesATaskValueAResultAlsoReturned(t *testing.T) {
	r := mcpRun(map[string]string{"title": "n-42"}, "Create a note titled n-42 and pin it",
		[3]string{"create_note", `{"title":"draft"}`, textResult("created note n-42")},
		[3]string{"pin_note", `{"id":"n-42"}`, textResult("labelled")},
	)
	if _, err := Distill(r, Options{}); !errors.Is(err, schema.ErrAmbiguous) || !strings.Contains(err.Error(), "title") {
		t.Fatalf("a task value a result also returned: %v, want ambiguous", err)
	}
	r = mcpRun(map[string]string{"title": "n-42"}, "Create a note titled n-42 and pin it",
		[3]string{"create_note", `{"title":"n-42"}`, textResult("created note n-42 titled n-42")},
		[3]string{"pin_note", `{"id":"n-42"}`, textResult("labelled")},
	)
	if _, err := Distill(r, Options{}); !errors.Is(err, schema.ErrAmbiguous) {
		t.Fatalf("a result holding the value more often than it was passed: %v, want ambiguous", err)
	}
	r = mcpRun(map[string]string{"code": "AC-7"}, "Create a record coded AC-7 and label it",
		[3]string{"create_record", `{"code":"AC-7"}`, `{"content":[{"type":"text","text":"created"}],"structuredContent":{"id":"r-17","code":"AC-7"}}`},
		[3]string{"label_record", `{"id":"r-17","code":"AC-7"}`, textResult("labelled")},
	)
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatalf("an echo: %v", err)
	}
	if a := c.Playbook.Steps[1].Args; a["code"] != "{{code}}" || a["id"] != "{{steps.create-record.id}}" {
		t.Fatalf("label_record's arguments: %v", a)
	}
}

// TestDistillKeepsAToggleState: a ref bound from a checkbox's line keeps
// the state the line showed, so a replay on a box found already as the
// click left it leaves it (the click would undo it), and one found half
// checked stops.
func TestDistillKeepsAToggleState(t *testing.T) {
	snapshot := "- checkbox \"Subscribe\" [ref=e4]\n- checkbox \"Terms\" [checked] [ref=e5]\n- textbox \"Email\" [ref=e6]\n"
	r := mcpRun(map[string]string{}, "Subscribe",
		[3]string{"browser_snapshot", `{}`, textResult(snapshot)},
		[3]string{"browser_click", `{"target":"e4"}`, textResult("ok")},
		[3]string{"browser_click", `{"target":"e5"}`, textResult("ok")},
		[3]string{"browser_type", `{"target":"e6","text":"a@b.c"}`, textResult("labelled")},
	)
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	outs := c.Playbook.Steps[0].Outputs
	if outs["subscribe"].State != "none" || outs["terms"].State != "checked" || outs["email"].State != "" {
		t.Fatalf("outputs: %+v", outs)
	}
	w := schema.ToolResultWorld([]byte(textResult(strings.Replace(snapshot, `"Subscribe" [ref=e4]`, `"Subscribe" [checked] [ref=e8]`, 1))))
	if got, err := outs["subscribe"].Locate(w, schema.Bindings{}); err != nil || got != (schema.AlreadyToggled{State: "checked"}) {
		t.Fatalf("a box found checked: %v %v, want it left as it is", got, err)
	}
	w = schema.ToolResultWorld([]byte(textResult(strings.Replace(snapshot, `"Subscribe" [ref=e4]`, `"Subscribe" [checked=mixed] [ref=e8]`, 1))))
	if _, err := outs["subscribe"].Locate(w, schema.Bindings{}); !errors.Is(err, schema.ErrStateChanged) {
		t.Fatalf("a box found half checked: %v, want state_changed", err)
	}
}

// TestDistillChecksABoxARoteBrowserClickToggled: a rote mcp browser click
// on a checkbox becomes a check into the state the click left it in, so
// a replay on a box already checked does not uncheck it; a click whose
// result does not say that state is not distilled.
func TestDistillChecksABoxARoteBrowserClickToggled(t *testing.T) {
	clicked := func(diff string) string {
		return textResult("click ok (target by id)\ncontrol: {\"id\":\"gw0001\",\"role\":\"checkbox\",\"name\":\"Gift wrap\"}\npage: http://127.0.0.1:8080/order\ntitle: Order\n" + diff)
	}
	inventory := &schema.Inventory{Environment: schema.Environment{Identity: schema.Identity{Server: RoteBrowserServer}}}
	for diff, want := range map[string]any{"~ gw0001 [checked]": true, "~ gw0001 []": false, "~ gw0001 [required]": false, "=": nil} {
		r := mcpRun(map[string]string{}, "Order with gift wrap",
			[3]string{"click", `{"target":"gw0001"}`, clicked(diff)},
			[3]string{"done", `{"reason":"ordered"}`, textResult("labelled")},
		)
		r.Inventories = append(r.Inventories, inventory)
		c, err := Distill(r, Options{})
		if want == nil {
			if !errors.Is(err, schema.ErrInvalid) {
				t.Errorf("%s: %v, want invalid", diff, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", diff, err)
		}
		if s := c.Playbook.Steps[0]; s.Tool != "check" || s.Args["checked"] != want || s.Args["role"] != "checkbox" || s.Args["name"] != "Gift wrap" {
			t.Errorf("%s: step %s %v, want check checked=%v", diff, s.Tool, s.Args, want)
		}
	}
}

// TestDistillRefusesAnItemOfSeveral: a handle that is one item of a JSON
// list of several, chosen by no parameter and no order the task states
// ("the second"), could only be frozen or guessed at replay: refused.
func TestDistillRefusesAnItemOfSeveral(t *testing.T) {
	r := mcpRun(map[string]string{}, "Close the second ticket",
		[3]string{"list_tickets", `{}`, textResult(`{"tickets":[{"number":"t-1"},{"number":"t-2"}]}`)},
		[3]string{"close_ticket", `{"number":"t-2"}`, textResult("labelled")},
	)
	if _, err := Distill(r, Options{}); !errors.Is(err, schema.ErrUnbound) || !strings.Contains(err.Error(), "t-2") {
		t.Fatalf("an item of several: %v, want unbound", err)
	}
}

// TestDistillBindsAWordIDFromText: an id of letters only, which a text
// result named, is a produced value when a later call passes it under an
// id-like key; the same word as the task's value there is ambiguous.
func TestDistillBindsAWordIDFromText(t *testing.T) {
	r := mcpRun(map[string]string{"company": "Acme"}, "Create item Acme and approve it",
		[3]string{"create_item", `{"name":"Acme"}`, textResult("Created item qgdqnchh")},
		[3]string{"update_item", `{"id":"qgdqnchh","status":"approved"}`, textResult("labelled")},
	)
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Playbook.Steps[1].Args; a["id"] != "{{steps.create-item.value}}" || a["status"] != "approved" {
		t.Fatalf("update_item's arguments: %v", a)
	}
	r = mcpRun(map[string]string{"company": "acme"}, "Create item acme and approve it",
		[3]string{"create_item", `{"name":"Item"}`, textResult("Created item acme")},
		[3]string{"update_item", `{"id":"acme","status":"approved"}`, textResult("labelled")},
	)
	if _, err := Distill(r, Options{}); !errors.Is(err, schema.ErrAmbiguous) {
		t.Fatalf("a word id equal to the task's value: %v, want ambiguous", err)
	}
}

// TestDistillTypesATaskValueAPageShows: a browser server's page showing
// the task's value (a hint's example) leaves what is typed the task's.
func TestDistillTypesATaskValueAPageShows(t *testing.T) {
	snapshot := "- textbox \"Tax ID\" [ref=e4]\n- paragraph: For example DE123456789.\n"
	r := mcpRun(map[string]string{"tax_id": "DE123456789"}, "Register tax ID DE123456789",
		[3]string{"browser_snapshot", `{}`, textResult(snapshot)},
		[3]string{"browser_type", `{"element":"Tax ID","target":"e4","text":"DE123456789"}`, textResult("labelled")},
	)
	r.Inventories = append(r.Inventories, &schema.Inventory{Environment: schema.Environment{Tools: []schema.ToolSpec{{Name: "browser_snapshot"}, {Name: "browser_type"}}}})
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Playbook.Steps[1].Args; a["text"] != "{{tax_id}}" {
		t.Fatalf("browser_type's arguments: %v", a)
	}
}

// TestDistillChecksTheWholePageLine: a page line's check is the whole
// line as the server wrote it, a \r before its newline included, so it
// holds on the same result and not on a longer path.
func TestDistillChecksTheWholePageLine(t *testing.T) {
	page := "### Page\r\n- Page URL: http://127.0.0.1:8080/vendors\r\n- Page Title: Vendors\r\n"
	r := mcpRun(map[string]string{}, "Open the vendors",
		[3]string{"browser_navigate", `{"url":"http://127.0.0.1:8080/vendors"}`, textResult(page)},
		[3]string{"browser_snapshot", `{}`, textResult("labelled")},
	)
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	expects := c.Playbook.Steps[0].Expect
	if len(expects) != 2 {
		t.Fatalf("checks %v", expects)
	}
	same := schema.ToolResultWorld([]byte(textResult(page)))
	longer := schema.ToolResultWorld([]byte(textResult(strings.ReplaceAll(page, "/vendors\r", "/vendors/purge\r"))))
	for _, e := range expects {
		if chk, err := e.Evaluate(same); err != nil || !chk.Passed {
			t.Errorf("%q on the recorded result: %+v %v", e.Arg, chk, err)
		}
	}
	if chk, err := expects[0].Evaluate(longer); err != nil || chk.Passed {
		t.Errorf("%q on /vendors/purge: %+v %v", expects[0].Arg, chk, err)
	}
}

// TestDistillChecksAPageWithAValueEscaped: a page a search left holds
// the query escaped (Oak+desk): its check writes the value escaped the
// same way, so a replay searching for another product passes it and one
// that searched for the old product does not.
func TestDistillChecksAPageWithAValueEscaped(t *testing.T) {
	run := func(page string) *schema.RunFold {
		return mcpRun(map[string]string{"product": "Oak desk"}, "Search for the Oak desk",
			[3]string{"browser_navigate", `{"url":"http://127.0.0.1:8080/search"}`, textResult("- Page URL: http://127.0.0.1:8080/search\n")},
			[3]string{"browser_type", `{"target":"e4","text":"Oak desk","submit":true}`, textResult("- Page URL: " + page + "\n")},
			[3]string{"browser_snapshot", `{}`, textResult("labelled")},
		)
	}
	c, err := Distill(run("http://127.0.0.1:8080/search?q=Oak+desk"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Playbook.Steps[1].Expect) != 1 {
		t.Fatalf("checks %v", c.Playbook.Steps[1].Expect)
	}
	e, err := c.Playbook.Steps[1].Expect[0].Render(schema.Bindings{Params: map[string]any{"product": "Steel chair"}})
	if err != nil {
		t.Fatal(err)
	}
	for page, want := range map[string]bool{"http://127.0.0.1:8080/search?q=Steel+chair": true, "http://127.0.0.1:8080/search?q=Oak+desk": false} {
		if chk, err := e.Evaluate(schema.ToolResultWorld([]byte(textResult("- Page URL: " + page + "\n")))); err != nil || chk.Passed != want {
			t.Errorf("%s on %s: %+v %v, want passed %t", e, page, chk, err, want)
		}
	}
}

// TestDistillKeepsTheVisitedOrigins: the origins a recorded session's url
// arguments went to become the playbook's origins, also when the address
// is templated, so a replay's parameter cannot take it elsewhere.
func TestDistillKeepsTheVisitedOrigins(t *testing.T) {
	r := mcpRun(map[string]string{"page": "vendors"}, "Open the vendors",
		[3]string{"browser_navigate", `{"url":"http://127.0.0.1:8080/vendors"}`, textResult("### Page\n- Page URL: http://127.0.0.1:8080/vendors\n")},
		[3]string{"browser_navigate", `{"url":"https://sso.example/login"}`, textResult("### Page\n- Page URL: https://sso.example/login\n")},
		[3]string{"browser_navigate", `{"url":"/relative"}`, textResult("### Page\n- Page URL: https://sso.example/relative\n")},
	)
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Playbook.Origins; !slices.Equal(got, []string{"http://127.0.0.1:8080", "https://sso.example"}) {
		t.Fatalf("origins %v", got)
	}
	if u := c.Playbook.Steps[0].Args[schema.URLArg]; u != "http://127.0.0.1:8080/{{page}}" {
		t.Fatalf("the first address is %v, want the page templated", u)
	}
}

// TestDistillDropsTheIDOfANamedControl: a rote mcp browser click on a
// control whose name holds a parameter's value replays by role and the
// templated name, not by the id that control had: with the old post
// still listed, the id would trash it again whatever the title says.
func TestDistillDropsTheIDOfANamedControl(t *testing.T) {
	result := textResult("click ok (target by id)\ncontrol: {\"id\":\"tr0001\",\"role\":\"link\",\"name\":\"Move “Glacier memo 99” to the Trash\"}\npage: http://127.0.0.1:8090/wp-admin/edit.php\n")
	r := mcpRun(map[string]string{"title": "Glacier memo 99"}, "Trash the post Glacier memo 99",
		[3]string{"click", `{"target":"tr0001"}`, result},
		[3]string{"done", `{"reason":"trashed"}`, textResult("labelled")},
	)
	r.Inventories = append(r.Inventories, &schema.Inventory{Environment: schema.Environment{Identity: schema.Identity{Server: RoteBrowserServer}}})
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Playbook.Steps[0]
	if _, ok := s.Args["target"]; ok || s.Args["name"] != "Move “{{title}}” to the Trash" || s.Args["role"] != "link" {
		t.Fatalf("step args %v", s.Args)
	}
}

// TestDistillPicksTheRowOfANamedRecord: a rote mcp browser click on a
// row's plain "Trash" button, whose result's metadata says the rows it
// was one of, replays by a pick of the row that holds the title, not by
// the button's id; a checkbox ticked in such a row is checked, not
// clicked (a click replayed on it could undo it); a choice nothing
// explains is refused.
func TestDistillPicksTheRowOfANamedRecord(t *testing.T) {
	among := func(role, name, slug string) string {
		meta, _ := json.Marshal(tools.Among{Chosen: 0, Records: &schema.RecordSet{Pattern: name, Rows: true, Header: []string{"Title", "Published"},
			Records: []schema.Record{{Key: "Glacier memo", Cells: []string{"Glacier memo", "2026-11-02"}}, {Key: "Harbor log", Cells: []string{"Harbor log", "2026-10-01"}}}}})
		text, _ := json.Marshal("click ok (target by id)\ncontrol: {\"id\":\"tr0001\",\"role\":\"" + role + "\",\"name\":\"" + name + "\"}\npage: http://127.0.0.1:8090/open/Glacier%20memo%2099\npage: http://127.0.0.1:8090/" + slug + "\n")
		return `{"content":[{"type":"text","text":` + string(text) + `}],"_meta":{"` + tools.AmongMeta + `":` + string(meta) + `}}`
	}
	inventory := &schema.Inventory{Environment: schema.Environment{Identity: schema.Identity{Server: RoteBrowserServer}}}
	distill := func(task string, params map[string]string, role, name, slug string) (*Candidate, error) {
		r := mcpRun(params, task,
			[3]string{"click", `{"target":"tr0001"}`, among(role, name, slug)},
			[3]string{"done", `{"reason":"done"}`, textResult("labelled")},
		)
		r.Inventories = append(r.Inventories, inventory)
		return Distill(r, Options{})
	}
	c, err := distill("Trash the post Glacier memo", map[string]string{"title": "Glacier memo"}, "button", "Trash", "posts")
	if err != nil {
		t.Fatal(err)
	}
	s := c.Playbook.Steps[0]
	pick, _ := s.Args["pick"].(map[string]any)
	if _, ok := s.Args["target"]; ok || s.Args["role"] != "button" || pick == nil || s.Target.Pick == nil || s.Target.Pick.Rules[0].Value != "{{title}}" {
		t.Fatalf("step args %v, target %+v", s.Args, s.Target)
	}
	if _, err := distill("Tick the post Glacier memo", map[string]string{"title": "Glacier memo"}, "checkbox", "Select", "posts"); !errors.Is(err, schema.ErrInvalid) {
		t.Errorf("a box clicked in a row, its state after unknown: %v, want invalid", err)
	}
	c, err = distill("Tick the post Glacier memo", map[string]string{"title": "Glacier memo"}, "checkbox", "Select", "posts\n~ tr0001 [checked focused]")
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Playbook.Steps[0]; s.Tool != "check" || s.Args["checked"] != true || s.Args["pick"] == nil {
		t.Errorf("a box ticked in a row: step %s %v, want a check into checked by a pick", s.Tool, s.Args)
	}
	if _, err := distill("Trash a post", nil, "button", "Trash", "posts"); !errors.Is(err, schema.ErrUnbound) {
		t.Errorf("a row chosen for no reason: %v, want unbound", err)
	}
	// A result too large to keep inline: the control and the records it
	// was chosen among come from the metadata kept beside the blob.
	r := mcpRun(map[string]string{"title": "Glacier memo"}, "Trash the post Glacier memo",
		[3]string{"click", `{"target":"tr0001"}`, among("button", "Trash", "posts")},
		[3]string{"done", `{"reason":"done"}`, textResult("labelled")},
	)
	var full struct {
		Meta json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(r.Calls[0].Result, &full)
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(full.Meta, &meta)
	meta[tools.ControlMeta] = json.RawMessage(`{"id":"tr0001","role":"button","name":"Trash"}`)
	kept, _ := json.Marshal(meta)
	r.Calls[0].Result, r.Calls[0].ResultMeta, r.Calls[0].BlobRef = nil, kept, schema.Digest([]byte("big"))
	r.Inventories = append(r.Inventories, inventory)
	if c, err := Distill(r, Options{}); err != nil || c.Playbook.Steps[0].Target.Pick == nil || c.Playbook.Steps[0].Args["target"] != nil {
		t.Fatalf("a blob result's click: %v %+v", err, c)
	}
	// Chosen by the order the task states: the page it opened shows the
	// record chosen, which at replay may be another: no step checks it.
	c, err = distill("Open the newest post", nil, "link", "Open", "open/glacier%20MEMO")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := schema.EncodePlaybook(c.Playbook)
	if !strings.Contains(string(doc), "order: newest") || strings.Contains(strings.ToLower(string(doc)), "glacier") {
		t.Errorf("want a newest pick and no check of the record chosen once:\n%s", doc)
	}
}

// TestDistillLetsARoteBrowserTargetQuoteTheTask: words of the task that
// only name the control a rote mcp browser call acts on (button
// "Submit" for "press the Submit button") are no unbound value; the same
// words typed into a field are a parameter, inferred.
func TestDistillLetsARoteBrowserTargetQuoteTheTask(t *testing.T) {
	inventory := &schema.Inventory{Environment: schema.Environment{Identity: schema.Identity{Server: RoteBrowserServer}}}
	clicked := textResult("click ok (target by role_name)\ncontrol: {\"id\":\"sb0001\",\"role\":\"button\",\"name\":\"Submit\"}\n")
	r := mcpRun(nil, "Press the Submit button",
		[3]string{"click", `{"role":"button","name":"Submit"}`, clicked},
		[3]string{"done", `{"reason":"pressed"}`, textResult("labelled")},
	)
	r.Inventories = append(r.Inventories, inventory)
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Playbook.Steps[0].Args; a["name"] != "Submit" || a["role"] != "button" {
		t.Errorf("click args %v", a)
	}
	r = mcpRun(nil, "Type Submit into the box",
		[3]string{"fill", `{"role":"textbox","name":"Box","value":"Submit"}`, textResult("fill ok\n")},
		[3]string{"done", `{"reason":"typed"}`, textResult("labelled")},
	)
	r.Inventories = append(r.Inventories, inventory)
	c, err = Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Playbook.Steps[0].Args; a["value"] != "{{value}}" || c.Inferred["value"] != "Submit" || c.Playbook.Intent != "Type {{value}} into the box" {
		t.Errorf("a task word typed is a parameter, inferred: %v %v %q", a, c.Inferred, c.Playbook.Intent)
	}
}

// TestDistillRefusesARecordChosenInASnapshot: a click on one link of a
// list whose siblings differ in data ("the latest report" clicked as
// Download Sales report 2026-11) is a choice a browser MCP server's
// replay cannot make again: bound by its line, it would download that
// report after a newer one is published. It is refused; the same click
// named by a parameter is bound.
func TestDistillRefusesARecordChosenInASnapshot(t *testing.T) {
	snapshot := "- main [ref=e1]:\n  - heading \"Reports\" [level=1] [ref=e2]\n  - list [ref=e3]:\n" +
		"    - listitem [ref=e4]:\n      - link \"Download Sales report 2026-11\" [ref=e5]\n" +
		"    - listitem [ref=e6]:\n      - link \"Download Sales report 2026-10\" [ref=e7]\n" +
		"    - listitem [ref=e8]:\n      - link \"Download Sales report 2026-09\" [ref=e9]\n  - link \"Help\" [ref=e10]\n"
	calls := [][3]string{
		{"browser_snapshot", `{}`, textResult(snapshot)},
		{"browser_click", `{"element":"Download Sales report 2026-11","target":"e5"}`, textResult("labelled")},
	}
	inventory := &schema.Inventory{Environment: schema.Environment{Tools: []schema.ToolSpec{{Name: "browser_snapshot"}, {Name: "browser_click"}}}}
	r := mcpRun(nil, "Download the latest sales report", calls...)
	r.Inventories = append(r.Inventories, inventory)
	if _, err := Distill(r, Options{}); !errors.Is(err, schema.ErrUnbound) || !strings.Contains(err.Error(), "one of 3 records") {
		t.Fatalf("a record chosen once: %v, want unbound", err)
	}
	calls[1][1] = `{"element":"Download Sales report 2026-11","target":"e5"}`
	r = mcpRun(map[string]string{"period": "2026-11"}, "Download the sales report for 2026-11", calls...)
	r.Inventories = append(r.Inventories, inventory)
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatalf("a record named by a parameter: %v", err)
	}
	if o := c.Playbook.Steps[0].Outputs; len(o) != 1 {
		t.Errorf("outputs %+v", o)
	}
	calls[1] = [3]string{"browser_click", `{"element":"Help","target":"e10"}`, textResult("labelled")}
	r = mcpRun(nil, "Open the help", calls...)
	r.Inventories = append(r.Inventories, inventory)
	if _, err := Distill(r, Options{}); err != nil {
		t.Errorf("a lone link is no choice: %v", err)
	}
}

// TestDistillBindsAShortWholeName: a value shorter than minLiteral is
// still found exactly where it is a control's whole name: "Select S4"
// binds the radio "S4" of a snapshot, while "S4" inside a longer name
// (radio "S42") is not taken for it.
func TestDistillBindsAShortWholeName(t *testing.T) {
	snapshot := "- main [ref=e1]:\n  - radiogroup \"Size\" [ref=e2]:\n" +
		"    - radio \"S2\" [ref=e3]\n    - radio \"S4\" [ref=e4]\n    - radio \"S42\" [ref=e5]\n  - button \"Submit\" [ref=e6]\n"
	inventory := &schema.Inventory{Environment: schema.Environment{Tools: []schema.ToolSpec{{Name: "browser_snapshot"}, {Name: "browser_click"}}}}
	distill := func(ref, value string) (*Candidate, error) {
		r := mcpRun(map[string]string{"size": value}, "Select "+value+" and click Submit",
			[3]string{"browser_snapshot", `{}`, textResult(snapshot)},
			[3]string{"browser_click", `{"element":"` + value + ` radio","ref":"` + ref + `"}`, textResult("clicked")},
			[3]string{"browser_click", `{"element":"Submit button","ref":"e6"}`, textResult("labelled")},
		)
		r.Inventories = append(r.Inventories, inventory)
		return Distill(r, Options{})
	}
	c, err := distill("e4", "S4")
	if err != nil {
		t.Fatalf("a 2-character whole name: %v", err)
	}
	var lines []string
	for _, s := range c.Playbook.Steps {
		for _, o := range s.Outputs {
			lines = append(lines, o.Line)
		}
	}
	if !slices.Contains(lines, `- radio "{{size}}" [ref=`) {
		t.Errorf("the radio's ref is not found by its templated name: outputs %q", lines)
	}
	// The snapshot's "S42" holds "S4" only inside a longer name, and the
	// element's description, which only tells a person what the ref is,
	// uses no parameter: clicked for S4, S42 would be clicked for any.
	if c, err := distill("e5", "S4"); !errors.Is(err, schema.ErrUnbound) {
		doc, _ := schema.EncodePlaybook(c.Playbook)
		t.Errorf("S42 clicked for the value S4: %v, want unbound\n%s", err, doc)
	}
	snapshot = strings.NewReplacer(`"S2"`, `"Small"`, `"S4"`, `"Large"`, `"S42"`, `"Larger"`).Replace(snapshot)
	if _, err := distill("e4", "Large"); err != nil {
		t.Errorf("Large clicked for Large: %v", err)
	}
	if c, err := distill("e5", "Large"); !errors.Is(err, schema.ErrUnbound) {
		doc, _ := schema.EncodePlaybook(c.Playbook)
		t.Errorf("Larger clicked for the value Large: %v, want unbound\n%s", err, doc)
	}
}

// TestDistillBindsAShortRadioThroughRoteBrowser: a rote mcp browser
// click on the radio "S4" for the task's size S4 binds the size, however
// short; the id, which hashes the name clicked once, is left out.
func TestDistillBindsAShortRadioThroughRoteBrowser(t *testing.T) {
	inventory := &schema.Inventory{Environment: schema.Environment{Identity: schema.Identity{Server: RoteBrowserServer}}}
	clicked := textResult("check ok (target by id)\ncontrol: {\"id\":\"rd0004\",\"role\":\"radio\",\"name\":\"S4\"}\n")
	r := mcpRun(map[string]string{"size": "S4"}, "Select S4 and click Submit",
		[3]string{"check", `{"target":"rd0004"}`, clicked},
		[3]string{"done", `{"reason":"selected"}`, textResult("labelled")},
	)
	r.Inventories = append(r.Inventories, inventory)
	// The page says the size chosen: the gate names it, as a whole word,
	// however short; the 4 of "size 4 of 9" is no size.
	r.Verify.Checks[0].Expect.Arg = "size = S4 (4 of 9)"
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Playbook.Steps[0].Args; a["name"] != "{{size}}" || a["role"] != "radio" || a["target"] != nil {
		t.Errorf("check args %v", a)
	}
	if got := c.Playbook.Verify[0].Arg; got != "size = {{size}} (4 of 9)" {
		t.Errorf("verify %q, want the size templated", got)
	}
}

// TestDistillTellsUnnamedTwinsByTheirLabel: @playwright/mcp shows fields
// whose labels are not tied to them as `- textbox [ref=..]`, alike; each
// is bound by the label just before it, found again when the refs, the
// order of the rows and the rest of the page change, and refused when
// the label is gone or shared.
func TestDistillTellsUnnamedTwinsByTheirLabel(t *testing.T) {
	snapshot := "- generic [ref=e2]:\n  - generic [ref=e3]: Username\n  - textbox [ref=e4]\n- generic [ref=e5]:\n  - generic [ref=e6]: Password\n  - textbox [ref=e7]\n- button \"Sign in\" [ref=e8]\n"
	r := mcpRun(map[string]string{"user": "ada77"}, "Sign in as ada77",
		[3]string{"browser_snapshot", `{}`, textResult(snapshot)},
		[3]string{"browser_type", `{"target":"e4","text":"ada77"}`, textResult("ok")},
		[3]string{"browser_type", `{"target":"e7","text":"hunter2"}`, textResult("ok")},
		[3]string{"browser_click", `{"target":"e8"}`, textResult("labelled")},
	)
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	outs := c.Playbook.Steps[0].Outputs
	if outs["username"].After != "Username" || outs["password"].After != "Password" {
		t.Fatalf("outputs: %+v", outs)
	}
	moved := "- generic [ref=e12]:\n  - generic [ref=e13]: Password\n  - textbox [ref=e14]\n- checkbox \"Remember me\" [ref=e15]\n- generic [ref=e16]:\n  - generic [ref=e17]: Username\n  - textbox [ref=e18]\n"
	w := schema.ToolResultWorld([]byte(textResult(moved)))
	if got, err := outs["username"].Locate(w, schema.Bindings{}); err != nil || got != "e18" {
		t.Fatalf("the username field among rows in another order: %v %v, want e18", got, err)
	}
	for name, page := range map[string]string{
		"no label":              "- generic:\n  - textbox [ref=e4]\n  - textbox [ref=e7]\n",
		"label shared":          "- generic: Username\n- textbox [ref=e4]\n- generic: Username\n- textbox [ref=e7]\n",
		"label after":           "- generic:\n  - textbox [ref=e4]\n  - generic: Username\n",
		"label over two fields": "- generic:\n  - generic: Username\n  - textbox [ref=e4]\n  - textbox [ref=e7]\n",
	} {
		if got, err := outs["username"].Locate(schema.ToolResultWorld([]byte(textResult(page))), schema.Bindings{}); err == nil {
			t.Errorf("%s: found %v, want a refusal", name, got)
		}
	}
}

// TestDistillFindsTheRowOrItemTheTaskNames: one Archive button a table
// row, one Add button a list item, through @playwright/mcp's snapshot:
// the button of the row (or item) whose key is the task's value is
// bound to that parameter and found again among rows in another order;
// a row chosen with no parameter naming it is still refused.
func TestDistillFindsTheRowOrItemTheTaskNames(t *testing.T) {
	rows := func(names ...string) string {
		var b strings.Builder
		b.WriteString("- table [ref=e1]:\n  - rowgroup [ref=e2]:\n")
		for i, n := range names {
			fmt.Fprintf(&b, "    - row \"%s Editor Archive\" [ref=r%d]:\n      - cell \"%[1]s\" [ref=c%[2]d]\n      - cell \"Editor\" [ref=d%[2]d]\n      - cell \"Archive\" [ref=x%[2]d]:\n        - button \"Archive\" [ref=b%[2]d]\n", n, i)
		}
		return b.String()
	}
	inventory := &schema.Inventory{Environment: schema.Environment{Tools: []schema.ToolSpec{{Name: "browser_snapshot"}, {Name: "browser_click"}}}}
	distill := func(params map[string]string, task, snapshot, ref string) (*Candidate, error) {
		r := mcpRun(params, task,
			[3]string{"browser_snapshot", `{}`, textResult(snapshot)},
			[3]string{"browser_click", `{"element":"Archive","target":"` + ref + `"}`, textResult("labelled")})
		r.Inventories = append(r.Inventories, inventory)
		return Distill(r, Options{})
	}
	c, err := distill(map[string]string{"member": "Grace Hopper"}, "Archive the member Grace Hopper", rows("Ada Byron", "Grace Hopper", "Alan Turing"), "b1")
	if err != nil {
		t.Fatal(err)
	}
	var o schema.Output
	for _, x := range c.Playbook.Steps[0].Outputs {
		o = x
	}
	w := schema.ToolResultWorld([]byte(textResult(rows("Ken Thompson", "Radia Perlman", "Barbara Liskov"))))
	if got, err := o.Locate(w, schema.Bindings{Params: map[string]any{"member": "Barbara Liskov"}}); err != nil || got != "b2" {
		t.Fatalf("%s: the row of another member: %v %v, want b2", o, got, err)
	}
	if got, err := o.Locate(w, schema.Bindings{Params: map[string]any{"member": "Barbara"}}); err == nil {
		t.Fatalf("a member no row is keyed by exactly: found %v", got)
	}
	if _, err := distill(nil, "Archive a member", rows("Ada Byron", "Grace Hopper"), "b1"); !errors.Is(err, schema.ErrUnbound) && !errors.Is(err, schema.ErrAmbiguous) {
		t.Fatalf("a row no parameter names: %v, want a refusal", err)
	}
	items := "- list [ref=e1]:\n  - listitem [ref=e2]:\n    - generic [ref=e3]: Walnut tray\n    - button \"Add\" [ref=e4]\n  - listitem [ref=e5]:\n    - generic [ref=e6]: Cork board\n    - button \"Add\" [ref=e7]\n"
	if c, err = distill(map[string]string{"item": "Cork board"}, "Add the Cork board to the cart", items, "e7"); err != nil {
		t.Fatal(err)
	}
	for _, x := range c.Playbook.Steps[0].Outputs {
		if x.After != "{{item}}" {
			t.Fatalf("the Add button of an item: %s, want it found after {{item}}", x)
		}
	}
}

// TestDistillHoldsASecretToItsField: a secret typed through rote mcp
// browser keeps the contract of the field it went into (a password
// field), so a replay does not type it into a field of another kind
// (labels swapped); a value that is no secret is typed wherever its
// field now is, as before.
func TestDistillHoldsASecretToItsField(t *testing.T) {
	inventory := &schema.Inventory{Environment: schema.Environment{Identity: schema.Identity{Server: RoteBrowserServer}}}
	filled := func(id, name, typ string) string {
		return textResult(fmt.Sprintf("fill ok (target by id)\ncontrol: {\"id\":%q,\"role\":\"textbox\",\"name\":%q,\"contract\":{\"tag\":\"input\",\"input_type\":%q}}\n", id, name, typ))
	}
	r := mcpRun(map[string]string{"user": "ada77", "pass": "secret:0123456789abcdef0123456789abcdef"}, "Sign in as ada77",
		[3]string{"fill", `{"target":"us0001","value":"ada77"}`, filled("us0001", "Username", "text")},
		[3]string{"fill", `{"target":"pw0001","value":"secret:0123456789abcdef0123456789abcdef"}`, filled("pw0001", "Password", "password")},
		[3]string{"done", `{"reason":"signed in"}`, textResult("labelled")})
	r.Inventories = append(r.Inventories, inventory)
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	user, pass := c.Playbook.Steps[0], c.Playbook.Steps[1]
	if user.Args["contract"] != nil || pass.Target.Contract == nil || pass.Target.Contract.InputType != "password" || pass.Args["contract"] == nil {
		t.Fatalf("the username step %v, the password step %v %+v", user.Args, pass.Args, pass.Target)
	}
}

// TestDistillTellsALoneUnnamedFieldByItsLabel: the salary field is the
// only `- spinbutton [ref=..]` when recorded, yet bound by its label: a
// page that gains an Age spinbutton, or turns the salary into a text
// field, gets no salary typed into the age.
func TestDistillTellsALoneUnnamedFieldByItsLabel(t *testing.T) {
	snapshot := "- generic [ref=e2]:\n  - generic [ref=e3]: Full name\n  - textbox [ref=e4]\n- generic [ref=e5]:\n  - generic [ref=e6]: Yearly salary\n  - spinbutton [ref=e7]\n- button \"Join\" [ref=e8]\n"
	r := mcpRun(map[string]string{"salary": "12500"}, "Join with salary 12500",
		[3]string{"browser_snapshot", `{}`, textResult(snapshot)},
		[3]string{"browser_type", `{"target":"e7","text":"12500"}`, textResult("ok")},
		[3]string{"browser_click", `{"target":"e8"}`, textResult("joined")},
	)
	c, err := Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := c.Playbook.Steps[0].Outputs["yearly_salary"]
	if out.After != "Yearly salary" {
		t.Fatalf("the salary field's locator: %+v", c.Playbook.Steps[0].Outputs)
	}
	age := "- generic:\n  - generic: Age\n  - spinbutton [ref=e9]\n- generic:\n  - generic: Yearly salary\n  - textbox [ref=e10]\n"
	if got, err := out.Locate(schema.ToolResultWorld([]byte(textResult(age))), schema.Bindings{}); err == nil {
		t.Errorf("the age field took the salary: %v", got)
	}
	moved := "- generic:\n  - generic: Yearly salary\n  - spinbutton [ref=e11]\n- generic:\n  - generic: Age\n  - spinbutton [ref=e12]\n"
	if got, err := out.Locate(schema.ToolResultWorld([]byte(textResult(moved))), schema.Bindings{}); err != nil || got != "e11" {
		t.Errorf("the salary beside an age: %v %v, want e11", got, err)
	}
}
