package planner

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/prompt"
)

// TestOutcomeSaysHowTheTaskWasDone: the mode and the runs of an outcome
// follow from what ran: a replay, a repaired replay, a replay and its
// fallback, or the agent alone.
func TestOutcomeSaysHowTheTaskWasDone(t *testing.T) {
	replay := &schema.ReplayResult{RunID: "rep", Outcome: schema.OutcomeSuccess}
	repaired := &schema.ReplayResult{RunID: "rep", Outcome: schema.OutcomeSuccess, Patched: &schema.PlaybookRef{Name: "p", Version: 2}}
	fellBack := &schema.ReplayResult{RunID: "rep", Outcome: schema.OutcomeFallback}
	agent := &Result{RunID: "ag", Outcome: schema.OutcomeSuccess}
	cases := []struct {
		out  Outcome
		mode string
		runs []string
	}{
		{Outcome{Replay: replay}, "replay", []string{"rep"}},
		{Outcome{Replay: repaired}, "repair", []string{"rep"}},
		{Outcome{Replay: fellBack, Agent: agent}, "fallback", []string{"rep", "ag"}},
		{Outcome{Agent: agent}, "agent", []string{"ag"}},
		{Outcome{Match: &schema.MatchReply{Reason: "no matcher is running"}}, "agent", nil},
	}
	for _, c := range cases {
		if got := c.out.Mode(); got != c.mode {
			t.Errorf("%+v: mode %s, want %s", c.out, got, c.mode)
		}
		if got := c.out.Runs(); !slices.Equal(got, c.runs) {
			t.Errorf("%+v: runs %q, want %q", c.out, got, c.runs)
		}
	}
}

// TestFinishTakesTheLastWordAndEveryCall: the agent's outcome, when it
// ran, is the task's; the usage is every model call of the match, the
// replay and the agent, per source.
func TestFinishTakesTheLastWordAndEveryCall(t *testing.T) {
	matched := schema.TokenUsage{Uncached: 50, Output: 5}
	replayed := []schema.SourceUsage{{Source: schema.SourceRepair, Calls: 1, Tokens: schema.TokenUsage{Uncached: 300, Output: 20}},
		{Source: schema.SourceMatcher, Calls: 1, Tokens: schema.TokenUsage{Uncached: 10, Output: 1}}}
	agentUsage := []schema.SourceUsage{{Source: schema.SourcePlanner, Calls: 4, Tokens: schema.TokenUsage{Uncached: 900, CacheRead: 3000, Output: 80}}}
	failed := &schema.Error{Code: schema.CodeExpectFailed, Message: "no Saved"}
	out := (&Controller{}).finish(&Outcome{
		Match:  &schema.MatchReply{Hit: true, Usage: matched},
		Replay: &schema.ReplayResult{RunID: "rep", Outcome: schema.OutcomeFallback, Reason: failed, Usage: replayed},
		Agent:  &Result{RunID: "ag", Outcome: schema.OutcomeSuccess, Usage: agentUsage},
	}, time.Now().Add(-time.Second))
	if out.Outcome != schema.OutcomeSuccess || out.Reason != nil || out.Duration < time.Second {
		t.Errorf("outcome %s (%v) after %v: want the agent's", out.Outcome, out.Reason, out.Duration)
	}
	want := []schema.SourceUsage{
		{Source: schema.SourceMatcher, Calls: 2, Tokens: schema.TokenUsage{Uncached: 60, Output: 6}},
		{Source: schema.SourceRepair, Calls: 1, Tokens: schema.TokenUsage{Uncached: 300, Output: 20}},
		{Source: schema.SourcePlanner, Calls: 4, Tokens: schema.TokenUsage{Uncached: 900, CacheRead: 3000, Output: 80}},
	}
	if !sameUsage(out.Usage, want) {
		t.Errorf("usage %+v, want %+v", out.Usage, want)
	}
	replayOnly := (&Controller{}).finish(&Outcome{Match: &schema.MatchReply{Reason: "miss"}, Replay: &schema.ReplayResult{Outcome: schema.OutcomeFailed, Reason: failed}}, time.Now())
	if replayOnly.Outcome != schema.OutcomeFailed || replayOnly.Reason != failed || len(replayOnly.Usage) != 0 {
		t.Errorf("a replay alone: %s (%v), usage %+v; a match without a model call costs nothing", replayOnly.Outcome, replayOnly.Reason, replayOnly.Usage)
	}
}

// sameUsage compares usage lists whatever their order.
func sameUsage(a, b []schema.SourceUsage) bool {
	by := func(x, y schema.SourceUsage) int {
		if x.Source < y.Source {
			return -1
		}
		if x.Source > y.Source {
			return 1
		}
		return 0
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.SortFunc(a, by)
	slices.SortFunc(b, by)
	return reflect.DeepEqual(a, b)
}

// TestMatchUsage: the matcher's binding call is made in the run's name
// and counted in it; a match that made none costs nothing.
func TestMatchUsage(t *testing.T) {
	if got := (&Outcome{}).matchUsage(); got != nil {
		t.Errorf("no match: %+v", got)
	}
	if got := (&Outcome{Match: &schema.MatchReply{Hit: true}}).matchUsage(); got != nil {
		t.Errorf("a match without a call: %+v", got)
	}
	u := schema.TokenUsage{Uncached: 40, Output: 3}
	if got := (&Outcome{Match: &schema.MatchReply{Usage: u}}).matchUsage(); len(got) != 1 || got[0] != (schema.SourceUsage{Source: schema.SourceMatcher, Calls: 1, Tokens: u}) {
		t.Errorf("a binding call: %+v", got)
	}
}

// TestReplayedLedger tells the agent what the replay did, one ledger
// line per step that ran: plain parameters filled in, secrets left as
// {{name}}, a model-backed step by its kind, the failed step with why.
func TestReplayedLedger(t *testing.T) {
	p := &schema.Playbook{Name: "register", Steps: []schema.Step{
		{ID: "open", Kind: schema.StepDeterministic, Tool: "navigate", Args: map[string]any{"url": "/vendors/{{company}}"}},
		{ID: "password", Kind: schema.StepDeterministic, Tool: "fill", Target: &schema.Target{Role: "textbox", Name: "Password"}, Args: map[string]any{"value": "{{password}}"}},
		{ID: "company", Kind: schema.StepDeterministic, Tool: "fill", Target: &schema.Target{Role: "textbox", Name: "Company {{company}}"}, Args: map[string]any{"value": "{{company}}"}},
		{ID: "tier", Kind: schema.StepJudgment, Prompt: "Which tier?", Options: []string{"gold", "silver"}},
		{ID: "save", Kind: schema.StepDeterministic, Tool: "click", Target: &schema.Target{Role: "button", Name: "Save"}},
	}}
	task := Task{Params: map[string]string{"company": "Initech", "password": "hunter2"}, Secrets: []string{"password"}}
	rep := &schema.ReplayResult{Steps: []schema.StepReport{
		{StepID: "open"}, {StepID: "password"}, {StepID: "company"}, {StepID: "gone"}, {StepID: "tier"},
		{StepID: "save", Error: &schema.Error{Code: schema.CodeNotFound, Message: `no element is button "Save"`}},
	}}
	want := []prompt.LedgerEntry{
		{Step: 1, Action: "navigate", URL: "/vendors/Initech", Result: "ok (replayed)"},
		{Step: 2, Action: "fill", Role: "textbox", Name: "Password", Value: "{{password}}", Result: "ok (replayed)"},
		{Step: 3, Action: "fill", Role: "textbox", Name: "Company Initech", Value: "Initech", Result: "ok (replayed)"},
		{Step: 5, Action: "judgment", Result: "ok (replayed)"},
		{Step: 6, Action: "click", Role: "button", Name: "Save", Result: `failed (replayed): not_found: no element is button "Save"`},
	}
	if got := replayedLedger(p, task, rep); !reflect.DeepEqual(got, want) {
		t.Errorf("ledger\n%+v\nwant\n%+v", got, want)
	}
}
