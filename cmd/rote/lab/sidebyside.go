package lab

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/rote-agent/rote/bench/report"
	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/planner"
	"github.com/rote-agent/rote/services/replay"
)

// SuiteSpeed is the side-by-side: Rote's warm replays of B1, B2 (the
// vendor flow) and B3 against hand-written chromedp programs doing the
// same steps on the same portal, and against the cold agent doing the
// task with the lab's model, in one run.
const SuiteSpeed = "speed"

// armRest is the pause before each measured arm.
const armRest = 300 * time.Millisecond

// sideTasks are the tasks the side-by-side measures.
var sideTasks = []string{"B1", "B2", "B3"}

// RunSideBySide learns a playbook for each side task from one cold run,
// then for a warm-up repetition and cfg.Reps measured ones runs the
// task's hand-written program, Rote's replay of its playbook and the cold
// agent, each on a freshly reset portal, the first two alternating which
// goes first. Every arm must do the task right, by the portal's state: an
// arm that does not is an error, not a slow result. It writes cfg.Out's
// report.
func RunSideBySide(ctx context.Context, l *Lab, cfg Config, chromiumPath string) (*report.SideBySide, error) {
	if cfg.Reps < 1 {
		return nil, fmt.Errorf("--reps must be at least 1")
	}
	bn := &bench{ctx: ctx, lab: l, progress: newProgress(cfg.Progress, len(sideTasks)*(2+cfg.Reps))}
	s := &report.SideBySide{Reps: cfg.Reps, Model: l.Node.Model().Label}
	playbooks := map[string]*bus.PlaybookEntry{}
	for _, id := range sideTasks {
		t, _ := suite.Lookup(id)
		bn.progress.step(id + " learn")
		entry, err := bn.learn(t)
		if err != nil {
			return nil, fmt.Errorf("learning %s: %w", id, err)
		}
		p, err := entry.Decode()
		if err != nil {
			return nil, err
		}
		playbooks[id] = entry
		s.Tasks = append(s.Tasks, report.SideTask{Task: id, Playbook: fmt.Sprintf("%s@%d", entry.Name, entry.Stored.Version), Steps: len(p.Steps), Phases: map[string][]float64{}})
	}
	alloc, cancel, err := handWrittenBrowser(ctx, chromiumPath)
	if err != nil {
		return nil, err
	}
	defer cancel()
	for rep := 0; rep <= cfg.Reps; rep++ {
		for i, id := range sideTasks {
			t, _ := suite.Lookup(id)
			bn.progress.step(fmt.Sprintf("%s rep %d", id, rep))
			arms := []func() error{
				func() error { return bn.scriptArm(alloc, t, rep, &s.Tasks[i]) },
				func() error { return bn.replayArm(t, rep, playbooks[id], &s.Tasks[i]) },
			}
			if rep%2 == 1 {
				arms[0], arms[1] = arms[1], arms[0]
			}
			arms = append(arms, func() error { return bn.coldArm(t, rep, &s.Tasks[i]) })
			for _, arm := range arms {
				// Each arm starts on a machine at rest: what the last one
				// left running (a browser closing a context, Rote making
				// a spare page) is done before the clock starts.
				time.Sleep(armRest)
				if err := arm(); err != nil {
					return nil, fmt.Errorf("%s rep %d: %w", id, rep, err)
				}
			}
		}
	}
	bn.progress.finish()
	s.Judge()
	if err := report.WriteSideBySide(cfg.Out, s, cfg.Command); err != nil {
		return nil, err
	}
	return s, nil
}

// scriptArm runs t's hand-written program once in a fresh browser
// context; rep 0 is the warm-up, run and checked but not kept.
// handWrittenBrowser starts the browser the hand-written programs run in
// as such a program would: chromedp's own launcher (over a pipe, as
// Playwright's and Puppeteer's), with the flags this machine needs. Each
// program opens a browser context of its own in it.
func handWrittenBrowser(ctx context.Context, path string) (context.Context, context.CancelFunc, error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(cmp.Or(path, "/usr/bin/chromium")), chromedp.NoSandbox,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true), chromedp.WindowSize(1280, 900))
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	cancel := func() { cancelBrowser(); cancelAlloc() }
	if err := chromedp.Do(browser); err != nil {
		cancel()
		return nil, nil, fmt.Errorf("the hand-written programs' browser: %w", err)
	}
	return browser, cancel, nil
}

func (bn *bench) scriptArm(alloc context.Context, t *suite.Task, rep int, into *report.SideTask) error {
	site := bn.lab.Site
	if err := site.Reset(bn.ctx, t.Variant); err != nil {
		return err
	}
	params := t.Params(rep)
	start := time.Now()
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithNewBrowserContext())
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // the browser context and its page
		return fmt.Errorf("the hand-written program's page: %w", err)
	}
	opened := time.Now()
	answer, err := scripts[t.ID](ctx, site.Base(), params)
	cancel()
	took := time.Since(start)
	if err != nil {
		return fmt.Errorf("the hand-written program: %w", err)
	}
	if err := site.Check(bn.ctx, t, params, answer); err != nil {
		return fmt.Errorf("the hand-written program did the task wrong: %w", err)
	}
	if rep > 0 {
		into.Script = append(into.Script, ms(took))
		into.ScriptSteps = append(into.ScriptSteps, ms(took-opened.Sub(start)))
	}
	return nil
}

// coldArm runs the cold agent on t's values of rep, with the lab's model,
// and keeps its wall time and how long it waited for the model.
func (bn *bench) coldArm(t *suite.Task, rep int, into *report.SideTask) error {
	if err := bn.lab.Site.Reset(bn.ctx, t.Variant); err != nil {
		return err
	}
	start := time.Now()
	res, err := bn.lab.Node.Agent().Run(bn.ctx, bn.task(t, rep), planner.Options{})
	took := time.Since(start)
	if err != nil {
		return err
	}
	if res.Outcome != schema.OutcomeSuccess {
		return fmt.Errorf("the cold agent's run %s ended %s: %v", res.RunID, res.Outcome, res.Reason)
	}
	f, err := bn.lab.Node.Bus().Runs().Fold(bn.ctx, res.RunID)
	if err != nil {
		return err
	}
	if err := bn.lab.Site.Check(bn.ctx, t, t.Params(rep), cmp.Or(f.Done(), f.Read())); err != nil {
		return fmt.Errorf("the cold agent's run %s reported success and did the task wrong: %w", res.RunID, err)
	}
	if rep > 0 {
		into.Cold = append(into.Cold, ms(took))
		into.ColdModel = append(into.ColdModel, ms(f.ModelTime()))
	}
	return nil
}

// replayArm replays p once with t's values of rep, in a fresh browser
// session of the node, and keeps its wall time and phases.
func (bn *bench) replayArm(t *suite.Task, rep int, entry *bus.PlaybookEntry, into *report.SideTask) error {
	site, n := bn.lab.Site, bn.lab.Node
	p, err := entry.Decode()
	if err != nil {
		return err
	}
	if err := site.Reset(bn.ctx, t.Variant); err != nil {
		return err
	}
	params := t.Params(rep)
	start := time.Now()
	res, err := n.Executor().Replay(bn.ctx, replay.Request{Playbook: p, Version: entry.Stored.Version, Params: params, Open: n.BrowserOpener(site.Base())})
	took := time.Since(start)
	if err != nil {
		return err
	}
	if res.Outcome != schema.OutcomeSuccess {
		return fmt.Errorf("the replay %s ended %s: %v", res.RunID, res.Outcome, res.Reason)
	}
	if err := site.Check(bn.ctx, t, params, res.Answer); err != nil {
		return fmt.Errorf("the replay %s reported success and did the task wrong: %w", res.RunID, err)
	}
	if rep == 0 {
		return nil
	}
	into.Rote = append(into.Rote, ms(took))
	f, err := n.Bus().Runs().Fold(bn.ctx, res.RunID)
	if err != nil {
		return err
	}
	sum := schema.TotalStepTime(f.StepTimes())
	for i, d := range []time.Duration{sum.Settle, sum.Resolve, sum.Act, sum.Send, sum.Check, sum.Model, sum.Record} {
		into.Phases[report.Phases[i]] = append(into.Phases[report.Phases[i]], ms(d))
	}
	return nil
}
