package planner

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
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
}

// Controller is the control loop: replay a chosen playbook (no model for
// its deterministic steps), and when the replay falls back, hand its
// browser session to the agent, which carries on from the page as it is,
// knowing which steps already ran. Without a playbook the agent does the
// whole task.
type Controller struct {
	bus    *bus.Bus
	agent  *Agent
	replay Replayer
}

// NewController returns the control loop over agent and replay.
func NewController(b *bus.Bus, agent *Agent, replay Replayer) *Controller {
	return &Controller{bus: b, agent: agent, replay: replay}
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
	Replay   *schema.ReplayResult `json:"replay,omitempty"` // nil when no playbook was replayed
	Agent    *Result              `json:"agent,omitempty"`  // nil when the replay needed no fallback
	Outcome  schema.Outcome       `json:"outcome"`
	Reason   *schema.Error        `json:"reason,omitempty"`
	Usage    []schema.SourceUsage `json:"usage,omitempty"` // every model call, replay and agent
	Duration time.Duration        `json:"duration"`
}

// Run does t: by replaying chosen when given, else with the agent.
func (c *Controller) Run(ctx context.Context, t Task, chosen *Chosen, opt Options, progress func(schema.StepReport)) (*Outcome, error) {
	began := time.Now()
	out := &Outcome{}
	if chosen == nil {
		res, err := c.agent.Run(ctx, t, opt)
		if err != nil {
			return nil, err
		}
		out.Agent = res
		return c.finish(out, began), nil
	}
	if _, err := origin(t.StartURL); err != nil {
		return nil, err
	}
	runID := opt.RunID
	if runID == "" {
		runID = bus.NewID()
	}
	s, err := c.bus.OpenBrowser(ctx, runID)
	if err != nil {
		return nil, err
	}
	defer func() { s.Close(context.WithoutCancel(ctx)) }()
	rep, err := c.replay(ctx, PlaybookReplay{Playbook: chosen.Playbook, Version: chosen.Version, Params: t.Params, Session: s, Base: t.StartURL, Progress: progress})
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

func (c *Controller) finish(out *Outcome, began time.Time) *Outcome {
	if out.Replay != nil {
		out.Outcome, out.Reason = out.Replay.Outcome, out.Replay.Reason
	}
	if out.Agent != nil {
		out.Outcome, out.Reason = out.Agent.Outcome, out.Agent.Reason
	}
	out.Usage = mergeUsage(out.Replay, out.Agent)
	out.Duration = time.Since(began)
	return out
}

// mergeUsage sums the usage of a replay and its fallback per source.
func mergeUsage(rep *schema.ReplayResult, agent *Result) []schema.SourceUsage {
	var all []schema.SourceUsage
	if rep != nil {
		all = append(all, rep.Usage...)
	}
	if agent != nil {
		all = append(all, agent.Usage...)
	}
	var out []schema.SourceUsage
	for _, u := range all {
		i := slices.IndexFunc(out, func(o schema.SourceUsage) bool { return o.Source == u.Source })
		if i < 0 {
			out = append(out, schema.SourceUsage{Source: u.Source})
			i = len(out) - 1
		}
		out[i].Calls += u.Calls
		out[i].Tokens = out[i].Tokens.Plus(u.Tokens)
	}
	slices.SortFunc(out, func(a, b schema.SourceUsage) int { return strings.Compare(string(a.Source), string(b.Source)) })
	return out
}

// replayedLedger tells the agent what the replay did: a ledger line per
// step that ran (parameters filled in, secrets as {{name}}), and the step
// that failed with its reason.
func replayedLedger(p *schema.Playbook, t Task, rep *schema.ReplayResult) []schema.LedgerEntry {
	var out []schema.LedgerEntry
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
		e := schema.LedgerEntry{Step: i + 1, Action: st.Tool, Result: "ok (replayed)"}
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
