package distiller

import (
	"errors"
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
)

// TestDistillRunsKeepsWhatExplainsEveryRun: two runs of "download the
// latest report" chose the top row; in the first it was newest by Period
// and by Published, in the second only by Published (its periods came in
// another order): the playbook keeps newest by Published alone. A run
// that chose a row no stated rule explains, a run that took another
// step, and a run that typed another value no parameter holds are each
// refused, naming that run.
func TestDistillRunsKeepsWhatExplainsEveryRun(t *testing.T) {
	const task = "Download the latest operations report."
	run := func(id string, a ...schema.BrowserAction) *schema.RunFold {
		r := withTask(runOf(a...), task, nil)
		r.Spec.RunID = id
		return r
	}
	swapped := chose(0)
	swapped.Among.Records[0].Cells[1], swapped.Among.Records[1].Cells[1] = "October 2026", "November 2026"
	c, err := DistillRuns([]*schema.RunFold{run("run-a", chose(0)), run("run-b", swapped)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Playbook.Steps[0].Target.Pick.String(); got != "newest by Published" {
		t.Fatalf("pick %q, want newest by Published alone", got)
	}
	if alone, _ := Distill(run("run-a", chose(0)), Options{}); alone.Playbook.Steps[0].Target.Pick.String() != "newest by Period, newest by Published" {
		t.Fatalf("one run alone: %s", alone.Playbook.Steps[0].Target.Pick)
	}
	for _, bad := range []struct {
		name string
		run  *schema.RunFold
	}{
		{"a row no stated rule explains", run("run-c", chose(2))},
		{"another step", run("run-c", chose(0), act(schema.ActClick, "button", "Archive", ""))},
		{"another value", run("run-c", chose(0), act(schema.ActFill, "textbox", "Note", "quarterly"))},
	} {
		runs := []*schema.RunFold{run("run-a", chose(0), act(schema.ActFill, "textbox", "Note", "monthly")), bad.run}
		if bad.name == "a row no stated rule explains" || bad.name == "another step" {
			runs[0] = run("run-a", chose(0))
		}
		_, err := DistillRuns(runs, Options{})
		if err == nil || !strings.Contains(err.Error(), "run-c") {
			t.Errorf("%s: %v, want a refusal naming run-c", bad.name, err)
		}
		if bad.name == "another value" && !errors.Is(err, schema.ErrUnbound) {
			t.Errorf("another value: %v, want unbound", err)
		}
	}
	if _, err := DistillRuns([]*schema.RunFold{run("run-a", chose(0)), run("run-a", chose(0))}, Options{}); err == nil {
		t.Error("one run given twice explains nothing twice")
	}
}
