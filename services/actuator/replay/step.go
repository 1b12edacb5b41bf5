package replay

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/rote-agent/rote/schema"
)

// hard errors fail a replay outright: falling back to the agent would not
// help (a model answer outside its options, a playbook that does not fit).
func hard(err error) bool {
	return errors.Is(err, schema.ErrOutOfSet) || errors.Is(err, schema.ErrInvalid) ||
		errors.Is(err, schema.ErrUnbound) || errors.Is(err, schema.ErrNotApplicable)
}

// step runs one step under its on_fail policy.
func (x *replay) step(ctx context.Context, s *schema.Step) (schema.StepReport, error) {
	start := time.Now()
	report := schema.StepReport{StepID: s.ID}
	var err error
	switch s.Kind {
	case schema.StepSlot, schema.StepJudgment:
		report.Attempts = 1
		var usage schema.TokenUsage
		usage, err = x.askPlanner(ctx, s)
		report.Tokens = usage
	default:
		tries := 1
		if s.OnFail.Policy == schema.FailRetry {
			tries += s.OnFail.Retries
		}
		for report.Attempts < tries {
			report.Attempts++
			if err = x.deterministic(ctx, s, report.Attempts); err == nil || !retryable(err) {
				break
			}
		}
		if err != nil && s.OnFail.Policy == schema.FailRepair && repairable(s, err) {
			var usage schema.TokenUsage
			usage, err = x.repair(ctx, s, err, report.Attempts)
			report.Tokens, report.Repaired = usage, err == nil
		}
	}
	report.Duration = time.Since(start)
	if err != nil {
		report.Error = schema.AsError(err)
	}
	return report, err
}

// repairable failures are a step that no longer fits the page: its target
// is gone or its expect does not hold, something covers its control (the
// repair clears it and the step runs as it is), or the field a value goes
// into is another kind of field now (a text input turned textarea). A
// control that sends elsewhere is not, nor a click on a control of
// another kind: replacing the step could change what it does.
func repairable(s *schema.Step, err error) bool {
	var b *bindingError
	switch {
	case errors.As(err, &b):
		return false
	case errors.Is(err, schema.ErrNotFound), errors.Is(err, schema.ErrAmbiguous), errors.Is(err, schema.ErrExpectFailed),
		errors.Is(err, schema.ErrObscured):
		return true
	case errors.Is(err, schema.ErrControlChanged):
		switch schema.ActionKind(s.Tool) {
		case schema.ActFill, schema.ActSelect, schema.ActCheck:
			return true
		}
	}
	return false
}

// retryable failures may pass on another try once the page settles; the
// others would fail the same way again. An output not found in a call's
// result is not retried: the call did its work, and calling again could
// do it twice (create a second record).
func retryable(err error) bool {
	var b *bindingError
	return !hard(err) && !errors.As(err, &b) && !errors.Is(err, schema.ErrContractChanged) && !errors.Is(err, schema.ErrControlChanged) && !errors.Is(err, schema.ErrBrowserCrashed) &&
		!errors.Is(err, schema.ErrFingerprint)
}

// deterministic renders and dispatches a step and checks its expect.
func (x *replay) deterministic(ctx context.Context, s *schema.Step, attempt int) error {
	args, err := schema.RenderValue(s.Args, x.bindings)
	if err != nil {
		return err
	}
	argMap, _ := args.(map[string]any)
	target, err := x.renderTarget(s.Target)
	if err != nil {
		return err
	}
	if r, ok := x.d.(BindingRecorder); ok {
		r.RecordBindings(x.boundIn(s))
	}
	if a, ok := x.d.(Actor); ok && len(s.Expect) == 0 && len(s.Outputs) == 0 {
		read, err := a.Act(ctx, s.ID, s.Tool, argMap, target)
		if err != nil {
			return err
		}
		x.learnContract(s)
		if s.Tool == string(schema.ActExtract) {
			x.res.Answer = read
		}
		return nil
	}
	w, err := x.d.Dispatch(ctx, s.ID, s.Tool, argMap, target)
	if err != nil {
		return err
	}
	x.learnContract(s)
	if err := x.locateOutputs(s, w); err != nil {
		return err
	}
	if s.Tool == string(schema.ActExtract) && w.Page {
		var read string
		if json.Unmarshal(w.Output, &read) == nil {
			x.res.Answer = read
		}
	}
	for _, exp := range s.Expect {
		if err := x.check(ctx, s.ID, attempt, exp, w); err != nil {
			return err
		}
	}
	return nil
}

// learnContract keeps what the control of s turned out to be, when s
// records no contract and the dispatcher read one.
func (x *replay) learnContract(s *schema.Step) {
	r, ok := x.d.(Resolver)
	if !ok || s.Target != nil && s.Target.Contract != nil {
		return
	}
	if t := r.Resolved(); t != nil && t.Contract != nil {
		if x.res.Contracts == nil {
			x.res.Contracts = map[string]*schema.Contract{}
		}
		x.res.Contracts[s.ID] = t.Contract
	}
}

func (x *replay) renderTarget(t *schema.Target) (*schema.Target, error) {
	if t == nil {
		return nil, nil
	}
	out := *t
	fields := []*string{&out.ID, &out.Role, &out.Name, &out.Near}
	if t.Contract != nil {
		c := *t.Contract
		out.Contract = &c
		fields = append(fields, &c.FormAction, &c.Href)
	}
	for _, f := range fields {
		v, err := schema.RenderString(*f, x.bindings)
		if err != nil {
			return nil, err
		}
		*f = v
	}
	if t.Pick != nil {
		pick := *t.Pick
		pick.Rules = slices.Clone(pick.Rules)
		for i := range pick.Rules {
			v, err := schema.RenderString(pick.Rules[i].Value, x.bindings)
			if err != nil {
				return nil, err
			}
			pick.Rules[i].Value = v
		}
		out.Pick = &pick
	}
	return &out, nil
}

// check evaluates one expect against w and records it as
// expect.checked.v1. An assertion that does not hold is a
// *schema.Error with CodeExpectFailed.
func (x *replay) check(ctx context.Context, stepID string, attempt int, exp schema.Expect, w schema.World) error {
	rendered, err := exp.Render(x.bindings)
	if err != nil {
		return err
	}
	c, err := rendered.Evaluate(w)
	if err != nil {
		return err
	}
	x.checks++
	ev := &schema.ExpectChecked{Meta: schema.Meta{ID: x.runID + "-e" + strconv.Itoa(x.checks), Time: time.Now()},
		RunID: x.runID, StepID: stepID, Attempt: attempt, Check: c}
	if _, err := x.e.runs.Publish(ctx, ev); err != nil {
		return err
	}
	if !c.Passed {
		return schema.Errorf(schema.CodeExpectFailed, "expect %s did not hold (%s)", rendered, c.Detail)
	}
	return nil
}
