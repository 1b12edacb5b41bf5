package replay

import (
	"context"
	"strings"
	"time"

	"github.com/rote-agent/rote/schema"
)

// RoutineRequest is a routine of site memory to run inside a run already
// open: an agent's, whose browser session it acts in.
type RoutineRequest struct {
	Routine *schema.Playbook  // its fragment, bound to the site
	Params  map[string]string // raw parameter values, the fragment's only
	Open    Opener            // the run's environment
	RunID   string            // the run it is part of
	// Prefix goes before its steps' ids in that run ("s4-"), so that
	// they are told from the run's own steps.
	Prefix string
	// Class is why it runs: speculated (Rote ran it, no model asked) or
	// grounded-routine (the model called it).
	Class schema.StepClass
}

// RunRoutine runs a routine's steps, each checked as a playbook step is,
// and then its postcondition, recording its actions and checks in run
// r.RunID: no run of its own starts or finishes, no repair is asked for
// and nothing is saved. Its result's Outcome is success only when every
// step held and the postcondition passed; otherwise FailedStep and Reason
// say where and why, and Completed which steps ran before it. The error
// is for a routine that never started: an invalid fragment, values that
// do not bind, another environment.
func (e *Executor) RunRoutine(ctx context.Context, r RoutineRequest) (*schema.ReplayResult, error) {
	p, err := prefixed(r.Routine, r.Prefix)
	if err != nil {
		return nil, err
	}
	if p.Fingerprint == "" {
		return nil, schema.Errorf(schema.CodeFingerprint, "routine %s is bound to no site", p.Name)
	}
	x, order, _, err := e.prepare(ctx, Request{Playbook: p, Params: r.Params, Open: r.Open}, r.RunID)
	if err != nil {
		return nil, err
	}
	defer x.d.Close(context.WithoutCancel(ctx))
	x.class = r.Class
	start := time.Now()
	for _, s := range order {
		report, err := x.step(ctx, s)
		x.res.Steps = append(x.res.Steps, report)
		if err != nil {
			x.res.Outcome, x.res.FailedStep, x.res.Reason = schema.OutcomeFallback, s.ID, schema.AsError(err)
			x.res.Duration = time.Since(start)
			return x.res, nil
		}
		x.res.Completed = append(x.res.Completed, s.ID)
	}
	x.postcondition(ctx, r.Prefix+"post")
	x.res.Duration = time.Since(start)
	return x.res, nil
}

// postcondition checks the routine's verify as the expects of a step
// named stepID: every one must hold on the page as it is now.
func (x *replay) postcondition(ctx context.Context, stepID string) {
	w, err := x.d.World(ctx)
	if err != nil {
		x.res.Outcome, x.res.FailedStep, x.res.Reason = schema.OutcomeFallback, stepID, schema.AsError(err)
		return
	}
	for _, exp := range x.r.Playbook.Verify {
		if err := x.check(ctx, stepID, 1, exp, w); err != nil {
			x.res.Outcome, x.res.FailedStep, x.res.Reason = schema.OutcomeFallback, stepID, schema.AsError(err)
			return
		}
	}
	x.res.Outcome = schema.OutcomeSuccess
}

// prefixed is a copy of p whose step ids (and needs) begin with prefix.
// A routine's steps take no value from one another, so no reference
// names a step.
func prefixed(p *schema.Playbook, prefix string) (*schema.Playbook, error) {
	out := *p
	out.Steps = make([]schema.Step, len(p.Steps))
	for i, s := range p.Steps {
		s.ID = prefix + s.ID
		needs := make([]string, len(s.Needs))
		for j, n := range s.Needs {
			needs[j] = prefix + n
		}
		s.Needs = needs
		if len(s.Outputs) > 0 || strings.Contains(prefix, ".") {
			return nil, schema.Errorf(schema.CodeInvalid, "routine %s: step %s hands a value on, or the prefix %q is no step id's", p.Name, s.ID, prefix)
		}
		out.Steps[i] = s
	}
	return &out, nil
}
