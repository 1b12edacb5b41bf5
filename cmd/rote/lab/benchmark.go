package lab

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rote-agent/rote/bench/report"
	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
	"github.com/rote-agent/rote/services/planner"
)

// driftVariants are the variants B5 cycles through, one per repetition:
// every drift but offboarding, which is B6's near miss.
var driftVariants = []string{"cosmetic", "renames", "remount", "label-rename", "field-order", "moved-button", "interstitial", "textarea", "submit-elsewhere"}

// plan is how a suite is benchmarked: the tasks whose playbooks are
// learned first (the others reuse one or must miss), the tasks that must
// miss, and the site variant of a repetition.
type plan struct {
	learned  []string
	mustMiss map[string]bool
	variant  func(t *suite.Task, rep int) string
	drifts   map[string]bool // tasks whose repetitions run under drift
}

var plans = map[string]plan{
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
	suite.SuiteVariation: {
		learned:  []string{"V1", "V2", "V5"},
		mustMiss: map[string]bool{"V4": true},
		drifts:   map[string]bool{"V1": true, "V6": true},
		variant: func(t *suite.Task, _ int) string {
			if t.ID == "V1" { // learned on the baseline, replayed on newer data
				return suite.NewerReport
			}
			return t.Variant
		},
	},
	suite.SuiteWordPress: {
		learned:  []string{"W1", "W2", "W3", "W6"},
		mustMiss: map[string]bool{"W4": true},
		variant:  func(*suite.Task, int) string { return "" },
	},
}

// Config is one benchmark.
type Config struct {
	Suite   string // suite.SuitePortal or suite.SuiteWordPress
	Reps    int    // repetitions per task, at least 1
	Seed    uint64 // the bootstrap's
	Out     string // where the report goes
	Command string // the command line, named in the report
	// Progress hears how far the run is (progress.go); nil discards it.
	Progress io.Writer
}

// Check reports what is wrong with cfg, or nil.
func (cfg Config) Check() error {
	if _, ok := plans[cfg.Suite]; !ok {
		return fmt.Errorf("suite %q: want %s, %s or %s", cfg.Suite, suite.SuitePortal, suite.SuiteWordPress, suite.SuiteVariation)
	}
	if cfg.Reps < 1 {
		return fmt.Errorf("--reps must be at least 1")
	}
	return nil
}

// bench is a benchmark in progress.
type bench struct {
	ctx     context.Context
	lab     *Lab
	results []report.Result
	// nearMisses are the near misses sent to the matcher.
	nearMisses []report.NearMiss
	progress   *progress
}

// Bench benchmarks cfg's suite on l (whose site must be that suite's)
// cold against warm: it learns a playbook from one cold run of each
// learned task (distill, shadow replay, promote), then for every task
// and repetition runs the cold agent twice on the same instance (the
// first warms the provider cache; no site memory: the cold agent plans
// every step, as the suite measures) and Rote warm once (match, bind,
// replay, the drift ladder), each on a fresh site. Every number is read
// back from ROTE_RUNS; success is the site's server-side state. It
// writes the report to cfg.Out (bench/report's report, plots and gates)
// and returns its summary: a failed gate is no error here.
func Bench(ctx context.Context, l *Lab, cfg Config) (*report.Summary, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	p := plans[cfg.Suite]
	tasks, _ := suite.Suite(cfg.Suite)
	total := len(p.learned) + len(tasks)*cfg.Reps
	var probe *perceptionProbe
	if cfg.Suite == suite.SuiteWordPress {
		total += cfg.Reps
		probe = &perceptionProbe{}
	}
	bn := &bench{ctx: ctx, lab: l, progress: newProgress(cfg.Progress, total)}
	for _, id := range p.learned {
		t, _ := suite.Lookup(id)
		bn.progress.step(id + " learn")
		if _, err := bn.learn(t); err != nil {
			return nil, fmt.Errorf("learning %s: %w", id, err)
		}
		if err := bn.probeNearMisses(t); err != nil {
			return nil, fmt.Errorf("near misses of %s: %w", id, err)
		}
	}
	for _, t := range tasks {
		for rep := 1; rep <= cfg.Reps; rep++ {
			variant := p.variant(t, rep)
			bn.progress.step(strings.TrimSpace(fmt.Sprintf("%s rep %d %s", t.ID, rep, variant)))
			drift := ""
			if p.drifts[t.ID] {
				drift = variant
			}
			if err := bn.pair(t, rep, variant, drift, p.mustMiss[t.ID]); err != nil {
				return nil, fmt.Errorf("%s rep %d: %w", t.ID, rep, err)
			}
		}
	}
	if probe != nil {
		for rep := 1; rep <= cfg.Reps; rep++ {
			bn.progress.step(fmt.Sprintf("perception rep %d", rep))
			if err := probe.run(bn, rep); err != nil {
				return nil, fmt.Errorf("perception probe rep %d: %w", rep, err)
			}
		}
	}
	bn.progress.finish()
	s := report.Summarize(bn.results, p.mustMiss, cfg.Seed, cfg.Reps, l.Node.Model().Label)
	s.Suite = cfg.Suite
	s.AddNearMisses(bn.nearMisses)
	if probe != nil {
		var err error
		if s.Perception, err = probe.table(bn); err != nil {
			return nil, err
		}
	}
	if err := report.Write(cfg.Out, bn.results, s, cfg.Command); err != nil {
		return nil, err
	}
	return s, nil
}

// task is the planner task of suite task t's repetition rep.
func (bn *bench) task(t *suite.Task, rep int) planner.Task {
	return Task(t, t.Params(rep), bn.lab.Site.Base())
}

// learn runs t cold once, distills the run and promotes it after a shadow
// replay, each on a fresh site, and returns the stored playbook.
func (bn *bench) learn(t *suite.Task) (*bus.PlaybookEntry, error) {
	site := bn.lab.Site
	if err := site.Reset(bn.ctx, t.Variant); err != nil {
		return nil, err
	}
	res, err := bn.lab.Node.Agent().Run(bn.ctx, bn.task(t, 0), planner.Options{NoMemory: true})
	if err != nil {
		return nil, err
	}
	if res.Outcome != schema.OutcomeSuccess {
		return nil, fmt.Errorf("the cold run %s ended %s: %v", res.RunID, res.Outcome, res.Reason)
	}
	if err := site.Reset(bn.ctx, t.Variant); err != nil {
		return nil, err
	}
	_, prom, err := bn.lab.Node.PromoteRun(bn.ctx, res.RunID, bn.task(t, 0).StartURL, t.Params(0))
	if err != nil {
		return nil, err
	}
	return prom.Entry, nil
}

// probeNearMisses sends t's near misses to the matcher, with t's values
// of the first repetition, now that t's playbook is stored.
func (bn *bench) probeNearMisses(t *suite.Task) error {
	task := bn.task(t, 0)
	fp, err := schema.Fingerprint(tools.BrowserEnvironment(task.StartURL))
	if err != nil {
		return err
	}
	for _, text := range t.RenderNearMisses(t.Params(0)) {
		var rep schema.MatchReply
		if err := bn.lab.Node.Bus().RPC().Call(bn.ctx, schema.SubjectMatch, &schema.MatchRequest{RunID: bus.NewID(), Fingerprint: fp, Task: text, Params: task.Params}, &rep); err != nil {
			return err
		}
		m := report.NearMiss{Task: t.ID, Text: text, Hit: rep.Hit, Reason: rep.Reason, Tokens: rep.Usage.Logical()}
		if rep.Hit {
			m.Playbook = fmt.Sprintf("%s@%d", rep.Playbook.Name, rep.Playbook.Version)
		}
		bn.nearMisses = append(bn.nearMisses, m)
	}
	return nil
}

// pair runs one repetition: the cold agent twice (the first only warms the
// provider cache) and Rote warm once, each on a fresh site. A free-text
// task gives both arms its values only as text (and its secrets).
func (bn *bench) pair(t *suite.Task, rep int, variant, drift string, mustMiss bool) error {
	task, site, n := bn.task(t, rep), bn.lab.Site, bn.lab.Node
	if t.FreeText {
		task.Params = map[string]string{}
		for _, k := range t.Secrets {
			task.Params[k] = t.Params(rep)[k]
		}
	}
	for i := range 2 {
		if err := site.Reset(bn.ctx, variant); err != nil {
			return err
		}
		res, err := n.Agent().Run(bn.ctx, task, planner.Options{NoMemory: true})
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
	if err := site.Reset(bn.ctx, variant); err != nil {
		return err
	}
	o, err := n.Controller().Run(bn.ctx, task, nil, planner.Options{}, nil)
	if err != nil {
		return err
	}
	r, err := bn.result(t, rep, drift, report.Warm, o.Runs())
	if err != nil {
		return err
	}
	r.Mode = o.Mode()
	if o.Match != nil && o.Match.Hit {
		r.Playbook = fmt.Sprintf("%s@%d", o.Match.Playbook.Name, o.Match.Playbook.Version)
		r.FalseMatch = mustMiss || o.Match.Playbook.Name != t.Name
	}
	bn.results = append(bn.results, *r)
	return nil
}

// result reads runs back from ROTE_RUNS into one result; success is the
// site's server-side state, given the runs' answer. drift is the variant
// of a drifting task.
func (bn *bench) result(t *suite.Task, rep int, drift string, arm report.Arm, runs []string) (*report.Result, error) {
	r := &report.Result{Task: t.ID, Variant: drift, Rep: rep, Arm: arm, Runs: runs}
	var done, read string
	var total int64
	for _, id := range runs {
		f, err := bn.lab.Node.Bus().Runs().Fold(bn.ctx, id)
		if err != nil {
			return nil, err
		}
		r.WallMS += ms(f.Wall())
		r.ModelMS += ms(f.ModelTime())
		r.ObservationTokens += f.PlannerObservationTokens
		if f.Finished != nil {
			r.Usage = schema.MergeUsage(r.Usage, f.Finished.Usage)
			r.Classes = schema.MergeClasses(r.Classes, schema.TallyClasses(f.Finished.Steps))
		}
		if f.Verify != nil {
			r.Verified = f.Verify.Passed
		}
		for _, c := range f.LLMCalls {
			total += c.Usage.Logical()
			r.CumulativeTokens = append(r.CumulativeTokens, total)
		}
		done, read = cmp.Or(f.Done(), done), cmp.Or(f.Read(), read)
	}
	r.Totals()
	r.Success = bn.lab.Site.Check(bn.ctx, t, t.Params(rep), cmp.Or(done, read)) == nil
	return r, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
