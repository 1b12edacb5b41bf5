//go:build !nobench

package lab

import (
	"fmt"
	"os"
	"strings"

	"github.com/rote-agent/rote/bench/report"
	"github.com/rote-agent/rote/bench/scripted"
	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/chromium"
	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/view"
	"github.com/spf13/cobra"
)

func newBenchCommand(app *cli.App) *cobra.Command {
	var latency string
	var asJSON bool
	var wf widgetFlags
	cfg := Config{Progress: app.Stderr}
	cmd := &cobra.Command{
		Use:   "bench [--suite portal|wordpress|variation|speed|widgets|memory] [--reps N] [--out DIR] [--seed S] [--json]",
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
posts list (100 rows). --suite variation is the portal with the inputs
that break a frozen playbook: V1 downloads the latest report after a newer one
is published, V2 registers a vendor given only as text, V3 says V1 in other
words, V4 (download the oldest report) must miss V1's playbook, V5 does a
drill page whose instruction changes with every repetition, learned from a run
with detours. --suite speed is the side by side: Rote's warm replays of B1, B2
(the vendor flow) and B3 against hand-written chromedp programs doing the
same steps on the same portal, and against the cold agent, in one run, with
where each replay's time went; its gate is the slowest task's median ratio
to the hand-written program, at most 1.5x. Its model answers at once
(--model-latency none) unless the flag says otherwise. --suite widgets
learns each of about twenty kinds of task page (unlabelled fields, dates,
times, amounts, sliders, selects, radios, sets, ordinals, rows, tabs,
dialogs, autocomplete, late lists, switches, wizards, search) from one
scripted demonstration on seed 100, through rote record in front of rote mcp
browser and @playwright/mcp, and replays it with rote replay on --seeds new
instances: right, stopped (right to stop, or over-cautious) or wrong, by the
page's own ground truth; its gate is 0 wrong and at least 90% of the doable
replays right, and no model is involved. --suite memory measures site
memory: it learns B1-B4 on a store, then runs six kinds of portal task no
other suite asks (M1-M6: a site title, the weekly digest, two messages
triaged, a product added to the cart, a record archived, the timezone)
on that store and on one that knows nothing of the site, and runs the
trust gate's drift pages (the sign-in page's heading changed, the landing
after signing in moved); its gates are at least 30% fewer model calls and
tokens, success parity and 0 wrong. Success is the site's server-side state (the portal's, or SQL
against WordPress's database).

Every number is read back from ROTE_RUNS. --out gets results.jsonl,
summary.json, report.md and the plots (SVG and PNG); the gates (token
reduction, success parity, wrong outcomes, false matches, latency) print PASS
or FAIL, and a failed gate exits non-zero.`,
		Args: cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg.Suite == SuiteSpeed {
				if !cmd.Flags().Changed("model-latency") {
					latency = "none" // the browser's side is what it measures
				}
				return runSideBySide(cmd, app, cfg, latency, asJSON)
			}
			if cfg.Suite == SuiteWidgets {
				return runWidgets(cmd, app, cfg, wf, asJSON)
			}
			if cfg.Suite == suite.SuiteMemory {
				return runMemory(cmd, app, cfg, latency, asJSON)
			}
			if err := cfg.Check(); err != nil {
				return cli.Usagef("%v", err)
			}
			cfg.Command = "rote " + strings.Join(os.Args[1:], " ")
			l, err := openLab(cmd, app, cfg.Suite, latency)
			if err != nil {
				return err
			}
			defer l.Close()
			s, err := Bench(cmd.Context(), l, cfg)
			if err != nil {
				return err
			}
			var gates []fmt.Stringer
			for _, name := range report.GateNames {
				gates = append(gates, s.Gates[name])
			}
			return finish(app, cfg.Out, asJSON, s, s.Pass(),
				fmt.Sprintf("suite: %s\nmodel: %s\nwrote %s/report.md, summary.json, results.jsonl and the plots", cfg.Suite, l.Node.Model().Label, cfg.Out), gates...)
		},
	}
	cmd.Flags().StringVar(&cfg.Suite, "suite", suite.SuitePortal, "the suite to run: portal, wordpress, variation, speed, widgets or memory")
	cmd.Flags().StringVar(&wf.playwright, "playwright-mcp", "", "--suite widgets: @playwright/mcp's cli.js (default: e2e/node/node_modules/@playwright/mcp/cli.js, as scripts/setup installs it)")
	cmd.Flags().StringSliceVar(&wf.kinds, "kinds", nil, "--suite widgets: the kinds to run (default all)")
	cmd.Flags().StringSliceVar(&wf.servers, "servers", []string{"rote", "playwright"}, "--suite widgets: the servers to run through: rote, playwright")
	cmd.Flags().IntVar(&wf.seeds, "seeds", 10, "--suite widgets: how many new instances each kind is replayed on")
	cmd.Flags().IntVar(&cfg.Reps, "reps", 15, "repetitions per task")
	cmd.Flags().StringVar(&cfg.Out, "out", "bench-out", "where to write results.jsonl, summary.json, report.md and the plots")
	cmd.Flags().Uint64Var(&cfg.Seed, "seed", 1, "the bootstrap's seed")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print summary.json instead of the gates")
	cmd.Flags().StringVar(&latency, "model-latency", "hosted", "the offline scripted model's simulated latency (--suite speed: none unless given): hosted ("+scripted.HostedLatency.String()+"), none, or first=DURATION,prefill=TOKENS_PER_S,decode=TOKENS_PER_S; a real model (ROTE_LLM_BASE_URL) has its own")
	return cmd
}

// openLab opens the lab of suiteName on the app's bus, its offline model
// answering with latency.
func openLab(cmd *cobra.Command, app *cli.App, suiteName, latency string) (*Lab, error) {
	app.ModelLatency = latency
	b, err := app.Bus(cmd.Context())
	if err != nil {
		return nil, err
	}
	ncfg, err := app.NodeConfig()
	if err != nil {
		return nil, err
	}
	return Open(cmd.Context(), b, suiteName, ncfg)
}

// runSideBySide runs the speed suite: replays against hand-written
// programs on the portal.
func runSideBySide(cmd *cobra.Command, app *cli.App, cfg Config, latency string, asJSON bool) error {
	if cfg.Reps < 1 {
		return cli.Usagef("--reps must be at least 1")
	}
	cfg.Command = "rote " + strings.Join(os.Args[1:], " ")
	l, err := openLab(cmd, app, suite.SuitePortal, latency)
	if err != nil {
		return err
	}
	defer l.Close()
	s, err := RunSideBySide(cmd.Context(), l, cfg, chromium.Path)
	if err != nil {
		return err
	}
	if asJSON {
		if err := view.JSON(app.Stdout, s); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(app.Stdout, "suite: speed\nmodel: %s\nwrote %s/report.md and summary.json\n", s.Model, cfg.Out)
		for _, t := range s.Tasks {
			fmt.Fprintf(app.Stdout, "%s: hand-written %s ms (%s ms with its page opening), rote %s ms: %.2fx (%.2fx); cold agent %s ms\n", t.Task,
				report.SpreadOf(t.ScriptSteps), report.SpreadOf(t.Script), report.SpreadOf(t.Rote), t.Ratio(), t.WholeRatio(), report.SpreadOf(t.Cold))
		}
		fmt.Fprintln(app.Stdout, s.Gate)
	}
	if !s.Gate.Pass {
		return fmt.Errorf("a gate failed: see %s/report.md", cfg.Out)
	}
	return nil
}

// runMemory runs the site memory suite on the portal.
func runMemory(cmd *cobra.Command, app *cli.App, cfg Config, latency string, asJSON bool) error {
	if cfg.Reps < 1 {
		return cli.Usagef("--reps must be at least 1")
	}
	cfg.Command = "rote " + strings.Join(os.Args[1:], " ")
	l, err := openLab(cmd, app, suite.SuiteMemory, latency)
	if err != nil {
		return err
	}
	defer l.Close()
	s, err := BenchMemory(cmd.Context(), l, cfg)
	if err != nil {
		return err
	}
	var gates []fmt.Stringer
	for _, name := range report.MemoryGateNames {
		gates = append(gates, s.Gates[name])
	}
	return finish(app, cfg.Out, asJSON, s, s.Pass(), fmt.Sprintf("suite: memory\nmodel: %s\nwrote %s/report.md, summary.json and results.jsonl", s.Model, cfg.Out), gates...)
}

// finish prints a suite's summary s, as JSON with --json, else its
// header and a line per gate, and fails when a gate did (pass false).
func finish(app *cli.App, out string, asJSON bool, s any, pass bool, header string, gates ...fmt.Stringer) error {
	if asJSON {
		if err := view.JSON(app.Stdout, s); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(app.Stdout, header)
		for _, g := range gates {
			fmt.Fprintln(app.Stdout, g)
		}
	}
	if !pass {
		return fmt.Errorf("a gate failed: see %s/report.md", out)
	}
	return nil
}
