package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/planner"
)

// demoRow is one run of the demo and what it should have been.
type demoRow struct {
	name, variant, mode string
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

// Demo runs the learning loop end to end on l, whose site must be the
// fixture portal: a cold run, its distillation and promotion, a warm
// replay, and three kinds of drift (a dialog in the way, a submit that
// now posts elsewhere, a renamed field), each checked by its verify gate
// and by the portal's own state. It prints its progress and table to
// out; where names the store for
// people. It returns an error if any outcome is not what it should be.
func Demo(ctx context.Context, l *Lab, where string, out io.Writer) error {
	site, ok := l.Site.(*Portal)
	if !ok {
		return fmt.Errorf("the demo runs on the fixture portal, not %s", l.Site.Describe())
	}
	task, err := suite.Lookup("B2")
	if err != nil {
		return err
	}
	label := l.Node.Model().Label
	fmt.Fprintf(out, "rote demo: %s\n  site   %s (the fixture portal)\n  model  %s\n  data   %s\n\n", task.Text, site.Base(), label, where)
	d := &demo{ctx: ctx, out: out, n: l.Node, site: site, task: task}

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
	return d.report(out, label)
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
	out  io.Writer
	n    *node.Node
	site *Portal
	task *suite.Task
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
	if d.err = d.site.Reset(d.ctx, variant); d.err != nil {
		return nil
	}
	params := d.task.Params(rep)
	fmt.Fprintf(d.out, "%s (%s): %s ...\n", name, row.variant, params["company"])
	o, err := d.n.Controller().Run(d.ctx, Task(d.task, params, d.site.Base()), nil, planner.Options{}, nil)
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
	st := d.site.State()
	if row.refuse {
		row.agrees = len(st.Vendors) == 0 && len(st.Imports) == 0
	} else {
		row.agrees = d.task.Check(st, params, answer) == nil
	}
	row.want = check(o)
	row.runs = o.Runs()
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
	if d.err = d.site.Reset(d.ctx, ""); d.err != nil {
		return
	}
	params := d.task.Params(0)
	cand, promo, err := d.n.PromoteRun(d.ctx, cold.Agent.RunID, Task(d.task, params, d.site.Base()).StartURL, params)
	if cand == nil {
		d.err = err
		return
	}
	row.wall = time.Since(began)
	if promo != nil && promo.Shadow != nil {
		row.runs = []string{promo.Shadow.RunID}
		row.usage, row.verified = promo.Shadow.Usage, promo.Shadow.Outcome == schema.OutcomeSuccess
		row.agrees = d.task.Check(d.site.State(), params, "") == nil
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
		coldTokens, warmTokens := schema.LogicalTokens(d.rows[0].usage), schema.LogicalTokens(d.rows[2].usage)
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
