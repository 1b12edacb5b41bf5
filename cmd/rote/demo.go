package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/planner"
	"github.com/spf13/cobra"
)

func newDemoCommand(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Run the whole loop on embedded defaults: cold run, distill, promote, warm replay, drift",
		Long: `demo runs the learning loop end to end on this machine: the embedded NATS
server (data in --data), the fixture portal on loopback and headless Chromium.

  1. cold      the agent registers a vendor (B2), planning every step with
               the model; the matcher has nothing yet
  2. promote   the run is distilled and shadow-replayed, then stored as v1
  3. warm      the same task with new values: matched, bound, replayed with
               no model call, verified
  4. drift     a dialog now covers the form (interstitial): one repair call
               clears it, the replay goes on; nothing is saved
  5. drift     the review form now posts to /vendors/import: the replay
               refuses the changed submit, the agent carries on from there
               and gives up too; nothing is registered or imported
  6. drift     "Company name" now reads "Legal entity name": one scoped
               repair call, saved as v2
  7. warm v2   the renamed form again: v2 replays with no model call

Every outcome is checked twice: by the run's verify gate and by the portal's
own server-side state (for row 5: no vendor registered, none imported). The model is ROTE_LLM_BASE_URL, else the offline
scripted model, and the table says which. It exits non-zero if any outcome is
not what it should be.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runDemo(cmd.Context(), app) },
	}
}

// demoRow is one run of the demo and what it should have been.
type demoRow struct {
	name, variant, mode string
	calls               int
	usage               []schema.SourceUsage
	wall                time.Duration
	// verified is the run's outcome as its verify gate found it; refuse
	// says the task cannot be done on this site and must fail.
	verified, refuse bool
	// agrees is whether the portal's own state says what the outcome
	// says: the task's effect, or (refuse) no effect at all.
	agrees bool
	want   string // what was expected, when it was not met
	runs   []string
}

func runDemo(ctx context.Context, app *App) error {
	l, err := openLab(ctx, app)
	if err != nil {
		return err
	}
	defer l.stop()
	b, site, base, st := l.b, l.site, l.base, l.st
	task, err := suite.Lookup("B2")
	if err != nil {
		return err
	}
	out := app.Stdout
	fmt.Fprintf(out, "rote demo: %s\n  site   %s (the fixture portal)\n  model  %s\n  data   %s\n\n", task.Text, base, st.model.label, app.DataDir)
	d := &demo{ctx: ctx, app: app, b: b, c: st.controller, site: site, base: base, task: task, key: st.key}

	cold := d.run("1 cold", "", 0, func(o *planner.Outcome) string {
		return expect(o.Agent != nil && o.Replay == nil, "the agent, with no playbook yet")
	})
	d.promote(cold)
	d.run("3 warm", "", 1, func(o *planner.Outcome) string {
		return expect(o.Replay != nil && o.Agent == nil && len(o.Usage) == 0, "a matched replay with no model call")
	})
	d.run("4 drift", "interstitial", 2, func(o *planner.Outcome) string {
		return expect(o.Replay != nil && o.Agent == nil && o.Replay.Patched == nil && o.Replay.PatchNote != "", "one repair call that clears the dialog, nothing saved")
	})
	d.refuse = true
	d.run("5 drift", "submit-elsewhere", 3, func(o *planner.Outcome) string {
		return expect(o.Replay != nil && o.Replay.Outcome == schema.OutcomeFallback && errors.Is(o.Replay.Reason, schema.ErrContractChanged) && o.Agent != nil,
			"a replay that refuses the changed submit and falls back to the agent")
	})
	d.refuse = false
	d.run("6 drift", "label-rename", 4, func(o *planner.Outcome) string {
		return expect(o.Replay != nil && o.Agent == nil && o.Replay.Patched != nil, "one scoped repair, saved as a new version")
	})
	d.run("7 warm v2", "label-rename", 5, func(o *planner.Outcome) string {
		return expect(o.Replay != nil && o.Agent == nil && len(o.Usage) == 0, "the repaired version replayed with no model call")
	})
	return d.report(out, st.model.label)
}

func expect(ok bool, want string) string {
	if ok {
		return ""
	}
	return want
}

// demo is the demo in progress.
type demo struct {
	ctx  context.Context
	app  *App
	b    *bus.Bus
	c    *planner.Controller
	site *switchable
	base string
	task *suite.Task
	key  []byte
	rows []demoRow
	err  error
	// refuse marks the next runs as ones that must fail with no effect.
	refuse bool
}

// run does the task with repetition rep's values on the portal in
// variant, through the control loop, and checks how it went.
func (d *demo) run(name, variant string, rep int, check func(*planner.Outcome) string) *planner.Outcome {
	row := demoRow{name: name, variant: variant, refuse: d.refuse}
	if variant == "" {
		row.variant = "baseline"
	}
	if d.err != nil {
		return nil
	}
	if d.err = d.site.set(variant); d.err != nil {
		return nil
	}
	params := d.task.Params(rep)
	t := planner.Task{Suite: d.task.ID, Name: d.task.Name, Text: d.task.Render(params), Params: params, Secrets: d.task.Secrets,
		Verify: d.task.VerifyExpects(params), StartURL: d.base}
	fmt.Fprintf(d.app.Stdout, "%s (%s): %s ...\n", name, row.variant, params["company"])
	o, err := d.c.Run(d.ctx, t, nil, planner.Options{}, nil)
	if err != nil {
		d.err = fmt.Errorf("%s: %w", name, err)
		return nil
	}
	row.mode = demoMode(o)
	row.usage, row.wall, row.verified = o.Usage, o.Duration, o.Outcome == schema.OutcomeSuccess
	answer := ""
	if o.Agent != nil {
		answer = o.Agent.Answer
	}
	st := d.site.p.Load().State()
	if row.refuse {
		row.agrees = len(st.Vendors) == 0 && len(st.Imports) == 0
	} else {
		row.agrees = d.task.Check(st, params, answer) == nil
	}
	row.want = check(o)
	if o.Replay != nil {
		row.runs = append(row.runs, o.Replay.RunID)
	}
	if o.Agent != nil {
		row.runs = append(row.runs, o.Agent.RunID)
	}
	d.rows = append(d.rows, row)
	return o
}

func demoMode(o *planner.Outcome) string {
	switch {
	case o.Replay != nil && o.Agent != nil:
		return fmt.Sprintf("replay v%d -> fallback at %s -> agent", o.Replay.Playbook.Version, o.Replay.FailedStep)
	case o.Replay != nil && o.Replay.Patched != nil:
		return fmt.Sprintf("replay v%d, repaired -> v%d", o.Replay.Playbook.Version, o.Replay.Patched.Version)
	case o.Replay != nil && o.Replay.PatchNote != "":
		return fmt.Sprintf("replay v%d, way cleared (not saved)", o.Replay.Playbook.Version)
	case o.Replay != nil:
		return fmt.Sprintf("replay v%d (matched)", o.Replay.Playbook.Version)
	}
	return "agent (no match)"
}

// promote distills the cold run and promotes it after a shadow replay on
// the baseline portal, reset afterwards.
func (d *demo) promote(cold *planner.Outcome) {
	if d.err != nil || cold == nil || cold.Agent == nil {
		return
	}
	row := demoRow{name: "2 promote", variant: "baseline", want: "a green shadow replay, stored as v1"}
	began := time.Now()
	if d.err = d.site.set(""); d.err != nil {
		return
	}
	params := d.task.Params(0)
	cand, promo, err := promoteRun(d.ctx, d.b, d.key, cold.Agent.RunID, d.base, params)
	if cand == nil {
		d.err = err
		return
	}
	row.wall = time.Since(began)
	if promo != nil && promo.Shadow != nil {
		row.runs = []string{promo.Shadow.RunID}
		row.usage, row.verified = promo.Shadow.Usage, promo.Shadow.Outcome == schema.OutcomeSuccess
		row.agrees = d.task.Check(d.site.p.Load().State(), params, "") == nil
	}
	if err == nil {
		row.mode = fmt.Sprintf("distill (%d steps, %d pruned) + shadow -> v%d", len(cand.Playbook.Steps), len(cand.Pruned), promo.Entry.Stored.Version)
		row.want = ""
	} else {
		row.mode = "distill + shadow: " + err.Error()
	}
	d.rows = append(d.rows, row)
}

// report prints the table and returns an error if anything was not as it
// should be.
func (d *demo) report(w io.Writer, label string) error {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSITE\tMODE\tMODEL CALLS\tTOKENS BY SOURCE (logical / cache-adjusted)\tWALL\tOUTCOME\tPORTAL\tAS EXPECTED")
	var wrong []string
	for _, r := range d.rows {
		calls, tokens := 0, []string{}
		for _, u := range r.usage {
			calls += u.Calls
			tokens = append(tokens, fmt.Sprintf("%s %d / %.0f", u.Source, u.Tokens.Logical(), u.Tokens.Adjusted()))
		}
		if len(tokens) == 0 {
			tokens = []string{"0"}
		}
		ok := r.verified != r.refuse && r.agrees && r.want == ""
		if !ok {
			wrong = append(wrong, r.name)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", r.name, r.variant, r.mode, calls, strings.Join(tokens, ", "),
			r.wall.Round(10*time.Millisecond), outcome(r.verified), agrees(r.agrees), yesNo(ok, r.want))
	}
	tw.Flush()
	fmt.Fprintf(w, "\nmodel: %s\n", label)
	if len(d.rows) > 2 {
		coldTokens, warmTokens := logicalTokens(d.rows[0].usage), logicalTokens(d.rows[2].usage)
		if coldTokens > 0 {
			fmt.Fprintf(w, "warm vs cold: %d vs %d tokens (%.1f%% fewer), %s vs %s\n", warmTokens, coldTokens,
				100*(1-float64(warmTokens)/float64(coldTokens)), d.rows[2].wall.Round(10*time.Millisecond), d.rows[0].wall.Round(10*time.Millisecond))
		}
	}
	for _, r := range d.rows {
		fmt.Fprintf(w, "  %s: runs %s\n", r.name, strings.Join(r.runs, ", "))
	}
	if d.err != nil {
		return d.err
	}
	if len(wrong) > 0 {
		return fmt.Errorf("not as expected: %s", strings.Join(wrong, ", "))
	}
	fmt.Fprintln(w, "every outcome as expected, by the runs' verify gates and by the portal's state")
	return nil
}

func yesNo(ok bool, want string) string {
	switch {
	case ok:
		return "yes"
	case want == "":
		return "NO"
	}
	return "NO: want " + want
}

func outcome(verified bool) string {
	if verified {
		return "verified"
	}
	return "failed"
}

func agrees(ok bool) string {
	if ok {
		return "agrees"
	}
	return "DISAGREES"
}
