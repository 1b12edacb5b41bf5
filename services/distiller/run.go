package distiller

import (
	"slices"

	"github.com/rote-agent/rote/schema"
)

// Run is a finished run as the distiller reads it.
type Run struct {
	Spec         schema.RunSpec
	Finished     *schema.RunFinished
	Actions      []*schema.BrowserAction   // a browser run's actions, in order
	Observations []*schema.BrowserObserved // its observations, in order
	Calls        []*schema.ToolCall        // an MCP run's tool calls, in order
	Verify       *schema.VerifyChecked     // the last verify of the run
	Answer       string                    // the agent's done reason
}

// Fold collects a run's events, in the order they were recorded.
func Fold(events []schema.Event) *Run {
	r := &Run{}
	for _, ev := range events {
		switch e := ev.(type) {
		case *schema.RunStarted:
			r.Spec = e.RunSpec
		case *schema.RunFinished:
			r.Finished = e
		case *schema.BrowserAction:
			if e.Action.Kind == schema.ActDone && e.Error == nil {
				r.Answer = e.Action.Reason
			}
			r.Actions = append(r.Actions, e)
		case *schema.BrowserObserved:
			r.Observations = append(r.Observations, e)
		case *schema.ToolCall:
			r.Calls = append(r.Calls, e)
		case *schema.VerifyChecked:
			r.Verify = e
		}
	}
	if r.Spec.Fingerprint == "" && r.Finished != nil {
		// A recorded session learns its environment as it goes: its
		// manifest has the fingerprint its start could not.
		r.Spec.Fingerprint = r.Finished.Fingerprint
	}
	slices.SortStableFunc(r.Actions, func(a, b *schema.BrowserAction) int { return int(a.Seq) - int(b.Seq) })
	slices.SortStableFunc(r.Calls, func(a, b *schema.ToolCall) int { return int(a.Seq) - int(b.Seq) })
	return r
}

// verified returns nil for a run whose effect was proven: it finished,
// and its last verify passed (a recorded MCP session is verified by an
// event added after it ended, so its manifest may still say unverified).
// Otherwise a *schema.Error with CodeUnverified says why not.
func (r *Run) verified() error {
	switch {
	case r.Finished == nil:
		return schema.Errorf(schema.CodeUnverified, "run %s has not finished", r.Spec.RunID)
	case r.Finished.Outcome == schema.OutcomeFailed || r.Finished.Outcome == schema.OutcomeAborted || r.Finished.Outcome == schema.OutcomeFallback:
		return schema.Errorf(schema.CodeUnverified, "run %s ended %s: only a verified success is distilled", r.Spec.RunID, r.Finished.Outcome)
	case r.Verify == nil:
		return schema.Errorf(schema.CodeUnverified, "run %s has no verify checks: nothing proves its effect (verify a recorded session with rote runs verify)", r.Spec.RunID)
	case !r.Verify.Passed:
		return schema.Errorf(schema.CodeUnverified, "run %s failed its verify: only a verified success is distilled", r.Spec.RunID)
	}
	return nil
}
