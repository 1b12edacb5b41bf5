package actuator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// ExecutorConfig configures playbook replay.
type ExecutorConfig struct {
	// SecretKey keys the digests that secret parameters are recorded as.
	SecretKey []byte
	// PlannerTimeout bounds a slot, judgment or repair request; default 60 s.
	PlannerTimeout time.Duration
}

// Executor replays playbooks: it validates one, checks its fingerprint
// against the live environment, binds its parameters, walks its steps in
// topological order through a Dispatcher, checks each step's expect and
// then the verify gate. Deterministic steps call no model; slot and
// judgment steps ask the planner over the bus. A replay is a run: it is
// recorded in ROTE_RUNS like any other.
type Executor struct {
	cfg ExecutorConfig
	bus *bus.Bus
}

// NewExecutor returns an executor that records on b.
func NewExecutor(cfg ExecutorConfig, b *bus.Bus) *Executor {
	if cfg.PlannerTimeout <= 0 {
		cfg.PlannerTimeout = 60 * time.Second
	}
	return &Executor{cfg: cfg, bus: b}
}

// Replay is one replay to perform.
type Replay struct {
	Playbook *schema.Playbook
	Version  uint64            // the stored version, 0 for a file
	Params   map[string]string // raw parameter values
	Open     Opener            // the environment to replay in
	RunID    string            // default a new id
	// AllowUnbound permits a playbook without a fingerprint: it was given
	// explicitly, as a file.
	AllowUnbound bool
	// Progress, when set, hears about each step as it ends.
	Progress func(schema.StepReport)
	// Mode is how the run is recorded: replay (the default), or shadow
	// for a candidate's replay before promotion.
	Mode schema.RunMode
}

// Replay runs r and returns its result. The error is for a replay that
// never started: an invalid playbook, a parameter that does not bind
// (CodeUnknownParam, CodeMissingParam, CodeParamType), an unbound
// playbook without AllowUnbound (CodeFingerprint), a live environment
// with another fingerprint (CodeFingerprint), an environment that would
// not open, or a bus that would not record. Everything after the start is
// in the result: a step that fails falls back (Outcome fallback, with the
// steps that completed), a judgment outside its options or a verify that
// does not pass fails.
func (e *Executor) Replay(ctx context.Context, r Replay) (*schema.ReplayResult, error) {
	p := r.Playbook
	if err := p.Validate(); err != nil {
		return nil, err
	}
	bindings, err := p.Bind(r.Params)
	if err != nil {
		return nil, err
	}
	order, err := p.Order()
	if err != nil {
		return nil, err
	}
	if p.Fingerprint == "" && !r.AllowUnbound {
		return nil, schema.Errorf(schema.CodeFingerprint, "playbook %s is not bound to an environment: replay it explicitly from its file", p.Name)
	}
	runID := r.RunID
	if runID == "" {
		runID = bus.NewID()
	}
	d, err := r.Open(ctx, runID)
	if err != nil {
		return nil, err
	}
	defer d.Close(context.WithoutCancel(ctx))
	if red, ok := d.(interface{ RedactSecrets(map[string]string) }); ok {
		red.RedactSecrets(p.Secrets(r.Params))
	}
	live, err := d.Fingerprint(ctx)
	if err != nil {
		return nil, err
	}
	if p.Fingerprint != "" && p.Fingerprint != live {
		return nil, schema.Errorf(schema.CodeFingerprint, "playbook %s is bound to environment %s, but this one is %s: the tools, their schemas, the target or its versions differ",
			p.Name, short(p.Fingerprint), short(live))
	}
	x := &replay{e: e, r: r, d: d, bindings: bindings, runID: runID,
		res: &schema.ReplayResult{RunID: runID, Playbook: schema.PlaybookRef{Name: p.Name, Version: r.Version}, Completed: []string{}}}
	start := time.Now()
	mode := r.Mode
	if mode == "" {
		mode = schema.ModeReplay
	}
	spec := schema.RunSpec{RunID: runID, Mode: mode, Fingerprint: live, Playbook: &x.res.Playbook,
		Task: schema.TaskSpec{Name: p.Name, Text: p.Intent, Params: x.recordedParams()}}
	if _, err := e.bus.Publish(ctx, &schema.RunStarted{Meta: schema.Meta{ID: runID + "-started", Time: start}, RunSpec: spec}); err != nil {
		return nil, err
	}
	x.run(ctx, order)
	x.res.Duration = time.Since(start)
	x.res.Usage = schema.Tally(x.calls)
	manifest := schema.Manifest{RunSpec: spec, Outcome: x.res.Outcome, Reason: x.res.Reason, Started: start, Finished: start.Add(x.res.Duration), Usage: x.res.Usage}
	if _, err := e.bus.Publish(context.WithoutCancel(ctx), &schema.RunFinished{Meta: schema.Meta{ID: runID + "-finished", Time: manifest.Finished}, Manifest: manifest}); err != nil {
		return x.res, err
	}
	return x.res, nil
}

func short(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}

// replay is the state of one replay in progress.
type replay struct {
	e        *Executor
	r        Replay
	d        Dispatcher
	bindings schema.Bindings
	runID    string
	res      *schema.ReplayResult
	calls    []*schema.LLMCall // the model calls of slot, judgment and repair steps
	checks   int
	patches  []patch // repairs that held, to save once the replay verifies
}

// patch is a step replaced by a scoped repair.
type patch struct {
	step   schema.Step
	reason string
}

// recordedParams are the parameters as the run records them: secret
// ones as digests.
func (x *replay) recordedParams() map[string]string {
	out := make(map[string]string, len(x.r.Params))
	redactor := schema.Redactor{Key: x.e.cfg.SecretKey}
	for k, v := range x.r.Params {
		if decl, ok := x.r.Playbook.Params[k]; ok && decl.IsSecret() {
			v = redactor.Digest(v)
		}
		out[k] = v
	}
	return out
}

// run walks the steps and the verify gate, filling x.res.
func (x *replay) run(ctx context.Context, order []*schema.Step) {
	for _, step := range order {
		report, err := x.step(ctx, step)
		x.res.Steps = append(x.res.Steps, report)
		if x.r.Progress != nil {
			x.r.Progress(report)
		}
		if err != nil {
			x.res.FailedStep = step.ID
			x.res.Reason = schema.AsError(err)
			x.res.Outcome = schema.OutcomeFallback
			if hard(err) {
				x.res.Outcome = schema.OutcomeFailed
			}
			return
		}
		x.res.Completed = append(x.res.Completed, step.ID)
	}
	x.verify(ctx)
}

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
	switch {
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
// others would fail the same way again.
func retryable(err error) bool {
	return !hard(err) && !errors.Is(err, schema.ErrContractChanged) && !errors.Is(err, schema.ErrControlChanged) && !errors.Is(err, schema.ErrBrowserCrashed) &&
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
	if a, ok := x.d.(Actor); ok && len(s.Expect) == 0 && s.Tool != string(schema.ActExtract) {
		return a.Act(ctx, s.ID, s.Tool, argMap, target)
	}
	w, err := x.d.Dispatch(ctx, s.ID, s.Tool, argMap, target)
	if err != nil {
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

func (x *replay) renderTarget(t *schema.Target) (*schema.Target, error) {
	if t == nil {
		return nil, nil
	}
	out := *t
	for _, f := range []*string{&out.ID, &out.Role, &out.Name, &out.Near} {
		v, err := schema.RenderString(*f, x.bindings)
		if err != nil {
			return nil, err
		}
		*f = v
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
	if _, err := x.e.bus.Publish(ctx, ev); err != nil {
		return err
	}
	if !c.Passed {
		return schema.Errorf(schema.CodeExpectFailed, "expect %s did not hold (%s)", rendered, c.Detail)
	}
	return nil
}

// askPlanner runs a slot or judgment step: one bounded request to the
// planner, whose answer becomes the step's binding. A judgment outside
// its options is a hard error.
func (x *replay) askPlanner(ctx context.Context, s *schema.Step) (schema.TokenUsage, error) {
	prompt, err := schema.RenderString(s.Prompt, x.bindings)
	if err != nil {
		return schema.TokenUsage{}, err
	}
	w, err := x.d.World(ctx)
	if err != nil {
		return schema.TokenUsage{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, x.e.cfg.PlannerTimeout)
	defer cancel()
	var rep schema.ModelReply
	source := schema.SourceSlot
	if s.Kind == schema.StepJudgment {
		source = schema.SourceJudgment
		limit := s.MaxTokens
		if limit == 0 {
			limit = schema.DefaultJudgeLimit
		}
		err = x.e.bus.Call(ctx, schema.SubjectJudgment, &schema.JudgmentRequest{RunID: x.runID, StepID: s.ID, Prompt: prompt, Options: s.Options, MaxTokens: limit, Page: pageText(w)}, &rep)
	} else {
		err = x.e.bus.Call(ctx, schema.SubjectSlot, &schema.SlotRequest{RunID: x.runID, StepID: s.ID, Prompt: prompt, MaxTokens: s.MaxTokens, Page: pageText(w)}, &rep)
	}
	if errors.Is(err, bus.ErrNoService) {
		return schema.TokenUsage{}, schema.Errorf(schema.CodeUnavailable, "step %s needs the planner (%s) and none answered", s.ID, source)
	}
	if err != nil {
		return schema.TokenUsage{}, err
	}
	x.calls = append(x.calls, &schema.LLMCall{Source: source, Usage: rep.Usage})
	value := rep.Value
	if s.Kind == schema.StepJudgment {
		if value, err = s.Choose(value); err != nil {
			return rep.Usage, err
		}
	}
	x.bindings.Steps[s.ID] = value
	return rep.Usage, nil
}

// pageText is the page as a model reads it: the whole distilled page when
// there is one, else the visible text or the tool result.
func pageText(w schema.World) string {
	if w.Render != "" {
		return w.Render
	}
	return w.Text
}

// repair asks the planner for one replacement of a failed step, runs it
// in the step's place and checks its expect. A replacement that holds is
// kept, to be saved as a new playbook version if the replay verifies;
// otherwise the replay falls back.
func (x *replay) repair(ctx context.Context, s *schema.Step, failure error, attempt int) (schema.TokenUsage, error) {
	w, err := x.d.World(ctx)
	if err != nil {
		return schema.TokenUsage{}, err
	}
	cctx, cancel := context.WithTimeout(ctx, x.e.cfg.PlannerTimeout)
	defer cancel()
	var rep schema.RepairReply
	req := &schema.RepairRequest{RunID: x.runID, Playbook: x.res.Playbook, Intent: x.r.Playbook.Intent, Step: *s, Failure: *schema.AsError(failure), Page: pageText(w)}
	err = x.e.bus.Call(cctx, schema.SubjectRepair, req, &rep)
	if errors.Is(err, bus.ErrNoService) {
		return schema.TokenUsage{}, schema.Errorf(schema.CodeRepairUnavailable, "step %s failed (%v) and no planner answered the repair request", s.ID, failure)
	}
	if err != nil {
		return schema.TokenUsage{}, fmt.Errorf("step %s failed (%v); repair: %w", s.ID, failure, err)
	}
	x.calls = append(x.calls, &schema.LLMCall{Source: schema.SourceRepair, Usage: rep.Usage})
	if rep.Clears {
		return rep.Usage, x.clear(ctx, s, rep.Step, failure, attempt)
	}
	fixed := rep.Step
	// The replacement is the same step on another control: its place,
	// dependencies and drift policy stay, so that a page that changes
	// back is repaired again instead of falling back.
	fixed.ID, fixed.Needs, fixed.Kind, fixed.OnFail = s.ID, s.Needs, schema.StepDeterministic, s.OnFail
	if _, err := x.patched([]patch{{step: fixed}}); err != nil {
		return rep.Usage, fmt.Errorf("step %s: the repair proposes an invalid step: %w", s.ID, err)
	}
	if err := x.deterministic(ctx, &fixed, attempt+1); err != nil {
		return rep.Usage, fmt.Errorf("step %s failed (%v) and its repair did not hold: %w", s.ID, failure, err)
	}
	x.guard(&fixed)
	x.patches = append(x.patches, patch{step: fixed, reason: schema.AsError(failure).Error()})
	return rep.Usage, nil
}

// guard gives a repaired step the contract of the control it just acted
// on, so that its saved version refuses a changed control as a distilled
// step does, instead of acting on whatever has its role and name.
func (x *replay) guard(s *schema.Step) {
	r, ok := x.d.(Resolver)
	if !ok || s.Target == nil || s.Target.Contract != nil {
		return
	}
	if t := r.Resolved(); t != nil && t.Contract != nil && t.Role == s.Target.Role && t.Name == s.Target.Name {
		target := *s.Target
		target.Contract = t.Contract
		s.Target = &target
	}
}

// clear runs the step that clears what covers s's control, then s itself
// as it is. Nothing is saved: what was in the way (a notice, a consent
// dialog) is not part of the task, and the playbook stays as it was.
func (x *replay) clear(ctx context.Context, s *schema.Step, clearing schema.Step, failure error, attempt int) error {
	clearing.Kind = schema.StepDeterministic
	if err := x.deterministic(ctx, &clearing, attempt+1); err != nil {
		return fmt.Errorf("step %s failed (%v) and clearing the way did not work: %w", s.ID, failure, err)
	}
	if err := x.deterministic(ctx, s, attempt+2); err != nil {
		return fmt.Errorf("step %s failed (%v) and still fails once the way is clear: %w", s.ID, failure, err)
	}
	what := clearing.Tool
	if t := clearing.Target; t != nil {
		what += " " + t.Role + " " + strconv.Quote(t.Name)
	}
	x.res.PatchNote = fmt.Sprintf("cleared what covered %s (%s) for this run; the playbook is unchanged", s.ID, what)
	return nil
}

// patched returns a copy of the playbook with patches applied.
func (x *replay) patched(patches []patch) (*schema.Playbook, error) {
	doc, err := schema.EncodePlaybook(x.r.Playbook)
	if err != nil {
		return nil, err
	}
	p, err := schema.DecodePlaybook(doc)
	if err != nil {
		return nil, err
	}
	for _, pt := range patches {
		for i := range p.Steps {
			if p.Steps[i].ID == pt.step.ID {
				p.Steps[i] = pt.step
			}
		}
	}
	return p, p.Validate()
}

// savePatches stores a verified replay's repairs as the playbook's next
// version and records playbook.patched.v1. A playbook replayed from a
// file, or not bound to an environment, is repaired for this run only.
func (x *replay) savePatches(ctx context.Context) error {
	if len(x.patches) == 0 {
		return nil
	}
	if x.r.Version == 0 || x.r.Playbook.Fingerprint == "" {
		x.res.PatchNote = "repaired for this run only: the playbook was not replayed from the store as a bound version"
		return nil
	}
	p, err := x.patched(x.patches)
	if err != nil {
		return err
	}
	var ids, reasons []string
	for _, pt := range x.patches {
		ids, reasons = append(ids, pt.step.ID), append(reasons, pt.step.ID+": "+pt.reason)
	}
	note := fmt.Sprintf("scoped repair of %s in run %s", strings.Join(ids, ", "), x.runID)
	entry, err := x.e.bus.PutPlaybook(ctx, p, "patch", note)
	if err != nil {
		return err
	}
	ev := &schema.PlaybookPatched{Meta: schema.Meta{ID: x.runID + "-patched", Time: time.Now()}, RunID: x.runID, Name: p.Name,
		Fingerprint: p.Fingerprint, FromVersion: x.r.Version, Version: entry.Stored.Version, StepID: strings.Join(ids, ","),
		Reason: strings.Join(reasons, "; "), Document: entry.Stored.Document}
	if _, err := x.e.bus.Publish(ctx, ev); err != nil {
		return err
	}
	x.res.Patched = &schema.PlaybookRef{Name: p.Name, Version: entry.Stored.Version}
	return nil
}

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
	if _, err := x.e.bus.Publish(ctx, ev); err != nil {
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
