package distiller

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
)

// fsResult is a result as @modelcontextprotocol/server-filesystem
// answers: the text, and the same text as structuredContent.content.
func fsResult(text string) string {
	b, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "structuredContent": map[string]any{"content": text}})
	return string(b)
}

// replayed is the value a distilled step's output takes in a new result.
func replayed(t *testing.T, c *Candidate, step, output, result string, params map[string]any) (any, error) {
	t.Helper()
	s := c.Playbook.Step(step)
	if s == nil {
		t.Fatalf("no step %s in %+v", step, c.Playbook.Steps)
	}
	o, ok := s.Outputs[output]
	if !ok {
		t.Fatalf("step %s has no output %s: %+v", step, output, s.Outputs)
	}
	return o.Locate(schema.ToolResultWorld([]byte(result)), schema.Bindings{Params: params})
}

// TestDistillPicksFromAListing: a later call that passes one item of an
// earlier listing, joined to its directory or whole, is bound to the
// listing by the rule the run followed (the order the task states, the
// item a parameter names, the one item there was), so a replay on a
// listing that changed acts on the item the rule chooses then; a choice
// no rule explains is refused (issue 38, items 1, 5 and 6).
func TestDistillPicksFromAListing(t *testing.T) {
	listing := fsResult("[FILE] README.md\n[FILE] report-2026-01.md\n[DIR] drafts")
	moved := fsResult("Successfully moved /d/reports/report-2026-01.md to /d/archive/report-2026-01.md")
	move := `{"source":"/d/reports/report-2026-01.md","destination":"/d/archive/report-2026-01.md"}`
	c, err := Distill(mcpRun(nil, "archive the newest report in reports/",
		[3]string{"list_directory", `{"path":"/d/reports"}`, listing},
		[3]string{"move_file", move, moved},
	), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Playbook.Steps) != 2 {
		t.Fatalf("the listing was pruned: %+v (%v)", c.Playbook.Steps, c.Pruned)
	}
	// The directory the task names is a parameter, inferred.
	if a := c.Playbook.Steps[1].Args; a["source"] != "/d/{{path}}/{{steps.list-directory.item}}" || a["destination"] != "/d/archive/{{steps.list-directory.item}}" || c.Inferred["path"] != "reports" {
		t.Fatalf("move_file's arguments: %v (inferred %v)", a, c.Inferred)
	}
	// The gate ("labelled") named nothing that varies: the move's answer
	// must name the report chosen (issue 38, item 9).
	if v := c.Playbook.Verify; len(v) != 2 || v[1].Arg != "{{steps.list-directory.item}}" {
		t.Fatalf("verify: %v", v)
	}
	newer := fsResult("[FILE] report-2026-01.md\n[FILE] README.md\n[FILE] report-2026-02.md")
	if got, err := replayed(t, c, "list-directory", "item", newer, nil); err != nil || got != "report-2026-02.md" {
		t.Fatalf("after report-2026-02.md arrived: %v, %v", got, err)
	}
	if _, err := replayed(t, c, "list-directory", "item", fsResult("[FILE] README.md"), nil); !errors.Is(err, schema.ErrBindingNotFound) {
		t.Fatalf("no report: %v", err)
	}

	// Oldest of two, as the task says.
	two := fsResult("[FILE] report-2026-02.md\n[FILE] report-2026-01.md")
	c, err = Distill(mcpRun(nil, "archive the oldest report",
		[3]string{"list_directory", `{"path":"/d/reports"}`, two},
		[3]string{"move_file", move, moved},
	), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := replayed(t, c, "list-directory", "item", fsResult("[FILE] report-2026-03.md\n[FILE] report-2025-12.md"), nil); err != nil || got != "report-2025-12.md" {
		t.Fatalf("the oldest at replay: %v, %v", got, err)
	}
	// The task says newest, the run took the older: no rule explains it.
	if _, err := Distill(mcpRun(nil, "archive the newest report",
		[3]string{"list_directory", `{"path":"/d/reports"}`, two},
		[3]string{"move_file", move, moved},
	), Options{}); !errors.Is(err, schema.ErrUnbound) || !strings.Contains(err.Error(), "newest") {
		t.Fatalf("a run that did not do what the task says: %v", err)
	}
	// Nothing says which of two.
	if _, err := Distill(mcpRun(nil, "archive a report",
		[3]string{"list_directory", `{"path":"/d/reports"}`, two},
		[3]string{"move_file", move, moved},
	), Options{}); !errors.Is(err, schema.ErrUnbound) || !strings.Contains(err.Error(), "report-2026-01.md") {
		t.Fatalf("a choice no rule explains: %v", err)
	}
	// One like item and no rule: the only one, and two at replay stop.
	c, err = Distill(mcpRun(nil, "archive the report",
		[3]string{"list_directory", `{"path":"/d/reports"}`, listing},
		[3]string{"move_file", move, moved},
	), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replayed(t, c, "list-directory", "item", newer, nil); !errors.Is(err, schema.ErrAmbiguous) {
		t.Fatalf("two reports where the run had one: %v", err)
	}
	// The item a parameter names, inside its name.
	c, err = Distill(mcpRun(map[string]string{"month": "2026-01"}, "archive the report of 2026-01",
		[3]string{"list_directory", `{"path":"/d/reports"}`, two},
		[3]string{"move_file", move, moved},
	), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := replayed(t, c, "list-directory", "item", two, map[string]any{"month": "2026-02"}); err != nil || got != "report-2026-02.md" {
		t.Fatalf("the report of 2026-02: %v, %v", got, err)
	}
}

// TestDistillBindsAListedBranch: the branch a git server listed and the
// task chose by its order is bound to the listing, not kept a constant.
func TestDistillBindsAListedBranch(t *testing.T) {
	branches := textResult(`{"branches":[{"name":"main","current":true},{"name":"release/2026-01","current":false}]}`)
	c, err := Distill(mcpRun(nil, "check out the newest release branch",
		[3]string{"git_branch", `{"mode":"list"}`, branches},
		[3]string{"git_checkout", `{"target":"release/2026-01"}`, textResult(`{"success":true}`)},
	), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Playbook.Steps[1].Args; a["target"] != "{{steps.git-branch.name}}" || a["mode"] != nil {
		t.Fatalf("git_checkout's arguments: %v", a)
	}
	later := textResult(`{"branches":[{"name":"release/2026-02"},{"name":"main"},{"name":"release/2026-01"},{"name":"feature/x-2027-01"}]}`)
	if got, err := replayed(t, c, "git-branch", "name", later, nil); err != nil || got != "release/2026-02" {
		t.Fatalf("with release/2026-02 there: %v, %v", got, err)
	}
}

// TestDistillBindsASearchHit: the name of a search's one hit is that hit,
// found again at replay, not the query rebuilt into it (Alice {{query}});
// several hits stop.
func TestDistillBindsASearchHit(t *testing.T) {
	hit := textResult(`{"entities":[{"type":"entity","name":"Alice Zhang","entityType":"person","observations":[]}],"relations":[]}`)
	c, err := Distill(mcpRun(map[string]string{"query": "Zhang", "note": "prefers email"}, "add the note prefers email to the person matching Zhang",
		[3]string{"search_nodes", `{"query":"Zhang"}`, hit},
		[3]string{"add_observations", `{"observations":[{"entityName":"Alice Zhang","contents":["prefers email"]}]}`, textResult("labelled")},
	), Options{})
	if err != nil {
		t.Fatal(err)
	}
	obs := c.Playbook.Steps[1].Args["observations"].([]any)[0].(map[string]any)
	if obs["entityName"] != "{{steps.search-nodes.name}}" || obs["contents"].([]any)[0] != "{{note}}" {
		t.Fatalf("add_observations' arguments: %v", obs)
	}
	if !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, "verify gate is weak") }) {
		t.Fatalf("a gate that names nothing, with nothing to add: no warning in %v", c.Notes)
	}
	// Of two hits, the one of the kind the run chose.
	two := textResult(`{"entities":[{"type":"entity","name":"Alice Okafor","entityType":"organization"},{"type":"entity","name":"Bob Okafor","entityType":"person"}]}`)
	if got, err := replayed(t, c, "search-nodes", "name", two, map[string]any{"query": "Okafor"}); err != nil || got != "Bob Okafor" {
		t.Fatalf("two hits, one a person: %v, %v", got, err)
	}
	people := textResult(`{"entities":[{"type":"entity","name":"Ann Okafor","entityType":"person"},{"type":"entity","name":"Bob Okafor","entityType":"person"}]}`)
	if _, err := replayed(t, c, "search-nodes", "name", people, map[string]any{"query": "Okafor"}); !errors.Is(err, schema.ErrAmbiguous) {
		t.Fatalf("two people: %v", err)
	}
}

// TestDistillBindsContentFromARead: a write of what a read returned is
// bound to the read (a copy), and a write the agent composed from it (a
// summary) is a slot step over the read's text, never the recorded
// text (issue 38, item 2).
func TestDistillBindsContentFromARead(t *testing.T) {
	text := "Quarterly numbers are up.\nHiring continues in Berlin.\nThe office moves in March."
	calls := func(written string) *schema.RunFold {
		return mcpRun(nil, "copy the note in inbox/ to summary/",
			[3]string{"list_directory", `{"path":"/d/inbox"}`, fsResult("[FILE] q3.md")},
			[3]string{"read_text_file", `{"path":"/d/inbox/q3.md"}`, fsResult(text)},
			[3]string{"write_file", `{"path":"/d/summary/q3.md","content":` + quote(written) + `}`, fsResult("Successfully wrote to /d/summary/q3.md")},
		)
	}
	c, err := Distill(calls(text), Options{})
	if err != nil {
		t.Fatal(err)
	}
	steps := c.Playbook.Steps
	if len(steps) != 3 {
		t.Fatalf("steps: %+v (pruned %v)", steps, c.Pruned)
	}
	if a := steps[1].Args; a["path"] != "/d/{{path}}/{{steps.list-directory.item}}" {
		t.Fatalf("read's arguments: %v", a)
	}
	if a := steps[2].Args; a["path"] != "/d/summary/{{steps.list-directory.item}}" || a["content"] != "{{steps.read-text-file.text}}" {
		t.Fatalf("write's arguments: %v", a)
	}
	if got, err := replayed(t, c, "read-text-file", "text", fsResult("other words"), nil); err != nil || got != "other words" {
		t.Fatalf("the copy at replay: %v, %v", got, err)
	}

	c, err = Distill(calls("Numbers up; hiring continues in Berlin; office moves in March."), Options{})
	if err != nil {
		t.Fatal(err)
	}
	steps = c.Playbook.Steps
	if len(steps) != 4 || steps[2].Kind != schema.StepSlot || !strings.Contains(steps[2].Prompt, "{{steps.read-text-file.text}}") || steps[2].MaxTokens < 64 {
		t.Fatalf("no slot step over the read: %+v", steps)
	}
	if a := steps[3].Args; a["content"] != "{{steps."+steps[2].ID+"}}" {
		t.Fatalf("write's arguments: %v", a)
	}
	if err := c.Playbook.Validate(); err != nil {
		t.Fatal(err)
	}

	// A constant that owes nothing to the read stays one.
	c, err = Distill(calls("# Summary folder\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Playbook.Steps[len(c.Playbook.Steps)-1].Args; a["content"] != "# Summary folder\n" {
		t.Fatalf("a constant: %v", a)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestDistillInfersTheItemTheTaskNames: with no flag, the part of the
// chosen item that the task names and no other item holds is a
// parameter the item is chosen by; the word every item shares is not.
func TestDistillInfersTheItemTheTaskNames(t *testing.T) {
	two := fsResult("[FILE] report-2026-02.md\n[FILE] report-2026-01.md")
	c, err := Distill(mcpRun(nil, "archive the report for 2026-01",
		[3]string{"list_directory", `{"path":"/d/reports"}`, two},
		[3]string{"move_file", `{"source":"/d/reports/report-2026-01.md","destination":"/d/archive/report-2026-01.md"}`, fsResult("Successfully moved /d/reports/report-2026-01.md to /d/archive/report-2026-01.md")},
	), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Inferred["destination"] != "2026-01" || len(c.Inferred) != 1 || c.Playbook.Intent != "archive the report for {{destination}}" {
		t.Fatalf("inferred %v, intent %q", c.Inferred, c.Playbook.Intent)
	}
	if got, err := replayed(t, c, "list-directory", "item", fsResult("[FILE] report-2026-03.md\n[FILE] report-2026-02.md"), map[string]any{"destination": "2026-02"}); err != nil || got != "report-2026-02.md" {
		t.Fatalf("the report for 2026-02: %v, %v", got, err)
	}
}

// TestDistillOnWhatATrialFound: the cases a trial on the reference
// servers found replayed wrong: a multi-line copy pruned and frozen,
// braces in a copy read as a template, a summary bound on one of its
// tokens, a listing with a size column frozen, a pick blind to items of
// its kind shaped otherwise, the one hit of another kind.
func TestDistillOnWhatATrialFound(t *testing.T) {
	copyOf := func(read, written string) *schema.RunFold {
		return mcpRun(nil, "back up the todo list",
			[3]string{"read_text_file", `{"path":"/d/todo.txt"}`, fsResult(read)},
			[3]string{"write_file", `{"path":"/d/backup/todo-copy.txt","content":` + quote(written) + `}`, fsResult("Successfully wrote to /d/backup/todo-copy.txt")},
		)
	}
	for _, text := range []string{"buy milk\ncall Bob\n", "has {{path}} braces"} {
		c, err := Distill(copyOf(text, text), Options{})
		if err != nil {
			t.Fatalf("a copy of %q: %v", text, err)
		}
		if len(c.Playbook.Steps) != 2 || c.Playbook.Steps[1].Args["content"] != "{{steps.read-text-file.text}}" {
			t.Fatalf("a copy of %q: %+v (pruned %v)", text, c.Playbook.Steps, c.Pruned)
		}
	}
	if _, err := Distill(copyOf("other", "keep {{these}} braces"), Options{}); !errors.Is(err, schema.ErrInvalid) {
		t.Fatalf("braces that are no copy: %v", err)
	}
	minutes := "Decision: ship v2 on Monday.\nMei writes the release notes.\nNext meeting in March.\n"
	c, err := Distill(copyOf(minutes, "Summary: ship v2 on Monday; Mei writes release notes."), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Playbook.Steps; len(s) != 3 || s[1].Kind != schema.StepSlot {
		t.Fatalf("a summary holding a token of what was read: %+v", s)
	}

	sized := fsResult("[FILE] app.log                          4.88 KB\n[FILE] cafe.log                        19.53 KB\n[FILE] db.log                           300 B\n\nTotal: 3 files")
	c, err = Distill(mcpRun(nil, "move the largest log to big",
		[3]string{"list_directory_with_sizes", `{"path":"/d/logs"}`, sized},
		[3]string{"move_file", `{"source":"/d/logs/cafe.log","destination":"/d/big/cafe.log"}`, fsResult("Successfully moved")},
	), Options{})
	if err != nil {
		t.Fatalf("an item of a listing with sizes: %v", err)
	}
	bigger := fsResult("[FILE] app.log                          4.88 KB\n[FILE] cafe.log                        19.53 KB\n[FILE] huge.log                         1.2 MB\n[FILE] notes.txt                        9 GB\n[DIR] old\n\nTotal: 4 files")
	if got, err := replayed(t, c, "list-directory-with-sizes", "item", bigger, nil); err != nil || got != "huge.log" {
		t.Fatalf("the largest log, by its size column: %v, %v", got, err)
	}
	// A listing with more columns that rote cannot order by is refused.
	if _, err := Distill(mcpRun(nil, "move the log to big",
		[3]string{"list_directory_with_sizes", `{"path":"/d/logs"}`, sized},
		[3]string{"move_file", `{"source":"/d/logs/cafe.log","destination":"/d/big/cafe.log"}`, fsResult("Successfully moved")},
	), Options{}); !errors.Is(err, schema.ErrUnbound) || !strings.Contains(err.Error(), "cafe.log") {
		t.Fatalf("one log of several, no rule: %v", err)
	}
	releases := textResult(`{"branches":[{"name":"main"},{"name":"release/1.9"},{"name":"release/1.10"},{"name":"release/1.2"}]}`)
	c, err = Distill(mcpRun(nil, "check out the newest release branch",
		[3]string{"git_branch", `{"mode":"list"}`, releases},
		[3]string{"git_checkout", `{"target":"release/1.10"}`, textResult(`{"success":true,"target":"release/1.10"}`)},
	), Options{})
	if err != nil {
		t.Fatalf("versions: %v", err)
	}
	if got, err := replayed(t, c, "git-branch", "name", textResult(`{"branches":[{"name":"release/1.10"},{"name":"release/1.11"},{"name":"release/2.0"}]}`), nil); err != nil || got != "release/2.0" {
		t.Fatalf("the newest version: %v, %v", got, err)
	}

	invoices := fsResult("[FILE] Rechnung 2026-01-05 Özil.pdf\n[FILE] Rechnung 2026-03-01 Özil.pdf")
	c, err = Distill(mcpRun(nil, "archive the oldest invoice in in",
		[3]string{"list_directory", `{"path":"/d/in"}`, invoices},
		[3]string{"move_file", `{"source":"/d/in/Rechnung 2026-01-05 Özil.pdf","destination":"/d/out/Rechnung 2026-01-05 Özil.pdf"}`, fsResult("Successfully moved")},
	), Options{})
	if err != nil {
		t.Fatal(err)
	}
	later := fsResult("[FILE] Rechnung 2025-10-01 Müller.pdf\n[FILE] Rechnung 2026-03-01 Özil.pdf\n[FILE] README.md")
	if _, err := replayed(t, c, "list-directory", "item", later, map[string]any{"path": "in"}); !errors.Is(err, schema.ErrAmbiguous) {
		t.Fatalf("an older invoice of another customer: %v", err)
	}
	compact := fsResult("[FILE] report-2026-01-03.txt\n[FILE] report-20260301.txt")
	o := schema.Output{Line: "[FILE] ", Pick: &schema.ItemPick{Like: "report-#-#-#.txt", Rules: []schema.PickRule{{Order: schema.OrderNewest}}}}
	if _, err := o.Locate(schema.ToolResultWorld([]byte(compact)), schema.Bindings{}); !errors.Is(err, schema.ErrAmbiguous) {
		t.Fatalf("a newer report dated otherwise: %v", err)
	}
	if v, ok := schema.Ordinal("backup-20251231.tar", true); !ok || v == 0 {
		t.Fatal("a compact date is no date")
	}

	hit := textResult(`{"entities":[{"name":"Bob Jones","entityType":"person","observations":[]}],"relations":[]}`)
	c, err = Distill(mcpRun(map[string]string{"query": "Jones", "note": "attended"}, "note attended on the person who matches Jones",
		[3]string{"search_nodes", `{"query":"Jones"}`, hit},
		[3]string{"add_observations", `{"observations":[{"entityName":"Bob Jones","contents":["attended"]}]}`, textResult("added attended")},
	), Options{})
	if err != nil {
		t.Fatal(err)
	}
	company := textResult(`{"entities":[{"name":"Initech","entityType":"company","observations":[]}],"relations":[]}`)
	if _, err := replayed(t, c, "search-nodes", "name", company, map[string]any{"query": "Initech"}); !errors.Is(err, schema.ErrBindingNotFound) {
		t.Fatalf("the one hit is a company where the run's was a person: %v", err)
	}
}

// TestDistillPicksAmongAFamily: invoices of several customers, and
// reports dated two ways, are one family the order is taken over.
func TestDistillPicksAmongAFamily(t *testing.T) {
	invoices := fsResult("[FILE] Rechnung 2026-01-05 Müller.pdf\n[FILE] Rechnung 2025-11-30 Özil.pdf\n[FILE] Rechnung 2026-02-01 Schmidt.pdf\n[FILE] README.md")
	c, err := Distill(mcpRun(nil, "archive the oldest invoice in in",
		[3]string{"list_directory", `{"path":"/d/in"}`, invoices},
		[3]string{"move_file", `{"source":"/d/in/Rechnung 2025-11-30 Özil.pdf","destination":"/d/out/Rechnung 2025-11-30 Özil.pdf"}`, fsResult("Successfully moved")},
	), Options{})
	if err != nil {
		t.Fatal(err)
	}
	later := fsResult("[FILE] Rechnung 2025-10-01 Müller.pdf\n[FILE] Rechnung 2026-03-01 Özil.pdf\n[FILE] Rechnung 2026-01-05 Schmidt.pdf")
	if got, err := replayed(t, c, "list-directory", "item", later, map[string]any{"path": "in"}); err != nil || got != "Rechnung 2025-10-01 Müller.pdf" {
		t.Fatalf("the oldest invoice, whoever it is for: %v, %v", got, err)
	}
	reports := fsResult("[FILE] report-2026-01-03.txt\n[FILE] report-20251230.txt")
	c, err = Distill(mcpRun(nil, "archive the newest report in reports",
		[3]string{"list_directory", `{"path":"/d/reports"}`, reports},
		[3]string{"move_file", `{"source":"/d/reports/report-2026-01-03.txt","destination":"/d/archive/report-2026-01-03.txt"}`, fsResult("Successfully moved")},
	), Options{})
	if err != nil {
		t.Fatal(err)
	}
	later = fsResult("[FILE] report-2026-01-03.txt\n[FILE] report-20260301.txt")
	if got, err := replayed(t, c, "list-directory", "item", later, map[string]any{"path": "reports"}); err != nil || got != "report-20260301.txt" {
		t.Fatalf("the newest report, dated either way: %v, %v", got, err)
	}
}
