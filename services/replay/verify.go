package replay

import (
	"context"
	"time"

	"github.com/rote-agent/rote/schema"
)

// verify checks the verify gate on the world as it is now. Every
// assertion must pass; a verify failure is failure, never success.
func (x *replay) verify(ctx context.Context) {
	w, err := x.d.World(ctx)
	if err != nil {
		x.res.Outcome, x.res.Reason = schema.OutcomeFailed, schema.AsError(err)
		return
	}
	for _, exp := range x.r.Playbook.Verify {
		rendered, err := exp.Render(x.bindings)
		if err != nil {
			x.res.Outcome, x.res.Reason = schema.OutcomeFailed, schema.AsError(err)
			return
		}
		c, err := rendered.Evaluate(w)
		if err != nil {
			x.res.Outcome, x.res.Reason = schema.OutcomeFailed, schema.AsError(err)
			return
		}
		x.res.Verify = append(x.res.Verify, c)
	}
	passed := schema.AllPassed(x.res.Verify)
	ev := &schema.VerifyChecked{Meta: schema.Meta{ID: x.runID + "-verify", Time: time.Now()}, RunID: x.runID, Checks: x.res.Verify, Passed: passed}
	if _, err := x.e.runs.Publish(ctx, ev); err != nil {
		x.res.Outcome, x.res.Reason = schema.OutcomeFailed, schema.AsError(err)
		return
	}
	if !passed {
		x.res.Outcome, x.res.Reason = schema.OutcomeFailed, schema.VerifyFailure(x.res.Verify)
		return
	}
	x.res.Outcome = schema.OutcomeSuccess
	if err := x.savePatches(ctx); err != nil {
		x.res.PatchNote = "the repairs held but were not saved: " + err.Error()
	}
}
