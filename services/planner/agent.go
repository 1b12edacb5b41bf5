package planner

import (
	"cmp"
	"context"
	"log/slog"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/prompt"
	"github.com/rote-agent/rote/schema/tools"
)

// Task is a task for the agent.
type Task struct {
	Suite    string // the frozen suite id, if it is one
	Name     string
	Text     string
	Params   map[string]string
	Secrets  []string        // parameter names the model never sees by value
	Verify   []schema.Expect // the verify gate; without one no run succeeds
	StartURL string
	MaxSteps int // default 40
}

// StepLog is one agent step as it is reported.
type StepLog struct {
	N        int               `json:"n"`
	Action   schema.Action     `json:"action"`            // secrets as {{name}}; the target as resolved
	Routine  string            `json:"routine,omitempty"` // the routine of site memory it ran instead
	Result   string            `json:"result"`
	Tokens   schema.TokenUsage `json:"tokens"`
	Duration time.Duration     `json:"duration"`
}

// Result is how an agent run ended.
type Result struct {
	RunID    string               `json:"run_id"`
	Outcome  schema.Outcome       `json:"outcome"`
	Reason   *schema.Error        `json:"reason,omitempty"`
	Answer   string               `json:"answer,omitempty"` // the done reason
	Steps    []StepLog            `json:"steps"`
	Verify   []schema.Check       `json:"verify,omitempty"`
	Usage    []schema.SourceUsage `json:"usage,omitempty"`
	Offline  bool                 `json:"offline,omitempty"` // the scripted offline model answered
	Duration time.Duration        `json:"duration"`
}

// Agent plans step by step: settle, observe, decide, act, record; then the
// verify gate decides the outcome.
type Agent struct {
	cfg      AgentConfig
	browsers *bus.Browsers
	runs     *bus.RunLog
	llm      *LLM
	log      *slog.Logger
}

// AgentConfig configures the agent.
type AgentConfig struct {
	// SecretKey keys the digests secret parameters are recorded as.
	SecretKey []byte
	// Sites is site memory (tier 2), read at each run's start: its brief
	// goes in the context, its routines run where they are the only
	// sensible move. Nil runs without memory.
	Sites *bus.SiteStore
	// Routines runs a routine in the run's session; nil runs none.
	Routines RoutineRunner
	// Log hears when each run starts and ends; default slog.Default().
	Log *slog.Logger
}

// NewAgent returns an agent that claims browser sessions from browsers,
// asks llm, and records its runs in runs.
func NewAgent(cfg AgentConfig, browsers *bus.Browsers, runs *bus.RunLog, llm *LLM) *Agent {
	log := cmp.Or(cfg.Log, slog.Default()).With("component", "agent")
	return &Agent{cfg: cfg, browsers: browsers, runs: runs, llm: llm, log: log}
}

// Options are per-run settings.
type Options struct {
	RunID    string               // default a new id
	Parent   string               // the run this one continues
	Ledger   []prompt.LedgerEntry // steps that already ran, for Continue
	Progress func(StepLog)
	// Spent is the model calls already made in the run's name (the
	// matcher's), counted in its manifest beside the agent's own.
	Spent []schema.SourceUsage
	// NoMemory runs without site memory: the agent plans every step (a
	// benchmark's cold baseline).
	NoMemory bool
}

// Run performs t in a new browser session, from its start URL. The error
// is for a run that could not start (no actuator, a bad start URL, a bus
// that would not record); everything after is in the result.
func (a *Agent) Run(ctx context.Context, t Task, opt Options) (*Result, error) {
	if opt.RunID == "" {
		opt.RunID = bus.NewID()
	}
	if err := t.checkParams(); err != nil {
		return nil, err
	}
	site, err := origin(t.StartURL)
	if err != nil {
		return nil, err
	}
	// The agent's page stays on the task's site: a load anywhere else,
	// whoever asks for it, is out_of_origin.
	s, err := a.browsers.Open(ctx, opt.RunID, site)
	if err != nil {
		return nil, err
	}
	defer s.Close(context.WithoutCancel(ctx))
	return a.run(ctx, t, s, opt, true)
}

// Continue performs t in session s as it is, as run opt.RunID whose
// parent is opt.Parent: the agent carries on where a replay stopped,
// knowing from opt.Ledger which steps already ran.
func (a *Agent) Continue(ctx context.Context, t Task, s *bus.BrowserSession, opt Options) (*Result, error) {
	if err := t.checkParams(); err != nil {
		return nil, err
	}
	return a.run(ctx, t, s, opt, false)
}

// checkParams refuses a parameter value that is not a secret and holds
// a template's braces (schema.CheckParamValue): the model would see a
// secret's placeholder where the task meant a plain value.
func (t Task) checkParams() error {
	for _, name := range slices.Sorted(maps.Keys(t.Params)) {
		if !slices.Contains(t.Secrets, name) {
			if err := schema.CheckParamValue(name, t.Params[name]); err != nil {
				return err
			}
		}
	}
	return nil
}

func origin(start string) (string, error) {
	u, err := url.Parse(start)
	if err != nil || schema.Origin(u) == "" {
		return "", schema.Errorf(schema.CodeInvalid, "start URL %q: want an absolute http or https URL such as http://127.0.0.1:8080", start)
	}
	return schema.Origin(u), nil
}

func (a *Agent) run(ctx context.Context, t Task, s *bus.BrowserSession, opt Options, navigate bool) (*Result, error) {
	site, err := origin(t.StartURL)
	if err != nil {
		return nil, err
	}
	if t.MaxSteps <= 0 {
		t.MaxSteps = 40
	}
	fp, err := schema.Fingerprint(tools.BrowserEnvironment(site))
	if err != nil {
		return nil, err
	}
	var mem *bus.SiteMemory
	if !opt.NoMemory {
		mem = a.siteMemory(ctx, fp, s.RunID)
	}
	t.Secrets = secretsOf(mem, t)
	s.Secrets = map[string]string{}
	for _, k := range t.Secrets {
		s.Secrets[k] = t.Params[k]
	}
	began := time.Now()
	spec := schema.RunSpec{RunID: s.RunID, Mode: schema.ModeAgent, Fingerprint: fp, Parent: opt.Parent,
		Task: schema.TaskSpec{Suite: t.Suite, Name: t.Name, Text: t.Text, Params: a.recordedParams(t), Target: site}}
	if _, err := a.runs.Publish(ctx, &schema.RunStarted{Meta: schema.Meta{ID: s.RunID + "-started", Time: began}, RunSpec: spec}); err != nil {
		return nil, err
	}
	log := a.log.With("run", s.RunID)
	log = log.With("text", t.Text)
	if opt.Parent != "" {
		log = log.With("parent", opt.Parent)
	}
	log.Info("agent run started")
	r := &agentRun{a: a, t: t, s: s, res: &Result{RunID: s.RunID}, opt: opt, mem: mem, ran: map[string]bool{}}
	r.prompt = NewPrompt(TaskPrompt{Text: t.Text, Params: t.Params, Secrets: t.Secrets}, r.tools())
	r.prompt.SetBrief(r.brief(site))
	for _, e := range opt.Ledger {
		r.prompt.Record(e)
		r.step = max(r.step, e.Step)
	}
	if navigate {
		if _, err := r.act(ctx, schema.Action{Kind: schema.ActNavigate, URL: t.StartURL}, schema.TokenUsage{}, time.Now()); err != nil {
			r.end(schema.OutcomeFailed, err)
		}
	}
	if r.res.Outcome == "" {
		r.loop(ctx)
	}
	r.res.Duration = time.Since(began)
	r.res.Usage = schema.Tally(r.calls)
	m := schema.Manifest{RunSpec: spec, Outcome: r.res.Outcome, Reason: r.res.Reason, Started: began, Finished: began.Add(r.res.Duration), Usage: schema.MergeUsage(opt.Spent, r.res.Usage), Steps: r.steps}
	if _, err := a.runs.Publish(context.WithoutCancel(ctx), &schema.RunFinished{Meta: schema.Meta{ID: s.RunID + "-finished", Time: m.Finished}, Manifest: m}); err != nil {
		return r.res, err
	}
	done := []any{"outcome", r.res.Outcome, "steps", len(r.res.Steps), "took", r.res.Duration}
	if r.res.Reason != nil {
		done = append(done, "reason", r.res.Reason)
	}
	log.Info("agent run finished", done...)
	return r.res, nil
}

func (a *Agent) recordedParams(t Task) map[string]string {
	out := make(map[string]string, len(t.Params))
	red := schema.Redactor{Key: a.cfg.SecretKey}
	for k, v := range t.Params {
		if slices.Contains(t.Secrets, k) {
			v = red.Digest(v)
		}
		out[k] = v
	}
	return out
}

// agentTools are the browser tools without observe: the agent observes
// before every decision anyway.
func agentTools() []schema.ToolSpec {
	return slices.DeleteFunc(tools.Browser(), func(t schema.ToolSpec) bool { return t.Name == tools.Observe })
}

// agentRun is one run in progress.
type agentRun struct {
	a      *Agent
	t      Task
	s      *bus.BrowserSession
	prompt *Prompt
	opt    Options
	res    *Result
	calls  []*schema.LLMCall
	steps  []schema.StepReport   // the manifest's, one per logged step
	step   int                   // the last step number
	mem    *bus.SiteMemory       // the site's memory, trust gate applied; nil without
	ran    map[string]bool       // the routines run so far
	whole  bool                  // observe the next page whole, not as a diff
	nodes  []schema.ObservedNode // the page as last observed, whole
	// followed is the fact the last action went by, checked against the
	// page the next observation shows, and the step it was.
	followed     *schema.Fact
	followedStep string
}

// class is why this run's steps ran: the model chose them, on a replay's
// fallback to recover what the replay could not do.
func (r *agentRun) class() schema.StepClass {
	if r.opt.Parent != "" {
		return schema.ClassRecovery
	}
	return schema.ClassFrontier
}

func (r *agentRun) end(outcome schema.Outcome, err error) {
	r.res.Outcome, r.res.Reason = outcome, nil
	if err != nil {
		r.res.Reason = schema.AsError(err)
	}
}

// loop decides and acts until the model says done or fail, or the step
// budget runs out.
func (r *agentRun) loop(ctx context.Context) {
	for range r.t.MaxSteps {
		began := time.Now()
		r.step++
		n := r.step
		stepID := "s" + strconv.Itoa(n)
		// After a routine the page is observed whole: the routine's own
		// looks moved the base a diff is taken against past what the
		// model last saw.
		obs, err := r.s.Observe(ctx, stepID, !r.whole, 0)
		if err != nil {
			r.end(schema.OutcomeFailed, err)
			return
		}
		r.whole = false
		r.nodes = obs.Observation.Nodes
		r.checkFact(ctx, obs.Observation.URL)
		r.prompt.Observe(&obs.Observation)
		if r.speculate(ctx, stepID, obs.Observation.World(), began) {
			continue
		}
		action, routine, usage, err := r.decide(ctx, stepID)
		if err != nil {
			r.end(schema.OutcomeFailed, err)
			return
		}
		if routine != nil {
			r.runCalled(ctx, stepID, *routine, obs.Observation.World(), usage, began)
			continue
		}
		switch action.Kind {
		case schema.ActDone, schema.ActFail:
			// Recorded like any action: the run log holds the verdict
			// and the answer.
			if _, err := r.s.Act(ctx, stepID, action); err != nil {
				r.end(schema.OutcomeFailed, err)
				return
			}
			r.log(StepLog{N: n, Action: action, Result: string(action.Kind), Tokens: usage, Duration: time.Since(began)})
			if action.Kind == schema.ActFail {
				r.end(schema.OutcomeFailed, schema.Errorf(schema.CodeToolError, "the agent gave up: %s", action.Reason))
				return
			}
			r.res.Answer = action.Reason
			r.verify(ctx)
			return
		}
		ev, err := r.act(ctx, action, usage, began)
		if err != nil {
			r.end(schema.OutcomeFailed, err)
			return
		}
		r.followsFact(stepID, obs.Observation.URL, ev)
	}
	r.end(schema.OutcomeFailed, schema.Errorf(schema.CodeInvalid, "no answer within %d steps", r.t.MaxSteps))
}

func (r *agentRun) log(l StepLog) {
	id := "s" + strconv.Itoa(l.N)
	r.steps = append(r.steps, schema.StepReport{StepID: id, Class: r.class(), Attempts: 1, Duration: l.Duration, Calls: r.callsAt(id), Tokens: l.Tokens})
	r.res.Steps = append(r.res.Steps, l)
	if r.opt.Progress != nil {
		r.opt.Progress(l)
	}
}

// callsAt is how many model calls step id made.
func (r *agentRun) callsAt(id string) int {
	n := 0
	for _, c := range r.calls {
		if c.StepID == id {
			n++
		}
	}
	return n
}

// decide asks the model for the next action, or the routine of site
// memory to run when it was offered one. An answer outside the closed
// action set, or with bad arguments, gets one retry with the reason; a
// second is a typed error.
func (r *agentRun) decide(ctx context.Context, stepID string) (schema.Action, *tools.RoutineCall, schema.TokenUsage, error) {
	msgs, err := r.prompt.Messages()
	if err != nil {
		return schema.Action{}, nil, schema.TokenUsage{}, err
	}
	var total schema.TokenUsage
	for attempt := 1; ; attempt++ {
		rep, err := r.a.llm.Complete(ctx, Call{RunID: r.res.RunID, StepID: stepID, Source: schema.SourcePlanner,
			Messages: msgs, Tools: r.prompt.Tools(), MaxTokens: 512, CacheKey: r.prompt.CacheKey()})
		if err != nil {
			return schema.Action{}, nil, total, err
		}
		r.calls = append(r.calls, rep.Event)
		r.res.Offline = r.res.Offline || rep.Event.Offline
		total = total.Plus(rep.Event.Usage)
		action, routine, err := r.parse(rep)
		if err == nil {
			return action, routine, total, nil
		}
		if attempt == 2 {
			return schema.Action{}, nil, total, schema.Errorf(schema.CodeOutOfSet, "the model's answer is no valid action, twice: %v", err)
		}
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser,
			Content: "Your answer was not a valid action (" + err.Error() + "). Answer with exactly one call of the given tools."})
	}
}

// parse reads the model's answer: a routine call where the prompt offers
// tools.RunRoutine, else an action.
func (r *agentRun) parse(rep *Reply) (schema.Action, *tools.RoutineCall, error) {
	offered := slices.ContainsFunc(r.prompt.Tools(), func(t openai.Tool) bool { return t.Function != nil && t.Function.Name == tools.RunRoutine })
	if rep.ToolCall != nil && rep.ToolCall.Name == tools.RunRoutine && offered {
		call, err := tools.ParseRoutineCall([]byte(rep.ToolCall.Arguments))
		if err != nil {
			return schema.Action{}, nil, err
		}
		return schema.Action{}, &call, nil
	}
	action, err := parseAction(rep)
	return action, nil, err
}

func parseAction(rep *Reply) (schema.Action, error) {
	if rep.ToolCall == nil {
		return schema.Action{}, schema.Errorf(schema.CodeInvalid, "no tool call in %q", schema.Clip(rep.Content, 120))
	}
	return tools.ActionFromToolCall(rep.ToolCall.Name, []byte(rep.ToolCall.Arguments), nil)
}

// act performs action (secrets filled in), records it in the ledger and
// the step log. A refused action is not an error: the model sees the
// refusal next turn.
func (r *agentRun) act(ctx context.Context, action schema.Action, usage schema.TokenUsage, began time.Time) (*schema.BrowserAction, error) {
	n := r.step
	if why := misplacedSecret(action, r.t.Secrets, r.nodes); why != "" {
		entry := prompt.LedgerEntry{Step: n, Action: string(action.Kind), Value: action.Value, Result: "refused: " + why}
		if t := action.Target; t != nil {
			entry.Target, entry.Role, entry.Name = t.ID, t.Role, t.Name
		}
		r.prompt.Record(entry)
		r.log(StepLog{N: n, Action: action, Result: entry.Result, Tokens: usage, Duration: time.Since(began)})
		return nil, nil
	}
	real := action
	real.Value = r.fillSecrets(action.Value)
	ev, err := r.s.Act(ctx, "s"+strconv.Itoa(n), real)
	if err != nil {
		return nil, err
	}
	entry := prompt.LedgerEntry{Step: n, Action: string(action.Kind), Value: action.Value, URL: action.URL, Result: "ok"}
	if t := ev.Action.Target; t != nil {
		entry.Target, entry.Role, entry.Name = t.ID, t.Role, t.Name
		action.Target = t
	}
	if ev.Error != nil {
		entry.Result = "refused: " + ev.Error.Error()
	}
	entry.Output = schema.Clip(ev.Output, 400)
	r.prompt.Record(entry)
	r.log(StepLog{N: n, Action: action, Result: entry.Result, Tokens: usage, Duration: time.Since(began)})
	return ev, nil
}

// misplacedSecret says why action would type a secret where a page
// shows it, "" when it would not: a secret of the run goes only as the
// whole value of a password field (by the target's id, or its role and
// name, on the page as last observed, nodes), whoever asks otherwise,
// however it is worded. Elsewhere ("Acme {{password}}" in a title) it
// would be published on the site.
func misplacedSecret(a schema.Action, secrets []string, nodes []schema.ObservedNode) string {
	for _, k := range secrets {
		ph := "{{" + k + "}}"
		if !strings.Contains(a.Value, ph) {
			continue
		}
		if a.Kind == schema.ActFill && a.Value == ph && a.Target != nil && passwordField(*a.Target, nodes) {
			continue
		}
		return "the secret " + ph + " is typed only as the whole value of a password field, never where a page shows it"
	}
	return ""
}

// passwordField reports whether target is, on the observed page, a
// password input: the node of its id, or the one node of its role and
// name.
func passwordField(target schema.Target, nodes []schema.ObservedNode) bool {
	var found []schema.ObservedNode
	for _, n := range nodes {
		if target.ID != "" && n.ID == target.ID || target.ID == "" && n.Role == target.Role && n.Name == target.Name {
			found = append(found, n)
		}
	}
	return len(found) == 1 && found[0].Contract != nil && found[0].Contract.InputType == "password"
}

// fillSecrets replaces {{name}} of a secret parameter with its value.
func (r *agentRun) fillSecrets(v string) string {
	for _, k := range r.t.Secrets {
		v = strings.ReplaceAll(v, "{{"+k+"}}", r.t.Params[k])
	}
	return v
}

// verify checks the verify gate on the page as it is now.
func (r *agentRun) verify(ctx context.Context) {
	if len(r.t.Verify) == 0 {
		r.end(schema.OutcomeFailed, schema.Errorf(schema.CodeUnverified, "the agent says done, but the task has no verify gate: nothing proves it (rote run --verify-text, or verify in a task message)"))
		return
	}
	obs, err := r.s.Observe(ctx, "verify", true, 0)
	if err != nil {
		r.end(schema.OutcomeFailed, err)
		return
	}
	checks, passed, err := schema.CheckAll(r.t.Verify, obs.Observation.World())
	if err != nil {
		r.end(schema.OutcomeFailed, err)
		return
	}
	r.res.Verify = checks
	ev := &schema.VerifyChecked{Meta: schema.Meta{ID: r.res.RunID + "-verify", Time: time.Now()}, RunID: r.res.RunID, Checks: r.res.Verify, Passed: passed}
	if _, err := r.a.runs.Publish(ctx, ev); err != nil {
		r.end(schema.OutcomeFailed, err)
		return
	}
	if !passed {
		r.end(schema.OutcomeFailed, schema.VerifyFailure(checks))
		return
	}
	r.end(schema.OutcomeSuccess, nil)
}
