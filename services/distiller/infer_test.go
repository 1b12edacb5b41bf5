package distiller

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
)

// TestDistillInfersTheTasksLiterals: a value the task's text names and
// the run passed on is a parameter with no flag (a file's name inside
// its path, a whole value), named after its argument; a declared one is
// found before a file name's extension; a tool's own enum value and the
// task's verb stay constants (issue 38, items 3 and 8).
func TestDistillInfersTheTasksLiterals(t *testing.T) {
	write := func(params map[string]string, text string) *schema.RunFold {
		return mcpRun(params, text,
			[3]string{"write_file", `{"path":"/d/notes/alpha.md","content":"call Bob on Monday"}`, fsResult("Successfully wrote to /d/notes/alpha.md")},
		)
	}
	c, err := Distill(write(nil, "write notes/alpha.md with content call Bob on Monday"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := c.Playbook.Steps[0].Args
	if a["path"] != "/d/notes/{{path}}.md" || a["content"] != "{{content}}" || c.Inferred["path"] != "alpha" || c.Inferred["content"] != "call Bob on Monday" {
		t.Fatalf("inferred: %v from %v", c.Inferred, a)
	}
	if c.Playbook.Intent != "write notes/{{path}}.md with content {{content}}" || c.Playbook.Name == "" {
		t.Fatalf("intent %q, name %q", c.Playbook.Intent, c.Playbook.Name)
	}
	if v := c.Values(map[string]string{"content": "x"}); v["path"] != "alpha" || v["content"] != "x" {
		t.Fatalf("values for a shadow replay: %v", v)
	}
	// Declared, it names the file inside its path.
	c, err = Distill(write(map[string]string{"name": "alpha", "content": "call Bob on Monday"}, "write a note called alpha: call Bob on Monday"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Playbook.Steps[0].Args; a["path"] != "/d/notes/{{name}}.md" || len(c.Inferred) != 0 {
		t.Fatalf("declared: %v, inferred %v", a, c.Inferred)
	}
	// The tool's own enum value, though the task says "create".
	r := mcpRun(map[string]string{"branch": "feature-x"}, "create the branch feature-x",
		[3]string{"git_branch", `{"mode":"create","name":"feature-x"}`, textResult(`{"success":true}`)},
	)
	r.Inventories = append(r.Inventories, &schema.Inventory{Environment: schema.Environment{Tools: []schema.ToolSpec{
		{Name: "git_branch", InputSchema: schema.RawJSON(`{"type":"object","properties":{"mode":{"type":"string","enum":["list","create","delete"]},"name":{"type":"string"}}}`)},
	}}})
	c, err = Distill(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Playbook.Steps[0].Args; a["mode"] != "create" || a["name"] != "{{branch}}" || len(c.Inferred) != 0 {
		t.Fatalf("an enum value: %v, inferred %v", a, c.Inferred)
	}
	// A literal that is all the task says is not a parameter: refused,
	// with what to do.
	if _, err := Distill(mcpRun(nil, "Archive everything",
		[3]string{"archive", `{"what":"Archive everything"}`, textResult("labelled")},
	), Options{}); !errors.Is(err, schema.ErrUnbound) || !errContains(err, "nothing needs recording again") {
		t.Fatalf("the task's own words: %v", err)
	}
}

func errContains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }

// TestDistillSaysWhatStaysConstant: a task's word that names one thing
// by its digits, which no call passed as the task spells it, is noted
// as a constant.
func TestDistillSaysWhatStaysConstant(t *testing.T) {
	c, err := Distill(mcpRun(nil, "create the branch for ticket JIRA-123",
		[3]string{"git_branch", `{"mode":"create","branchName":"feature/jira-123"}`, textResult(`{"success":true}`)},
	), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.Contains(n, `"JIRA-123" stays a constant`) }) {
		t.Fatalf("notes: %v", c.Notes)
	}
}

// TestDistillOnWhatASecondTrialFound: a short copy of what a read
// returned is bound, not kept; a file moved into a directory keeps its
// name from the task's (q3.md, a stem too short alone); a note that
// repeats the task's words carries them as a parameter; a folder and a
// file of the same name do not share one.
func TestDistillOnWhatASecondTrialFound(t *testing.T) {
	c, err := Distill(mcpRun(nil, "back up the todo list",
		[3]string{"read_text_file", `{"path":"/d/notes/todo.txt"}`, fsResult("hello\n")},
		[3]string{"write_file", `{"path":"/d/backup/todo.txt","content":"hello\n"}`, fsResult("Successfully wrote to /d/backup/todo.txt")},
	), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Playbook.Steps[1].Args; a["content"] != "{{steps.read-text-file.text}}" {
		t.Fatalf("a short copy: %v", a)
	}
	c, err = Distill(mcpRun(nil, "Move /d/notes/q3.md into /d/archive/",
		[3]string{"move_file", `{"source":"/d/notes/q3.md","destination":"/d/archive/q3.md"}`, fsResult("Successfully moved /d/notes/q3.md to /d/archive/q3.md")},
	), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Playbook.Steps[0].Args; a["source"] != "/d/notes/{{destination}}" || a["destination"] != "/d/archive/{{destination}}" {
		t.Fatalf("a file moved into a directory: %v (inferred %v)", a, c.Inferred)
	}
	c, err = Distill(mcpRun(nil, "Create /d/people/alice.txt saying that Alice joined on 2026-01-05",
		[3]string{"write_file", `{"path":"/d/people/alice.txt","content":"Alice joined on 2026-01-05."}`, fsResult("Successfully wrote to /d/people/alice.txt")},
	), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Playbook.Steps[0].Args; a["content"] != "{{content}}." || c.Inferred["content"] != "Alice joined on 2026-01-05" {
		t.Fatalf("a note repeating the task: %v (inferred %v)", a, c.Inferred)
	}
	c, err = Distill(mcpRun(nil, "Copy todo.txt from /d/todo to /d/backup",
		[3]string{"read_text_file", `{"path":"/d/todo/todo.txt"}`, fsResult("buy milk and eggs\n")},
		[3]string{"write_file", `{"path":"/d/backup/todo.txt","content":"buy milk and eggs\n"}`, fsResult("Successfully wrote to /d/backup/todo.txt")},
	), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Playbook.Steps[0].Args; a["path"] != "/d/todo/{{path}}" || c.Inferred["path"] != "todo.txt" {
		t.Fatalf("a folder and a file of one name: %v (inferred %v)", a, c.Inferred)
	}
}
