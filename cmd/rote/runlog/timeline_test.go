package runlog_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/runlog"
	"github.com/rote-agent/rote/schema"
)

func TestWriteTimeline(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	spec := schema.RunSpec{RunID: "r1", Mode: schema.ModeReplay, Task: schema.TaskSpec{Name: "register"}, Playbook: &schema.PlaybookRef{Name: "register", Version: 2}}
	fail := schema.Errorf(schema.CodeNotFound, "no Save button")
	envs := []bus.Envelope{
		{Event: &schema.RunStarted{Meta: schema.Meta{ID: "s", Time: t0}, RunSpec: spec}},
		{Event: &schema.ToolCall{Meta: schema.Meta{ID: "c", Time: t0.Add(1500 * time.Millisecond)}, RunID: "r1", Seq: 1, Tool: "browser_click",
			Arguments: schema.RawJSON(`{"ref":"e12"}`), Bound: map[string]string{"steps.list.item": "report 2026-03.md"}}},
		{Event: &schema.ToolCall{Meta: schema.Meta{ID: "o", Time: t0.Add(2 * time.Second)}, RunID: "r1", Seq: 2, Tool: "register", Offered: true}},
		{Event: &schema.RunFinished{Meta: schema.Meta{ID: "f", Time: t0.Add(3 * time.Second)}, Manifest: schema.Manifest{RunSpec: spec, Outcome: schema.OutcomeFailed, Reason: fail, Started: t0, Finished: t0.Add(3 * time.Second)}}},
	}
	var out strings.Builder
	runlog.WriteTimeline(&out, envs)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for i, want := range []string{
		`+0.000s  run.started            replay run r1, task "register", playbook register v2`,
		`+1.500s  trajectory.tool_call   #1 browser_click 0s {"ref":"e12"}, {{steps.list.item}} = "report 2026-03.md"`,
		`+2.000s  trajectory.tool_call   #2 register (a playbook rote offered, replayed in a run of its own) 0s`,
		`+3.000s  run.finished           failed after 3s: not_found: no Save button`,
		`= failed; 2 action(s) or tool call(s), 0 model call(s), 0 tokens, by its events`,
	} {
		if i >= len(lines) || strings.TrimSpace(lines[i]) != want {
			t.Errorf("line %d:\n got %q\nwant %q", i, strings.TrimSpace(lines[min(i, len(lines)-1)]), want)
		}
	}
}

func TestWriteChecks(t *testing.T) {
	var out strings.Builder
	saved, err := schema.ParseExpectText("text_visible: Saved")
	if err != nil {
		t.Fatal(err)
	}
	runlog.WriteChecks(&out, "  ", []schema.Check{{Expect: saved, Passed: true, Detail: "found"}, {Expect: saved, Detail: "not on the page"}})
	want := "  verify PASS " + saved.String() + " (found)\n  verify FAIL " + saved.String() + " (not on the page)\n"
	if out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
}
