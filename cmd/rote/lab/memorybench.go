package lab

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rote-agent/rote/bench/report"
	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/view"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
	"github.com/rote-agent/rote/services/planner"
)

// memoryLearned are the tasks the learned store learns before the site
// memory suite: the portal suite's.
var memoryLearned = []string{"B1", "B2", "B3", "B4"}

// memoryDrifts are the trust gate's runs, in order, on the learned store
// after the repetitions: the sign-in page's heading changed (the
// routine's precondition fails: it is not run), the landing after
// signing in moved (its postcondition fails: it stops, the agent goes
// on, the routine is suspect), and two runs after that (it is left out).
var memoryDrifts = []struct{ task, variant string }{
	{"M1", "login-welcome"},
	{"M2", "landing-moved"},
	{"M4", "landing-moved"},
	{"M5", ""},
}

// BenchMemory runs the site memory suite on l (the portal): it learns
// memoryLearned on the store (which draws the site's memory), then runs
// every memory task cfg.Reps times on two arms, each on a fresh site:
// fresh, the agent with no playbook and no site memory (what a store
// that knows nothing of the site does: the matcher has no candidate and
// asks no model), and learned, Rote as a user runs it (match, then the
// agent with the site's memory). Then the drift runs. It writes
// report.md, summary.json and results.jsonl to cfg.Out and returns the
// summary: a failed gate is no error here.
func BenchMemory(ctx context.Context, l *Lab, cfg Config) (*report.MemorySummary, error) {
	if cfg.Reps < 1 {
		return nil, fmt.Errorf("--reps must be at least 1")
	}
	tasks, err := suite.Suite(suite.SuiteMemory)
	if err != nil {
		return nil, err
	}
	bn := &bench{ctx: ctx, lab: l, progress: newProgress(cfg.Progress, len(memoryLearned)+2*len(tasks)*cfg.Reps+len(memoryDrifts))}
	for _, id := range memoryLearned {
		t, _ := suite.Lookup(id)
		bn.progress.step(id + " learn")
		if _, err := bn.learn(t); err != nil {
			return nil, fmt.Errorf("learning %s: %w", id, err)
		}
	}
	for _, t := range tasks {
		for rep := 1; rep <= cfg.Reps; rep++ {
			for _, arm := range []report.Arm{report.Fresh, report.Learned} {
				bn.progress.step(fmt.Sprintf("%s rep %d %s", t.ID, rep, arm))
				r, err := bn.memoryRun(t, rep, "", arm)
				if err != nil {
					return nil, fmt.Errorf("%s rep %d %s: %w", t.ID, rep, arm, err)
				}
				bn.results = append(bn.results, *r)
			}
		}
	}
	var drifts []report.MemoryDrift
	for _, d := range memoryDrifts {
		t, _ := suite.Lookup(d.task)
		bn.progress.step(fmt.Sprintf("%s drift %s", d.task, cmp.Or(d.variant, "baseline")))
		r, err := bn.memoryRun(t, 1, d.variant, report.Learned)
		if err != nil {
			return nil, fmt.Errorf("%s on %s: %w", d.task, d.variant, err)
		}
		what, err := bn.memoryUse(r.Runs)
		if err != nil {
			return nil, err
		}
		drifts = append(drifts, report.MemoryDrift{Task: d.task, Variant: cmp.Or(d.variant, "baseline"), Memory: what, Outcome: r.Mode,
			Success: r.Success, Wrong: r.Verified && !r.Success || r.FalseMatch, Calls: r.Calls})
	}
	bn.progress.finish()
	s := report.SummarizeMemory(bn.results, drifts, memoryLearned, cfg.Reps, bn.lab.Node.Model().Label)
	if s.Memory, err = bn.memoryShown(); err != nil {
		return nil, err
	}
	if err := report.WriteMemory(cfg.Out, bn.results, s, cfg.Command); err != nil {
		return nil, err
	}
	return s, nil
}

// memoryRun runs task t's repetition rep on one arm, on a fresh site in
// variant, and reads the result back from the run log.
func (bn *bench) memoryRun(t *suite.Task, rep int, variant string, arm report.Arm) (*report.Result, error) {
	n, task := bn.lab.Node, bn.task(t, rep)
	if err := bn.lab.Site.Reset(bn.ctx, variant); err != nil {
		return nil, err
	}
	if arm == report.Fresh {
		res, err := n.Agent().Run(bn.ctx, task, planner.Options{NoMemory: true})
		if err != nil {
			return nil, err
		}
		r, err := bn.result(t, rep, variant, arm, []string{res.RunID})
		if err == nil {
			r.Mode = "agent"
		}
		return r, err
	}
	o, err := n.Controller().Run(bn.ctx, task, nil, planner.Options{}, nil)
	if err != nil {
		return nil, err
	}
	r, err := bn.result(t, rep, variant, arm, o.Runs())
	if err != nil {
		return nil, err
	}
	r.Mode = o.Mode()
	if o.Match != nil && o.Match.Hit { // no playbook does a memory task
		r.Playbook = fmt.Sprintf("%s@%d", o.Match.Playbook.Name, o.Match.Playbook.Version)
		r.FalseMatch = true
	}
	return r, nil
}

// memoryUse says what site memory did in runs: each routine it ran and
// whether it held, or why none ran.
func (bn *bench) memoryUse(runs []string) (string, error) {
	checks, err := bn.lab.Node.Bus().Runs().MemoryChecks(bn.ctx)
	if err != nil {
		return "", err
	}
	var out []string
	for _, c := range checks {
		if c.Kind != schema.MemoryRoutine || !slices.Contains(runs, c.RunID) {
			continue
		}
		if c.Held {
			out = append(out, "routine "+c.Name+" ran, held")
		} else {
			out = append(out, "routine "+c.Name+" stopped ("+c.Why+"), now suspect; the agent went on")
		}
	}
	if len(out) > 0 {
		return strings.Join(out, "; "), nil
	}
	m, err := bn.siteMemory()
	if err != nil {
		return "", err
	}
	for _, rt := range m.Routines {
		if rt.Suspect != nil {
			out = append(out, "routine "+rt.Name+" left out: suspect since run "+rt.Suspect.RunID)
		}
	}
	if len(out) > 0 {
		return strings.Join(out, "; "), nil
	}
	return "no routine ran: none's precondition held on the page", nil
}

// siteMemory is the portal's memory with the trust gate applied.
func (bn *bench) siteMemory() (*bus.SiteMemory, error) {
	fp, err := schema.Fingerprint(tools.BrowserEnvironment(bn.lab.Site.Base()))
	if err != nil {
		return nil, err
	}
	b := bn.lab.Node.Bus()
	m, err := b.Sites().Site(bn.ctx, fp)
	if err != nil {
		return nil, err
	}
	checks, err := b.Runs().MemoryChecks(bn.ctx)
	if err != nil {
		return nil, err
	}
	m.Distrust(checks)
	m.Brief = schema.RenderBrief(fp, m.Routines, m.Facts, time.Now().UTC())
	return m, nil
}

// memoryShown is what rote memory show prints of the portal now.
func (bn *bench) memoryShown() (string, error) {
	m, err := bn.siteMemory()
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	view.SiteMemory(&b, bn.lab.Site.Base(), m)
	return b.String(), nil
}
