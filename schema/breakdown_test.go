package schema_test

import (
	"testing"
	"time"

	"github.com/rote-agent/rote/schema"
)

// TestStepTimesAddUpToTheWall: each step's phases come from its events,
// what they leave of the step's wall is the record phase, and the run's
// time outside its steps (the verify gate's) is the last row.
func TestStepTimesAddUpToTheWall(t *testing.T) {
	ms := time.Millisecond
	start := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	events := []schema.Event{
		&schema.BrowserAction{StepID: "open", SettleWait: 2 * ms, Timing: schema.ActionTiming{Dispatch: 100 * ms}},
		&schema.BrowserObserved{StepID: "open", Stats: schema.ObservationStats{Settle: 30 * ms, Capture: 20 * ms, Distill: ms}},
		&schema.BrowserAction{StepID: "save", SettleWait: 3 * ms, Timing: schema.ActionTiming{Resolve: 5 * ms, Dispatch: 10 * ms, Send: 150 * ms}},
		&schema.BrowserAction{StepID: "save", SettleWait: 1 * ms, Timing: schema.ActionTiming{Resolve: 4 * ms, Dispatch: 9 * ms}}, // a retry
		&schema.LLMCall{StepID: "save", Duration: 200 * ms},
		&schema.BrowserObserved{Stats: schema.ObservationStats{Settle: 5 * ms, Capture: 15 * ms}}, // the verify gate's
		&schema.RunFinished{Manifest: schema.Manifest{Started: start, Finished: start.Add(600 * ms),
			Steps: []schema.StepReport{{StepID: "open", Duration: 160 * ms}, {StepID: "save", Duration: 390 * ms}}}},
	}
	got := schema.Fold(events).StepTimes()
	want := []schema.StepTime{
		{StepID: "open", Wall: 160 * ms, Settle: 32 * ms, Act: 100 * ms, Check: 21 * ms, Record: 7 * ms},
		{StepID: "save", Wall: 390 * ms, Settle: 4 * ms, Resolve: 9 * ms, Act: 19 * ms, Send: 150 * ms, Model: 200 * ms, Record: 8 * ms},
		{StepID: schema.RestStep, Wall: 50 * ms, Settle: 5 * ms, Check: 15 * ms, Record: 30 * ms},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d steps, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("step %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if schema.Fold(events[:6]).StepTimes() != nil {
		t.Error("a run with no finished manifest has a breakdown")
	}
	total := schema.StepTime{Wall: 600 * ms, Settle: 41 * ms, Resolve: 9 * ms, Act: 119 * ms, Send: 150 * ms, Check: 36 * ms, Model: 200 * ms, Record: 45 * ms}
	if sum := schema.TotalStepTime(got); sum != total {
		t.Errorf("the whole run: got %+v, want %+v", sum, total)
	}
}
