package schema

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTallyClassesSumsWhyStepsRan(t *testing.T) {
	tok := func(n int64) TokenUsage { return TokenUsage{Uncached: n} }
	steps := []StepReport{
		{StepID: "s1", Class: ClassFrontier, Duration: time.Second, Calls: 1, Tokens: tok(100)},
		{StepID: "sign-in", Class: ClassReplay, Duration: 200 * time.Millisecond},
		{StepID: "s2", Class: ClassFrontier, Duration: time.Second, Calls: 2, Tokens: tok(50)},
		{StepID: "company", Class: ClassRecovery, Duration: 3 * time.Second, Calls: 1, Tokens: tok(70)},
		{StepID: "old", Duration: time.Millisecond},
	}
	got := TallyClasses(steps)
	want := []ClassUsage{
		{Class: ClassReplay, Steps: 1, Wall: 200 * time.Millisecond},
		{Class: ClassFrontier, Steps: 2, Calls: 3, Tokens: tok(150), Wall: 2 * time.Second},
		{Class: ClassRecovery, Steps: 1, Calls: 1, Tokens: tok(70), Wall: 3 * time.Second},
		{Class: "", Steps: 1, Wall: time.Millisecond},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("tally %+v\nwant  %+v", got, want)
	}
	if sum := MergeClasses(got, got[:1]); sum[0].Steps != 2 || sum[0].Wall != 400*time.Millisecond || len(sum) != 4 {
		t.Errorf("merge %+v", sum)
	}
}

func TestRunFinishedRefusesAnUnknownStepClass(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	spec := RunSpec{RunID: "R1", Mode: ModeAgent, Task: TaskSpec{Text: "t"}}
	for _, c := range []struct {
		step StepReport
		want string
	}{
		{StepReport{StepID: "s1", Class: ClassFrontier, Calls: 1}, ""},
		{StepReport{StepID: "s1"}, ""}, // recorded before steps were classed
		{StepReport{StepID: "s1", Class: "cached"}, `step s1: step class "cached"`},
		{StepReport{StepID: "s1", Class: ClassReplay, Calls: -1}, "-1 model calls"},
	} {
		e := &RunFinished{Meta: Meta{ID: "R1-finished", Time: t0}, Manifest: Manifest{RunSpec: spec, Outcome: OutcomeSuccess,
			Started: t0, Finished: t0, Steps: []StepReport{c.step}}}
		err := e.Validate()
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.step, err, c.want)
		}
	}
}

// The audit counts each step's model calls from the llm.call events, not
// from the manifest, and names a step whose count differs, or a step from
// site memory that a model call names.
func TestAuditDerivesClassesFromTheModelCalls(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	spec := RunSpec{RunID: "R1", Mode: ModeAgent, Task: TaskSpec{Text: "t"}}
	usage := TokenUsage{Uncached: 900, Output: 20}
	call := func(id, step string) Event {
		return &LLMCall{Meta: Meta{ID: id, Time: t0}, RunID: "R1", StepID: step, Source: SourcePlanner, Model: "m", Usage: usage}
	}
	run := func(steps []StepReport, calls ...Event) *Audit {
		m := Manifest{RunSpec: spec, Outcome: OutcomeFailed, Reason: Errorf(CodeToolError, "gave up"), Started: t0, Finished: t0,
			Usage: []SourceUsage{{Source: SourcePlanner, Calls: len(calls), Tokens: TokenUsage{Uncached: 900 * int64(len(calls)), Output: 20 * int64(len(calls))}}}, Steps: steps}
		events := append([]Event{&RunStarted{Meta: Meta{ID: "R1-started", Time: t0}, RunSpec: spec}}, calls...)
		events = append(events, &RunFinished{Meta: Meta{ID: "R1-finished", Time: t0}, Manifest: m})
		return AuditRun(Fold(events), nil)
	}
	a := run([]StepReport{{StepID: "s1", Class: ClassFrontier, Calls: 1}, {StepID: "s2", Class: ClassSpeculated}}, call("c1", "s1"))
	if !a.Agrees || len(a.Classes) != 2 || a.Classes[1].Class != ClassFrontier || a.Classes[1].Calls != 1 || a.Classes[1].Tokens != usage {
		t.Fatalf("an honest run: agrees %v %v, classes %+v", a.Agrees, a.Mismatches, a.Classes)
	}
	a = run([]StepReport{{StepID: "s1", Class: ClassFrontier, Calls: 1}, {StepID: "s2", Class: ClassSpeculated}}, call("c1", "s1"), call("c2", "s2"))
	text := strings.Join(a.Mismatches, "\n")
	if a.Agrees || !strings.Contains(text, "step s2: recorded 0 model call(s), its llm.call events 1") || !strings.Contains(text, "step s2 ran from site memory (speculated)") {
		t.Errorf("a speculated step that asked a model: %v", a.Mismatches)
	}
	if a.Classes[0].Class != ClassSpeculated || a.Classes[0].Calls != 1 {
		t.Errorf("derived classes take the events' calls: %+v", a.Classes)
	}
	// The model chose a routine at s2: that call is the routine's, its
	// steps ran under s2 with none; a call at one of them is a mismatch.
	routine := []StepReport{{StepID: "s1", Class: ClassFrontier, Calls: 1}, {StepID: "s2", Class: ClassGroundedRoutine, Calls: 1}, {StepID: "s2-fill", Class: ClassGroundedRoutine}}
	if a := run(routine, call("c1", "s1"), call("c2", "s2")); !a.Agrees {
		t.Errorf("the call that chose a routine: %v", a.Mismatches)
	}
	routine[2].Calls = 1
	if a := run(routine, call("c1", "s1"), call("c2", "s2"), call("c3", "s2-fill")); a.Agrees || !strings.Contains(strings.Join(a.Mismatches, "\n"), "step s2-fill ran from site memory (grounded-routine)") {
		t.Errorf("a routine step that asked a model: %v", a.Mismatches)
	}
	if a := run([]StepReport{{StepID: "s2", Class: ClassGroundedRoutine, Calls: 1}}, call("c2", "s2")); a.Agrees {
		t.Error("a grounded-routine step with a call and no routine under it agrees")
	}
}
