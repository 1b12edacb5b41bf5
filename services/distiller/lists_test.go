package distiller

import (
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
)

// resultsRun is a run that searched, read the page's main text and
// answered with the first two results of the list it showed.
func resultsRun(answer string, params map[string]string) *schema.RunFold {
	read := act(schema.ActExtract, "", "", "")
	read.Lists = []schema.RecordSet{
		{Role: "link", Pattern: "*", Within: "navigation Main", Records: []schema.Record{{Name: "Dashboard", Key: "Dashboard"}, {Name: "Catalog", Key: "Catalog"}}},
		{Role: "link", Pattern: "*", Within: "main", Records: []schema.Record{{Name: "Oak desk", Key: "Oak desk"}, {Name: "Pine desk", Key: "Pine desk"}, {Name: "Desk lamp", Key: "Desk lamp"}}},
	}
	done := act(schema.ActDone, "", "", "")
	done.Action.Reason = answer
	r := runOf(act(schema.ActFill, "searchbox", "Search", "desk"), read, done)
	r.Spec.Task.Text, r.Spec.Task.Params = "Search for desk and report the top 2 results", params
	return r
}

// TestDistillReadsTheListTheAnswerNamed: a read of the whole page whose
// answer names the first records of one of its lists becomes a read of
// that many records of that list, the count bound to the parameter that
// gives it; an answer that skips a record, or names none, leaves the read
// whole, and a count parameter then binds nothing and is refused.
func TestDistillReadsTheListTheAnswerNamed(t *testing.T) {
	c, err := Distill(resultsRun("top 2: Oak desk; Pine desk", map[string]string{"query": "desk", "n": "2"}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	read := c.Playbook.Steps[1]
	if read.Tool != "extract" || read.Args["count"] != "{{n}}" || read.Target == nil || read.Target.Role != "link" || read.Target.Pick.Within != "main" {
		t.Fatalf("read step %+v target %+v", read, read.Target)
	}
	if a, err := tools.ActionFromArgs(schema.ActExtract, map[string]any{"count": "3"}, read.Target); err != nil || a.Value != "3" {
		t.Errorf("the step's action: %+v %v", a, err)
	}
	for _, answer := range []string{"top 2: Oak desk; Desk lamp", "nothing matched"} {
		_, err := Distill(resultsRun(answer, map[string]string{"query": "desk", "n": "2"}), Options{})
		if err == nil || !strings.Contains(err.Error(), "parameter n is declared but no step uses it") {
			t.Errorf("answer %q: %v", answer, err)
		}
	}
	c, err = Distill(resultsRun("Oak desk", map[string]string{"query": "desk"}), Options{})
	if err != nil || c.Playbook.Steps[1].Args["count"] != "1" || len(c.Notes) == 0 {
		t.Errorf("a constant count: %v %+v", err, c)
	}
}
