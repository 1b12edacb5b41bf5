package planner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/prompt"
	"github.com/rote-agent/rote/schema/tools"
)

// Replayer replays a playbook in a browser session the control loop owns
// and keeps open: the actuator's executor, composed in by the caller.
type Replayer func(ctx context.Context, r PlaybookReplay) (*schema.ReplayResult, error)

// PlaybookReplay is one replay the control loop asks for.
type PlaybookReplay struct {
	Playbook *schema.Playbook
	Version  uint64 // the stored version, 0 for a file
	Params   map[string]string
	Session  *bus.BrowserSession // the run is Session.RunID
	Base     string
	Progress func(schema.StepReport)
	// Spent is the model calls already made in the run's name (the
	// matcher's), counted in its manifest.
	Spent []schema.SourceUsage
}

// Controller is the control loop: with no playbook given, ask the matcher
// (fingerprint gate, intent, binding); replay the playbook it finds, or
// the one given (no model for deterministic steps); when the replay falls
// back, hand its browser session to the agent, which carries on from the
// page as it is, knowing which steps already ran. On a miss the agent
// does the whole task.
type Controller struct {
	browsers  *bus.Browsers
	rpc       *bus.RPC
	playbooks *bus.PlaybookStore
	agent     *Agent
	replay    Replayer
}

// NewController returns the control loop over agent and replay: it
// claims browser sessions from browsers, asks the matcher over rpc and
// reads the playbook it names from playbooks.
func NewController(browsers *bus.Browsers, rpc *bus.RPC, playbooks *bus.PlaybookStore, agent *Agent, replay Replayer) *Controller {
	return &Controller{browsers: browsers, rpc: rpc, playbooks: playbooks, agent: agent, replay: replay}
}

// Chosen is the playbook a run replays: given explicitly (--playbook)
// until the matcher chooses one.
type Chosen struct {
	Playbook *schema.Playbook
	Version  uint64
}

// Outcome is how a controlled run ended: the replay, the agent, or a
// replay then its fallback.
type Outcome struct {
	Match    *schema.MatchReply   `json:"match,omitempty"`  // the matcher's answer, when it was asked
	Replay   *schema.ReplayResult `json:"replay,omitempty"` // nil when no playbook was replayed
	Agent    *Result              `json:"agent,omitempty"`  // nil when the replay needed no fallback
	Outcome  schema.Outcome       `json:"outcome"`
	Reason   *schema.Error        `json:"reason,omitempty"`
	Usage    []schema.SourceUsage `json:"usage,omitempty"` // every model call, replay and agent
	Duration time.Duration        `json:"duration"`
}

// Runs are the ids of the runs the outcome took: the replay's, then the
// agent's.
func (o *Outcome) Runs() []string {
	var runs []string
	if o.Replay != nil {
		runs = append(runs, o.Replay.RunID)
	}
	if o.Agent != nil {
		runs = append(runs, o.Agent.RunID)
	}
	return runs
}

// Mode says how the task was done: "fallback" (a replay, then the
// agent), "repair" (a replay that saved a repaired version), "replay",
// or "agent".
func (o *Outcome) Mode() string {
	switch {
	case o.Replay != nil && o.Agent != nil:
		return "fallback"
	case o.Replay != nil && o.Replay.Patched != nil:
		return "repair"
	case o.Replay != nil:
		return "replay"
	}
	return "agent"
}

// Answer is what the task answered: the agent's done reason, else what
// the replay read.
func (o *Outcome) Answer() string {
	switch {
	case o.Agent != nil:
		return o.Agent.Answer
	case o.Replay != nil:
		return o.Replay.Answer
	}
	return ""
}

// Run does t: by replaying chosen when given, else with the agent.
func (c *Controller) Run(ctx context.Context, t Task, chosen *Chosen, opt Options, progress func(schema.StepReport)) (*Outcome, error) {
	began := time.Now()
	out := &Outcome{}
	site, err := origin(t.StartURL)
	if err != nil {
		return nil, err
	}
	if opt.RunID == "" {
		opt.RunID = bus.NewID()
	}
	if chosen == nil {
		if chosen, err = c.match(ctx, t, site, opt.RunID, out); err != nil {
			return nil, err
		}
	}
	if chosen == nil {
		opt.Spent = out.matchUsage()
		res, err := c.agent.Run(ctx, t, opt)
		if err != nil {
			return nil, err
		}
		out.Agent = res
		return c.finish(out, began), nil
	}
	// The replay, and the agent if it falls back, stay on the task's site
	// and the origins the playbook declares.
	s, err := c.browsers.Open(ctx, opt.RunID, append([]string{site}, chosen.Playbook.Origins...)...)
	if err != nil {
		return nil, err
	}
	defer func() { s.Close(context.WithoutCancel(ctx)) }()
	params := t.Params
	if out.Match != nil {
		params = out.Match.Bindings
	}
	rep, err := c.replay(ctx, PlaybookReplay{Playbook: chosen.Playbook, Version: chosen.Version, Params: params, Session: s, Base: t.StartURL, Progress: progress, Spent: out.matchUsage()})
	if err != nil {
		return nil, err
	}
	out.Replay = rep
	if rep.Outcome != schema.OutcomeFallback {
		return c.finish(out, began), nil
	}
	next := bus.NewID()
	adopted, err := s.Adopt(ctx, next)
	if err != nil {
		return nil, err
	}
	s = adopted
	res, err := c.agent.Continue(ctx, t, s, Options{RunID: next, Parent: rep.RunID, Ledger: replayedLedger(chosen.Playbook, t, rep), Progress: opt.Progress})
	if err != nil {
		return nil, err
	}
	out.Agent = res
	return c.finish(out, began), nil
}

// match asks the matcher for a playbook bound to the site's environment
// that can do t. A miss, or no matcher running, is no playbook: the
// agent does the task. Its cost (a binding call, if any) is in the
// outcome's usage.
func (c *Controller) match(ctx context.Context, t Task, site, runID string, out *Outcome) (*Chosen, error) {
	fp, err := schema.Fingerprint(tools.BrowserEnvironment(site))
	if err != nil {
		return nil, err
	}
	var rep schema.MatchReply
	err = c.rpc.CallOnce(ctx, schema.SubjectMatch, &schema.MatchRequest{RunID: runID, Fingerprint: fp, Task: t.Text, Params: t.Params}, &rep)
	if errors.Is(err, bus.ErrNoService) {
		out.Match = &schema.MatchReply{Reason: "no matcher is running"}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out.Match = &rep
	if !rep.Hit {
		return nil, nil
	}
	e, err := c.playbooks.Get(ctx, fp, rep.Playbook.Name, rep.Playbook.Version)
	if err != nil {
		return nil, err
	}
	p, err := e.Decode()
	if err != nil {
		return nil, err
	}
	return &Chosen{Playbook: p, Version: e.Stored.Version}, nil
}

// matchUsage is the matcher's model call, made in the run's name: the
// run that does the task counts it.
func (o *Outcome) matchUsage() []schema.SourceUsage {
	if o.Match == nil || o.Match.Usage.Logical() == 0 {
		return nil
	}
	return []schema.SourceUsage{{Source: schema.SourceMatcher, Calls: 1, Tokens: o.Match.Usage}}
}

func (c *Controller) finish(out *Outcome, began time.Time) *Outcome {
	if out.Replay != nil {
		out.Outcome, out.Reason = out.Replay.Outcome, out.Replay.Reason
	}
	if out.Agent != nil {
		out.Outcome, out.Reason = out.Agent.Outcome, out.Agent.Reason
	}
	out.Usage = mergeUsage(out.Match, out.Replay, out.Agent)
	out.Duration = time.Since(began)
	return out
}

// mergeUsage sums the usage of a match, a replay and its fallback per
// source.
func mergeUsage(m *schema.MatchReply, rep *schema.ReplayResult, agent *Result) []schema.SourceUsage {
	var lists [][]schema.SourceUsage
	if m != nil && m.Usage.Logical() > 0 {
		lists = append(lists, []schema.SourceUsage{{Source: schema.SourceMatcher, Calls: 1, Tokens: m.Usage}})
	}
	if rep != nil {
		lists = append(lists, rep.Usage)
	}
	if agent != nil {
		lists = append(lists, agent.Usage)
	}
	return schema.MergeUsage(lists...)
}

// replayedLedger tells the agent what the replay did: a ledger line per
// step that ran (parameters filled in, secrets as {{name}}), and the step
// that failed with its reason.
func replayedLedger(p *schema.Playbook, t Task, rep *schema.ReplayResult) []prompt.LedgerEntry {
	var out []prompt.LedgerEntry
	fill := func(s string) string {
		for k, v := range t.Params {
			if !slices.Contains(t.Secrets, k) {
				s = strings.ReplaceAll(s, "{{"+k+"}}", v)
			}
		}
		return s
	}
	for i, r := range rep.Steps {
		st := p.Step(r.StepID)
		if st == nil {
			continue
		}
		e := prompt.LedgerEntry{Step: i + 1, Action: st.Tool, Result: "ok (replayed)"}
		if st.Kind != schema.StepDeterministic {
			e.Action = string(st.Kind)
		}
		if st.Target != nil {
			e.Role, e.Name = st.Target.Role, fill(st.Target.Name)
		}
		if v, ok := st.Args["value"].(string); ok {
			e.Value = fill(v)
		}
		if u, ok := st.Args["url"].(string); ok {
			e.URL = fill(u)
		}
		if r.Error != nil {
			e.Result = "failed (replayed): " + r.Error.Error()
		}
		out = append(out, e)
	}
	return out
}
