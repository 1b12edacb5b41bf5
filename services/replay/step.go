package replay

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
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
	report := schema.StepReport{StepID: s.ID, Class: x.class}
	calls := len(x.calls)
	if x.alreadyToggled(s) {
		// Its control already shows what the recorded click left: the
		// click would undo it (the box is ticked, the switch on).
		x.log.Info("step left out: the control it clicks is already as the recorded click left it", "step", s.ID)
		return report, nil
	}
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
		reread := pageRead(s)
		if reread {
			tries = max(tries, 1+pageRereads)
		}
		// Attempts counts the tries that acted; a retry after a try that
		// acted and whose expect did not hold first looks again (lookAgain).
		// A page read is read again: what it must show may still be loading.
		acted := false
		for retry := 1; retry <= tries; retry++ {
			if acted && reread {
				if err = pause(ctx, retry-1); err != nil {
					break
				}
			} else if acted {
				again := false
				if again, err = x.lookAgain(ctx, s, report.Attempts, retry-1); !again {
					break
				}
			}
			if retry > 1 && !reread {
				// A try again after a failure is the ladder's first rung.
				report.Class = schema.ClassRecovery
			}
			report.Attempts++
			if acted, err = x.deterministic(ctx, s, report.Attempts); err == nil || !retryable(err) && !(reread && notShownYet(err)) {
				break
			}
		}
		if err != nil && acted && s.OnFail.Policy == schema.FailRepair {
			// A repair runs the step again on another control: not after
			// a try that sent what that could repeat.
			err = x.unrepeatable(err)
		}
		if err != nil && s.OnFail.Policy == schema.FailRepair && repairable(s, err) {
			var usage schema.TokenUsage
			usage, err = x.repair(ctx, s, err, report.Attempts)
			report.Tokens, report.Repaired = usage, err == nil
			report.Class = schema.ClassRecovery
		}
	}
	if err != nil && s.Except != "" && errors.Is(err, schema.ErrNotFound) {
		// A box to untick that the page does not show is not ticked: the
		// check after the list's ticks reads the page as it ends.
		x.log.Info("step left out: its control is not on the page", "step", s.ID, "err", err)
		err = nil
	}
	report.Duration = time.Since(start)
	report.Calls = len(x.calls) - calls
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
// do it twice (create a second record); nor is a check that failed after
// an action that sent something (unrepeatable).
func retryable(err error) bool {
	var b *bindingError
	return !hard(err) && !errors.As(err, &b) && !errors.Is(err, schema.ErrContractChanged) && !errors.Is(err, schema.ErrControlChanged) && !errors.Is(err, schema.ErrBrowserCrashed) &&
		!errors.Is(err, schema.ErrFingerprint) && !errors.Is(err, schema.ErrUnrepeatable) && !errors.Is(err, schema.ErrDialog)
}

// deterministic renders and dispatches a step and checks its expect.
// acted says the step's action was done (its effect may have happened)
// before what failed, if anything did: an expect, or an output not found.
func (x *replay) deterministic(ctx context.Context, s *schema.Step, attempt int) (acted bool, err error) {
	args, err := schema.RenderValue(s.Args, x.bindings)
	if err != nil {
		return false, err
	}
	argMap, _ := args.(map[string]any)
	target, err := x.renderTarget(s.Target)
	if err != nil {
		return false, err
	}
	if r, ok := x.d.(BindingRecorder); ok {
		r.RecordBindings(x.boundIn(s))
	}
	if a, ok := x.d.(Actor); ok && len(s.Expect) == 0 && len(s.Outputs) == 0 {
		read, err := a.Act(ctx, s.ID, s.Tool, argMap, target)
		if err != nil {
			return false, err
		}
		if err := x.asked(s); err != nil {
			return true, err
		}
		x.learnContract(s)
		if s.Tool == string(schema.ActExtract) {
			x.res.Answer = read
		}
		return true, nil
	}
	w, err := x.d.Dispatch(ctx, s.ID, s.Tool, argMap, target)
	if err != nil {
		return false, err
	}
	if err := x.asked(s); err != nil {
		return true, err
	}
	x.learnContract(s)
	if s.Tool == string(schema.ActExtract) && w.Page {
		var read string
		if json.Unmarshal(w.Output, &read) == nil {
			x.res.Answer = read
		}
	}
	return true, x.holds(ctx, s, attempt, w)
}

// asked fails step s (CodeDialog) when its action met a question the
// step did not meet when it was learned (Questioner): it was dismissed,
// which chose a branch the learning run never took.
func (x *replay) asked(s *schema.Step) error {
	q, ok := x.d.(Questioner)
	if !ok {
		return nil
	}
	expected := slices.Clone(s.Dialogs)
	for _, d := range q.Dialogs() {
		kinds := schema.Questions([]string{d})
		if len(kinds) == 0 {
			continue
		}
		if k := slices.Index(expected, kinds[0]); k >= 0 {
			expected = slices.Delete(expected, k, k+1)
			continue
		}
		return schema.Errorf(schema.CodeDialog, "the page asked %s, which the step never met when it was learned: dismissing it may have chosen what the task did not", d)
	}
	return nil
}

// holds locates s's outputs in w and checks s's expects against it.
func (x *replay) holds(ctx context.Context, s *schema.Step, attempt int, w schema.World) error {
	if err := x.locateOutputs(s, w); err != nil {
		return err
	}
	for _, exp := range s.Expect {
		if err := x.check(ctx, s.ID, attempt, exp, w); err != nil {
			return err
		}
	}
	return nil
}

// retryPause is how long a retry waits, times the tries before it, before
// it looks at the world again.
const retryPause = 250 * time.Millisecond

// pause waits n times retryPause, or until ctx ends.
func pause(ctx context.Context, n int) error {
	select {
	case <-time.After(time.Duration(n) * retryPause):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pageRereads is how many more times a page read whose outputs are not
// on the page is read (some 5 s in all): a list that loads late.
const pageRereads = 6

// pageRead reports whether s reads a browser server's page for the
// outputs later steps act on: reading it again repeats nothing.
func pageRead(s *schema.Step) bool { return tools.ReadsPage(s.Tool) && len(s.Outputs) > 0 }

// notShownYet reports whether err is an output not found on the page
// (or not found alone), which a later read may show.
func notShownYet(err error) bool {
	return errors.Is(err, schema.ErrBindingNotFound) || errors.Is(err, schema.ErrAmbiguous)
}

// lookAgain is retry n of step s after its try attempt acted and its
// expect (or output) did not hold: the world may not have shown the
// action's effect yet. It waits n times retryPause, looks again without
// acting (settled anew, where the dispatcher can: Looker) and checks
// again, as that try's: if it holds now, the step passed (err nil, again
// false). Otherwise again says whether the action may be done again: not
// when the try did what doing it again could repeat (Writer: it sent a
// write, or a click changed the page), and the error says so. An extract
// is read again as it is.
func (x *replay) lookAgain(ctx context.Context, s *schema.Step, attempt, n int) (again bool, err error) {
	if s.Tool == string(schema.ActExtract) {
		return true, nil
	}
	if err := pause(ctx, n); err != nil {
		return false, err
	}
	w, err := x.look(ctx, s.ID, false)
	if err != nil {
		return false, err
	}
	if err = x.holds(ctx, s, attempt, w); err == nil {
		return false, nil
	}
	if u := x.unrepeatable(err); u != err {
		return false, u
	}
	return true, err
}

// look is the world now for step stepID (Looker), whole or as what
// changed; a dispatcher that cannot look for a step gives its World.
func (x *replay) look(ctx context.Context, stepID string, whole bool) (schema.World, error) {
	if l, ok := x.d.(Looker); ok {
		return l.Look(ctx, stepID, whole)
	}
	return x.d.World(ctx)
}

// unrepeatable is err, failing a step whose last try acted, marked as not
// to be done again when that try did what doing it again could repeat
// (Writer): an error of code CodeUnrepeatable, which no retry or repair
// takes up, that says what the try did and what failed.
func (x *replay) unrepeatable(err error) error {
	wr, ok := x.d.(Writer)
	if !ok {
		return err
	}
	did := wr.Wrote()
	if len(did) == 0 {
		return err
	}
	return schema.Errorf(schema.CodeUnrepeatable, "%v; not done again: its try %s", err, schema.ClipList(did, 3))
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
	// The id names the step: a run that holds several routines'
	// checks numbers them apart.
	ev := &schema.ExpectChecked{Meta: schema.Meta{ID: x.runID + "-" + stepID + "-e" + strconv.Itoa(x.checks), Time: time.Now()},
		RunID: x.runID, StepID: stepID, Attempt: attempt, Check: c}
	if _, err := x.e.runs.Publish(ctx, ev); err != nil {
		return err
	}
	if !c.Passed {
		return schema.Errorf(schema.CodeExpectFailed, "expect %s did not hold (%s)", rendered, c.Detail)
	}
	return nil
}
