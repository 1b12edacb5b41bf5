package node

import (
	"context"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/distiller"
	"github.com/rote-agent/rote/services/planner"
	"github.com/rote-agent/rote/services/replay"
)

// Environment is where a playbook is replayed: a browser on a site, or
// an MCP server started over stdio.
type Environment struct {
	Base   string   // the site, for a browser
	Server []string // the MCP server's command
	Target string   // the MCP environment's name, as rote record --target gave it
	Stderr *os.File // the MCP server's stderr; nil discards it
}

// Describe names the environment for people.
func (e Environment) Describe() string {
	if len(e.Server) > 0 {
		return "the MCP server " + strings.Join(e.Server, " ")
	}
	return "a browser on " + e.Base
}

// ErrNoSite means a browser environment names no site to replay on.
var ErrNoSite = schema.Errorf(schema.CodeInvalid, "a browser replay needs the site to replay on (--url)")

// Check returns ErrNoSite for a browser environment without a site.
func (e Environment) Check() error {
	if len(e.Server) == 0 && e.Base == "" {
		return ErrNoSite
	}
	return nil
}

// Roles are the roles a node needs to replay in e: a browser for a site,
// and the planner and matcher for slot, judgment and repair steps.
func (e Environment) Roles() []string {
	if len(e.Server) > 0 {
		return []string{Planner, Matcher}
	}
	return Tasks
}

// Opener opens e for replays of p with params: secret values are
// recorded as digests. A browser environment needs the node's browser
// roles and a base URL (CodeInvalid without one).
func (n *Node) Opener(e Environment, p *schema.Playbook, params map[string]string) (replay.Opener, error) {
	if len(e.Server) > 0 {
		redactor := n.redactor(p, params)
		return func(ctx context.Context, runID string, _ []string) (replay.Dispatcher, error) {
			return replay.OpenMCPDispatcher(ctx, replay.MCPConfig{Command: e.Server, Target: e.Target, Runs: n.bus.Runs(), RunID: runID, Redactor: redactor, Stderr: e.Stderr,
				Secrets: p.Secrets(params), Client: p.Client})
		}, nil
	}
	if err := e.Check(); err != nil {
		return nil, err
	}
	return n.BrowserOpener(e.Base), nil
}

// SessionOpener replays p with params through caller, on an MCP session
// that is already open with a server whose environment is env (rote
// record's, with its client): the replay's calls are recorded in its own
// run, secrets as digests, and its end leaves the session open.
func (n *Node) SessionOpener(caller replay.ToolCaller, env schema.Environment, target string, p *schema.Playbook, params map[string]string) replay.Opener {
	redactor := n.redactor(p, params)
	return func(_ context.Context, runID string, _ []string) (replay.Dispatcher, error) {
		return replay.MCPDispatcherOn(caller, env, replay.MCPConfig{Target: target, Runs: n.bus.Runs(), RunID: runID, Redactor: redactor, Secrets: p.Secrets(params)}), nil
	}
}

// redactor records the values of p's secret parameters as digests.
func (n *Node) redactor(p *schema.Playbook, params map[string]string) schema.Redactor {
	return schema.Redactor{Key: n.cfg.SecretKey, Values: slices.Collect(maps.Values(p.Secrets(params)))}
}

// BrowserOpener opens a browser session on the node's bus for each
// replay, on the site at base.
func (n *Node) BrowserOpener(base string) replay.Opener {
	return func(ctx context.Context, runID string, origins []string) (replay.Dispatcher, error) {
		return replay.OpenBrowserDispatcher(ctx, n.bus.Browsers(), runID, base, origins...)
	}
}

// sessionReplayer replays with the node's executor in the browser
// session the control loop owns and keeps open.
func (n *Node) sessionReplayer() planner.Replayer {
	return func(ctx context.Context, r planner.PlaybookReplay) (*schema.ReplayResult, error) {
		return n.executor.Replay(ctx, replay.Request{Playbook: r.Playbook, Version: r.Version, Params: r.Params, RunID: r.Session.RunID, AllowUnbound: true, Spent: r.Spent,
			Progress: r.Progress, Open: SessionBrowserOpener(r.Session, r.Base)})
	}
}

// routineRunner runs a routine of site memory with the node's executor
// in the browser session the agent owns and keeps open.
func (n *Node) routineRunner() planner.RoutineRunner {
	return func(ctx context.Context, r planner.RoutineRun) (*schema.ReplayResult, error) {
		return n.executor.RunRoutine(ctx, replay.RoutineRequest{Routine: r.Routine, Params: r.Params, Open: SessionBrowserOpener(r.Session, r.Base),
			RunID: r.Session.RunID, Prefix: r.Prefix, Class: r.Class})
	}
}

// SessionBrowserOpener replays on browser session s, on the site at
// base; s stays open after the replay, for its owner to carry on.
func SessionBrowserOpener(s *bus.BrowserSession, base string) replay.Opener {
	return func(_ context.Context, _ string, origins []string) (replay.Dispatcher, error) {
		return replay.BrowserDispatcherOn(s, base, origins...)
	}
}

// Promote shadow-replays candidate c with params in the environment open
// opens, and stores it only when the replay verifies (distiller.Promote);
// then the site's memory learns from it (distiller.LearnSite). Memory
// that could not be learned leaves the promotion as it is, and is logged.
// progress, when set, hears about each step.
func (n *Node) Promote(ctx context.Context, c *distiller.Candidate, params map[string]string, open replay.Opener, progress func(schema.StepReport)) (*distiller.Promotion, error) {
	promo, err := distiller.Promote(ctx, n.bus.Playbooks(), n.bus.Runs(), c, func(ctx context.Context, p *schema.Playbook) (*schema.ReplayResult, error) {
		return n.executor.Replay(ctx, replay.Request{Playbook: p, Params: c.Values(params), Mode: schema.ModeShadow, Open: open, Progress: progress})
	})
	if err != nil {
		return promo, err
	}
	if _, err := distiller.LearnSite(ctx, n.bus.Playbooks(), n.bus.Runs(), n.bus.Sites(), promo.Entry.Fingerprint); err != nil {
		n.log.Warn("site memory learned nothing from a promotion", "playbook", promo.Entry.Name, "fingerprint", schema.ShortFingerprint(promo.Entry.Fingerprint), "err", err)
	}
	return promo, nil
}

// PromoteRun distills run runID and promotes the candidate after a shadow
// replay in a browser on base with params. When the task class has other
// verified runs (the same task name in the same environment, the latest
// maxPeers), the playbook must explain them too (distiller.DistillRuns):
// a choice keeps only the rules that held in every run. Should they not
// fit (the site changed since), runID alone is learned, and a note says
// why. The candidate is returned even when the promotion fails, with the
// shadow replay if there was one.
func (n *Node) PromoteRun(ctx context.Context, runID, base string, params map[string]string) (*distiller.Candidate, *distiller.Promotion, error) {
	r, err := n.bus.Runs().Fold(ctx, runID)
	if err != nil {
		return nil, nil, err
	}
	cand, err := distiller.Distill(r, distiller.Options{})
	if err != nil {
		return nil, nil, err
	}
	if peers, err := n.peerRuns(ctx, r); err != nil {
		return nil, nil, err
	} else if len(peers) > 0 {
		if all, err := distiller.DistillRuns(append([]*schema.RunFold{r}, peers...), distiller.Options{}); err == nil {
			cand = all
		} else {
			cand.Notes = append(cand.Notes, "learned from this run alone: its class's other verified runs do not fit one playbook: "+err.Error())
		}
	}
	promo, err := n.Promote(ctx, cand, params, n.BrowserOpener(base), nil)
	return cand, promo, err
}

// maxPeers bounds the other runs of a class a learning run is checked
// against.
const maxPeers = 4

// peerRuns are the latest other verified agent runs of r's task class:
// its task name, in its environment.
func (n *Node) peerRuns(ctx context.Context, r *schema.RunFold) ([]*schema.RunFold, error) {
	name := r.Spec.Task.Name
	if name == "" {
		return nil, nil
	}
	started, err := n.bus.Runs().Read(ctx, schema.RunKindFilter(schema.KindStarted))
	if err != nil {
		return nil, err
	}
	var out []*schema.RunFold
	for i := len(started) - 1; i >= 0 && len(out) < maxPeers; i-- {
		st, ok := started[i].Event.(*schema.RunStarted)
		if !ok || st.RunID == r.Spec.RunID || st.Mode != schema.ModeAgent || st.Task.Name != name || st.Fingerprint != r.Spec.Fingerprint {
			continue
		}
		f, err := n.bus.Runs().Fold(ctx, st.RunID)
		if err != nil {
			return nil, err
		}
		if f.Finished != nil && f.Finished.Manifest.Outcome == schema.OutcomeSuccess && f.Verify != nil && f.Verify.Passed {
			out = append(out, f)
		}
	}
	return out, nil
}
