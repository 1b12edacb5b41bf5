package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rote-agent/rote/bench/report"
	"github.com/rote-agent/rote/bench/scripted"
	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/planner"
	"github.com/spf13/cobra"
)

// driftVariants are the variants B5 cycles through, one per repetition:
// every drift but offboarding, which is B6's near miss.
var driftVariants = []string{"cosmetic", "renames", "remount", "label-rename", "field-order", "moved-button", "interstitial", "textarea", "submit-elsewhere"}

// benchPlan is how a suite is benchmarked: the tasks whose playbooks are
// learned first (the others reuse one or must miss), the tasks that must
// miss, and the site variant of a repetition.
type benchPlan struct {
	learned  []string
	mustMiss map[string]bool
	variant  func(t *suite.Task, rep int) string
	drifts   map[string]bool // tasks whose repetitions run under drift
}

var benchPlans = map[string]benchPlan{
	suite.SuitePortal: {
		learned:  []string{"B1", "B2", "B3", "B4"},
		mustMiss: map[string]bool{"B6": true},
		drifts:   map[string]bool{"B5": true},
		variant: func(t *suite.Task, rep int) string {
			if t.ID == "B5" { // B2 under a different drift each repetition
				return driftVariants[(rep-1)%len(driftVariants)]
			}
			return t.Variant
		},
	},
	suite.SuiteWordPress: {
		learned:  []string{"W1", "W2", "W3"},
		mustMiss: map[string]bool{"W4": true},
		variant:  func(*suite.Task, int) string { return "" },
	},
}

func newBenchCommand(app *App) *cobra.Command {
	var suiteName, out, latency string
	var reps int
	var seed uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "bench [--suite portal|wordpress] [--reps N] [--out DIR] [--seed S] [--json]",
		Short: "Benchmark Rote warm against the cold agent on a frozen suite, with bootstrap intervals and launch gates",
		Long: `bench runs a frozen suite. It first learns a playbook from one cold run of
each learned task (distill, shadow replay, promote). Then, for every task and
repetition, it runs the cold agent twice on the same instance (the first warms
the provider cache and is not measured) and Rote warm once (match, bind,
replay, and the drift ladder). The site is reset before every run.

--suite portal (the default) is the fixture portal: B1-B4 learned, B5 is B2
under a drift variant (a different one each repetition), B6 looks like B2 and
must miss. --suite wordpress is a real WordPress (run scripts/wordpress
first): W1 publish a post, W2 rename a post, W3 change the site title are
learned; W4 (change the tagline) must miss; it also measures perception on the
posts list (100 rows). Success is the site's server-side state (the portal's,
or SQL against WordPress's database).

Every number is read back from ROTE_RUNS. --out gets results.jsonl,
summary.json, report.md and the plots (SVG and PNG); the gates (token
reduction, success parity, false matches, latency) print PASS or FAIL, and a
failed gate exits non-zero.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			plan, ok := benchPlans[suiteName]
			if !ok {
				return usageError("suite %q: want %s or %s", suiteName, suite.SuitePortal, suite.SuiteWordPress)
			}
			if reps < 1 {
				return usageError("--reps must be at least 1")
			}
			app.ModelLatency = latency
			return runBench(cmd.Context(), app, benchConfig{suite: suiteName, plan: plan, reps: reps, out: out, seed: seed, asJSON: asJSON,
				command: "rote " + strings.Join(os.Args[1:], " ")})
		},
	}
	cmd.Flags().StringVar(&suiteName, "suite", suite.SuitePortal, "the suite to run: portal or wordpress")
	cmd.Flags().IntVar(&reps, "reps", 15, "repetitions per task")
	cmd.Flags().StringVar(&out, "out", "bench-out", "where to write results.jsonl, summary.json, report.md and the plots")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "the bootstrap's seed")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print summary.json instead of the gates")
	cmd.Flags().StringVar(&latency, "model-latency", "hosted", "the offline scripted model's simulated latency: hosted ("+scripted.HostedLatency.String()+"), none, or first=DURATION,prefill=TOKENS_PER_S,decode=TOKENS_PER_S; a real model (ROTE_LLM_BASE_URL) has its own")
	return cmd
}

type benchConfig struct {
	suite   string
	plan    benchPlan
	reps    int
	out     string
	seed    uint64
	asJSON  bool
	command string
}

// bench is a benchmark in progress.
type bench struct {
	ctx     context.Context
	app     *App
	b       *bus.Bus
	st      *stack
	site    target
	results []report.Result
	done    int
	total   int
}

// openBenchSite starts the stack and the suite's site.
func openBenchSite(ctx context.Context, app *App, suiteName string) (*bus.Bus, *stack, target, func(), error) {
	if suiteName == suite.SuitePortal {
		l, err := openLab(ctx, app)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		return l.b, l.st, &portalTarget{site: l.site, url: l.base}, l.stop, nil
	}
	wp, err := openWordPress(ctx)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	b, err := app.Bus(ctx)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	st, err := startStack(ctx, app, b)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return b, st, wp, st.stop, nil
}

func runBench(ctx context.Context, app *App, cfg benchConfig) error {
	b, st, site, stop, err := openBenchSite(ctx, app, cfg.suite)
	if err != nil {
		return err
	}
	defer stop()
	tasks, _ := suite.Suite(cfg.suite)
	bn := &bench{ctx: ctx, app: app, b: b, st: st, site: site, total: len(cfg.plan.learned) + len(tasks)*cfg.reps}
	var probe *perceptionProbe
	if cfg.suite == suite.SuiteWordPress {
		bn.total += cfg.reps
		probe = &perceptionProbe{}
	}
	for _, id := range cfg.plan.learned {
		t, _ := suite.Lookup(id)
		bn.progress(id + " learn")
		if err := bn.learn(t); err != nil {
			return fmt.Errorf("learning %s: %w", id, err)
		}
	}
	for _, t := range tasks {
		for rep := 1; rep <= cfg.reps; rep++ {
			variant := cfg.plan.variant(t, rep)
			bn.progress(strings.TrimSpace(fmt.Sprintf("%s rep %d %s", t.ID, rep, variant)))
			drift := ""
			if cfg.plan.drifts[t.ID] {
				drift = variant
			}
			if err := bn.pair(t, rep, variant, drift, cfg.plan.mustMiss[t.ID]); err != nil {
				return fmt.Errorf("%s rep %d: %w", t.ID, rep, err)
			}
		}
	}
	if probe != nil {
		for rep := 1; rep <= cfg.reps; rep++ {
			bn.progress(fmt.Sprintf("perception rep %d", rep))
			if err := probe.run(bn, rep); err != nil {
				return fmt.Errorf("perception probe rep %d: %w", rep, err)
			}
		}
	}
	bn.progress("done")
	fmt.Fprintln(app.Stderr)
	s := report.Summarize(bn.results, cfg.plan.mustMiss, cfg.seed, cfg.reps, st.model.label)
	s.Suite = cfg.suite
	if probe != nil {
		if s.Perception, err = probe.table(bn); err != nil {
			return err
		}
	}
	if err := report.Write(cfg.out, bn.results, s, cfg.command); err != nil {
		return err
	}
	if cfg.asJSON {
		if err := writeJSON(app, s); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(app.Stdout, "suite: %s\nmodel: %s\nwrote %s/report.md, summary.json, results.jsonl and the plots\n", cfg.suite, st.model.label, cfg.out)
		for _, name := range report.GateNames {
			fmt.Fprintln(app.Stdout, s.Gates[name])
		}
	}
	if !s.Pass() {
		return &exitError{code: exitFailure, err: fmt.Errorf("a gate failed: see %s/report.md", cfg.out)}
	}
	return nil
}

// progress draws the progress bar on stderr.
func (bn *bench) progress(what string) {
	bn.done++
	width := 30
	filled := width * (bn.done - 1) / bn.total
	fmt.Fprintf(bn.app.Stderr, "\r[%s%s] %d/%d %-40s", strings.Repeat("#", filled), strings.Repeat(".", width-filled), bn.done-1, bn.total, what)
}

// task is the planner task of suite task t's repetition rep.
func (bn *bench) task(t *suite.Task, rep int) planner.Task {
	params := t.Params(rep)
	return planner.Task{Suite: t.ID, Name: t.Name, Text: t.Render(params), Params: params, Secrets: t.Secrets, Verify: t.VerifyExpects(params), StartURL: bn.site.base() + t.Start}
}

// learn runs t cold once, distills the run and promotes it after a shadow
// replay, each on a fresh portal.
func (bn *bench) learn(t *suite.Task) error {
	if err := bn.site.reset(bn.ctx, t.Variant); err != nil {
		return err
	}
	res, err := bn.st.agent.Run(bn.ctx, bn.task(t, 0), planner.Options{})
	if err != nil {
		return err
	}
	if res.Outcome != schema.OutcomeSuccess {
		return fmt.Errorf("the cold run %s ended %s: %v", res.RunID, res.Outcome, res.Reason)
	}
	if err := bn.site.reset(bn.ctx, t.Variant); err != nil {
		return err
	}
	_, _, err = promoteRun(bn.ctx, bn.b, bn.st.key, res.RunID, bn.site.base()+t.Start, t.Params(0))
	return err
}

// pair runs one repetition: the cold agent twice (the first only warms the
// provider cache) and Rote warm once, each on a fresh portal.
func (bn *bench) pair(t *suite.Task, rep int, variant, drift string, mustMiss bool) error {
	task := bn.task(t, rep)
	for i := range 2 {
		if err := bn.site.reset(bn.ctx, variant); err != nil {
			return err
		}
		res, err := bn.st.agent.Run(bn.ctx, task, planner.Options{})
		if err != nil {
			return err
		}
		if i == 1 {
			r, err := bn.result(t, rep, drift, report.Cold, []string{res.RunID})
			if err != nil {
				return err
			}
			r.Mode = "agent"
			bn.results = append(bn.results, *r)
		}
	}
	if err := bn.site.reset(bn.ctx, variant); err != nil {
		return err
	}
	o, err := bn.st.controller.Run(bn.ctx, task, nil, planner.Options{}, nil)
	if err != nil {
		return err
	}
	var runs []string
	if o.Replay != nil {
		runs = append(runs, o.Replay.RunID)
	}
	if o.Agent != nil {
		runs = append(runs, o.Agent.RunID)
	}
	r, err := bn.result(t, rep, drift, report.Warm, runs)
	if err != nil {
		return err
	}
	switch {
	case o.Replay != nil && o.Agent != nil:
		r.Mode = "fallback"
	case o.Replay != nil && o.Replay.Patched != nil:
		r.Mode = "repair"
	case o.Replay != nil:
		r.Mode = "replay"
	default:
		r.Mode = "agent"
	}
	if o.Match != nil && o.Match.Hit {
		r.Playbook = fmt.Sprintf("%s@%d", o.Match.Playbook.Name, o.Match.Playbook.Version)
		r.FalseMatch = mustMiss || o.Match.Playbook.Name != t.Name
	}
	if o.Match != nil && o.Match.Usage.Logical() > 0 {
		r.Usage = schema.MergeUsage(r.Usage, []schema.SourceUsage{{Source: schema.SourceMatcher, Calls: 1, Tokens: o.Match.Usage}})
		r.Totals()
	}
	bn.results = append(bn.results, *r)
	return nil
}

// result reads runs back from ROTE_RUNS into one result; success is the
// site's server-side state. drift is the variant of a drifting task.
func (bn *bench) result(t *suite.Task, rep int, drift string, arm report.Arm, runs []string) (*report.Result, error) {
	r := &report.Result{Task: t.ID, Variant: drift, Rep: rep, Arm: arm, Runs: runs}
	var done, read string
	var total int64
	for _, id := range runs {
		envs, err := bn.b.ReadRun(bn.ctx, id)
		if err != nil {
			return nil, err
		}
		var full, diff int64
		var started time.Time
		for _, env := range envs {
			switch e := env.Event.(type) {
			case *schema.RunStarted:
				started = e.Time
			case *schema.RunFinished:
				r.WallMS += float64(e.Finished.Sub(started).Microseconds()) / 1000
				r.Usage = schema.MergeUsage(r.Usage, e.Usage)
			case *schema.VerifyChecked:
				r.Verified = e.Passed
			case *schema.BrowserObserved:
				if e.Kind == schema.ObservationFull {
					full, diff = int64(e.Stats.Tokens), 0
				} else {
					diff = int64(e.Stats.Tokens)
				}
			case *schema.LLMCall:
				r.ModelMS += float64(e.Duration.Microseconds()) / 1000
				if e.Source == schema.SourcePlanner {
					r.ObservationTokens += full + diff
				}
				total += e.Usage.Logical()
				r.CumulativeTokens = append(r.CumulativeTokens, total)
			case *schema.BrowserAction:
				switch {
				case e.Action.Kind == schema.ActDone && e.Error == nil:
					done = e.Action.Reason
				case e.Action.Kind == schema.ActExtract && e.Error == nil:
					read = e.Output
				}
			}
		}
	}
	r.Totals()
	answer := done // the agent's answer, else what a replay read last
	if answer == "" {
		answer = read
	}
	r.Success = bn.site.check(bn.ctx, t, t.Params(rep), answer) == nil
	return r, nil
}
