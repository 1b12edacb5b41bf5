package replay

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// Config configures playbook replay.
type Config struct {
	// SecretKey keys the digests that secret parameters are recorded as.
	SecretKey []byte
	// PlannerTimeout bounds a slot, judgment or repair request; default 60 s.
	PlannerTimeout time.Duration
	// Log hears about each replay's start and end, and each failed step;
	// default slog.Default().
	Log *slog.Logger
}

// Executor replays playbooks: it validates one, checks its fingerprint
// against the live environment, binds its parameters, walks its steps in
// topological order through a Dispatcher, checks each step's expect and
// then the verify gate. Deterministic steps call no model; slot and
// judgment steps ask the planner over the bus. A replay is a run: it is
// recorded in ROTE_RUNS like any other.
type Executor struct {
	cfg       Config
	runs      *bus.RunLog
	rpc       *bus.RPC
	playbooks *bus.PlaybookStore
	log       *slog.Logger
}

// NewExecutor returns an executor that records replays in runs, asks the
// planner over rpc for slot, judgment and repair steps, and saves a
// verified replay's repairs in playbooks.
func NewExecutor(cfg Config, runs *bus.RunLog, rpc *bus.RPC, playbooks *bus.PlaybookStore) *Executor {
	if cfg.PlannerTimeout <= 0 {
		cfg.PlannerTimeout = 60 * time.Second
	}
	log := cmp.Or(cfg.Log, slog.Default()).With("component", "replay")
	return &Executor{cfg: cfg, runs: runs, rpc: rpc, playbooks: playbooks, log: log}
}

// Request is one replay to perform.
type Request struct {
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
	// Spent is the model calls already made in the run's name (the
	// matcher's), counted in its manifest beside the replay's own.
	Spent []schema.SourceUsage
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
func (e *Executor) Replay(ctx context.Context, r Request) (*schema.ReplayResult, error) {
	p := r.Playbook
	runID := r.RunID
	if runID == "" {
		runID = bus.NewID()
	}
	x, order, live, err := e.prepare(ctx, r, runID)
	if err != nil {
		return nil, err
	}
	defer x.d.Close(context.WithoutCancel(ctx))
	start := time.Now()
	mode := r.Mode
	if mode == "" {
		mode = schema.ModeReplay
	}
	spec := schema.RunSpec{RunID: runID, Mode: mode, Fingerprint: live, Playbook: &x.res.Playbook,
		Task: schema.TaskSpec{Name: p.Name, Text: p.Intent, Params: x.recordedParams()}}
	if _, err := e.runs.Publish(ctx, &schema.RunStarted{Meta: schema.Meta{ID: runID + "-started", Time: start}, RunSpec: spec}); err != nil {
		return nil, err
	}
	log := x.log
	log.Info("replay started", "mode", mode, "steps", len(order))
	x.run(ctx, order)
	if u, ok := x.d.(interface{ Unsettled() int }); ok {
		x.res.Unsettled = u.Unsettled()
	}
	x.res.Duration = time.Since(start)
	x.res.Usage = schema.Tally(x.calls)
	manifest := schema.Manifest{RunSpec: spec, Outcome: x.res.Outcome, Reason: x.res.Reason, Started: start, Finished: start.Add(x.res.Duration), Usage: schema.MergeUsage(r.Spent, x.res.Usage), Steps: x.res.Steps}
	if _, err := e.runs.Publish(context.WithoutCancel(ctx), &schema.RunFinished{Meta: schema.Meta{ID: runID + "-finished", Time: manifest.Finished}, Manifest: manifest}); err != nil {
		return x.res, err
	}
	if x.res.Outcome == schema.OutcomeSuccess {
		log.Info("replay finished", "outcome", x.res.Outcome, "took", x.res.Duration)
	} else {
		log.Info("replay finished", "outcome", x.res.Outcome, "step", x.res.FailedStep, "reason", x.res.Reason, "took", x.res.Duration)
	}
	return x.res, nil
}

// prepare checks r's playbook, binds its parameters, orders its steps,
// opens its environment for run runID and checks that environment is
// the one the playbook is bound to. The caller closes x.d.
func (e *Executor) prepare(ctx context.Context, r Request, runID string) (x *replay, order []*schema.Step, live string, err error) {
	p := r.Playbook
	if err := p.Validate(); err != nil {
		return nil, nil, "", err
	}
	bindings, err := p.Bind(r.Params)
	if err != nil {
		return nil, nil, "", err
	}
	if order, err = p.Order(); err != nil {
		return nil, nil, "", err
	}
	if order, err = schema.Expand(order, r.Params); err != nil {
		return nil, nil, "", err
	}
	if p.Fingerprint == "" && !r.AllowUnbound {
		return nil, nil, "", schema.Errorf(schema.CodeFingerprint, "playbook %s is not bound to an environment: replay it explicitly from its file", p.Name)
	}
	d, err := r.Open(ctx, runID, p.Origins)
	if err != nil {
		return nil, nil, "", err
	}
	if c, ok := d.(URLConfiner); ok {
		c.ConfineURLs(p.MCPOrigins())
	}
	if red, ok := d.(interface{ RedactSecrets(map[string]string) }); ok {
		red.RedactSecrets(p.Secrets(r.Params))
	}
	if live, err = d.Fingerprint(ctx); err != nil {
		d.Close(context.WithoutCancel(ctx))
		return nil, nil, "", err
	}
	if p.Fingerprint != "" && p.Fingerprint != live {
		if !legacyOf(d, p.Fingerprint) {
			d.Close(context.WithoutCancel(ctx))
			return nil, nil, "", schema.Errorf(schema.CodeFingerprint, "playbook %s is bound to environment %s, but this one is %s: the tools, their schemas, the target or its versions differ",
				p.Name, schema.ShortFingerprint(p.Fingerprint), schema.ShortFingerprint(live))
		}
		e.log.Warn("playbook bound to a fingerprint that included the MCP protocol version: rote playbooks migrate rebinds it",
			"playbook", p.Name, "bound", schema.ShortFingerprint(p.Fingerprint), "now", schema.ShortFingerprint(live))
	}
	x = &replay{e: e, r: r, d: d, bindings: bindings, runID: runID, class: schema.ClassReplay, log: e.log.With("run", runID, "playbook", p.Name, "version", r.Version),
		res: &schema.ReplayResult{RunID: runID, Playbook: schema.PlaybookRef{Name: p.Name, Version: r.Version}, Completed: []string{}}}
	return x, order, live, nil
}

// replay is the state of one replay in progress.
type replay struct {
	e        *Executor
	r        Request
	d        Dispatcher
	bindings schema.Bindings
	runID    string
	log      *slog.Logger
	res      *schema.ReplayResult
	calls    []*schema.LLMCall // the model calls of slot, judgment and repair steps
	checks   int
	patches  []patch          // repairs that held, to save once the replay verifies
	class    schema.StepClass // why its steps run: replay, or a routine's class
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
			x.log.Info("step failed", "step", step.ID, "attempts", report.Attempts, "err", err)
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

// legacyOf reports whether fingerprint is one the live environment of d
// had when fingerprints included the negotiated MCP protocol version.
func legacyOf(d Dispatcher, fingerprint string) bool {
	l, ok := d.(interface{ LegacyFingerprints() []string })
	return ok && slices.Contains(l.LegacyFingerprints(), fingerprint)
}
