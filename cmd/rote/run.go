package main

import (
	"context"
	"fmt"

	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/cmd/rote/view"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/planner"
	"github.com/spf13/cobra"
)

// runFlags are rote run's flags.
type runFlags struct {
	base, suiteID, variant, playbook string
	params, secrets, verifyText      []string
	rep, maxSteps                    int
	version                          uint64
	asJSON                           bool
}

func newRunCommand(app *cli.App, suites suiteSupport) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   `run "TASK" --url URL [flags] | run --suite-task ID [flags]`,
		Short: "Do a task: replay a playbook that matches it, else plan step by step with the model",
		Long: `run does a task in headless Chromium and verifies it. The matcher looks for a
stored playbook bound to the site's environment whose intent fits the task
and binds its parameters; --playbook names one instead. A playbook is
replayed (no model for deterministic steps); a step that no longer fits
is repaired by one scoped model call, and a replay that cannot go on falls
back to the agent, which carries on from the page as it is. Without one the
agent plans every step: settle, observe, decide, act, record. Learn a
playbook from a verified run with rote distill and rote promote.

The model is ROTE_LLM_BASE_URL / ROTE_LLM_API_KEY / ROTE_MODEL; when unset,
the offline scripted model, which knows the frozen suite's tasks only, and
every output says so.

--suite-task runs a frozen suite task (B1-B6 on the fixture portal, W1-W4
on WordPress) with its parameters and its verify gate; without --url it
serves the site itself (the portal in --variant) and also checks its
server-side state. A rote built with -tags nobench has no suite tasks.

A run succeeds only when its verify gate passes: give --verify-text for a
free-form task. It prints each step (source, tokens, ms) and a summary, and
exits 0 only on a verified success.`,
		Args: cli.Args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error { return runTask(cmd.Context(), app, suites, f, a) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.base, "url", "", "the site, e.g. http://127.0.0.1:8080")
	fl.StringArrayVar(&f.params, "param", nil, "a task parameter, name=value (repeatable)")
	fl.StringArrayVar(&f.secrets, "secret", nil, "a secret parameter, name=value, or name alone for $ROTE_SECRET_NAME (out of ps's sight): the model sees only {{name}} (repeatable)")
	fl.StringArrayVar(&f.verifyText, "verify-text", nil, "text the page must show when the task is done (repeatable)")
	fl.IntVar(&f.maxSteps, "max-steps", 40, "the most steps the agent may take")
	fl.StringVar(&f.playbook, "playbook", "", "replay this playbook, a stored NAME or a FILE, before falling back to the agent")
	fl.Uint64Var(&f.version, "version", 0, "the stored version of --playbook (default the latest)")
	fl.StringVar(&f.suiteID, "suite-task", "", "run a frozen suite task: B1 ... B6 on the fixture portal, W1 ... W4 on WordPress (scripts/wordpress)")
	fl.StringVar(&f.variant, "variant", "", "the fixture portal's variant, with --suite-task and no --url")
	fl.IntVar(&f.rep, "rep", 0, "which repetition's parameters a suite task uses")
	fl.BoolVar(&f.asJSON, "json", false, "print the outcome as JSON")
	if suites.run == nil {
		for _, name := range []string{"suite-task", "variant", "rep"} {
			fl.MarkHidden(name) // this build has no suite tasks
		}
	}
	return cmd
}

// runTask is rote run.
func runTask(ctx context.Context, app *cli.App, suites suiteSupport, f runFlags, a []string) error {
	t, site, err := buildTask(ctx, suites, f, a)
	if err != nil {
		return err
	}
	if site != nil {
		defer site.close()
	}
	n, err := app.StartNode(ctx, node.Tasks...)
	if err != nil {
		return err
	}
	defer n.Close()
	label := n.Model().Label
	var chosen *planner.Chosen
	if f.playbook != "" {
		p, v, err := cli.LoadPlaybook(ctx, n.Bus(), f.playbook, "", f.version)
		if err != nil {
			return err
		}
		chosen = &planner.Chosen{Playbook: p, Version: v}
	}
	out := app.Stdout
	if !f.asJSON {
		fmt.Fprintf(out, "task: %s\nsite: %s\nmodel: %s\n", t.Text, t.StartURL, label)
		if chosen != nil {
			fmt.Fprintf(out, "playbook: %s\n", view.PlaybookLabel(chosen.Playbook.Name, chosen.Version))
		}
	}
	opts := planner.Options{}
	var replayProgress func(schema.StepReport)
	if !f.asJSON {
		opts.Progress = func(l planner.StepLog) { view.AgentStep(app.Stdout, l) }
		replayProgress = func(r schema.StepReport) { view.Step(app.Stdout, r) }
	}
	res, err := n.Controller().Run(ctx, t, chosen, opts, replayProgress)
	if err != nil {
		return err
	}
	var checkErr error
	if site != nil {
		checkErr = site.check(ctx, res.Answer())
	}
	if f.asJSON {
		if err := view.JSON(app.Stdout, res); err != nil {
			return err
		}
	} else {
		var sc *view.SiteCheck
		if site != nil {
			sc = &view.SiteCheck{Site: site.site, ID: site.id, Err: checkErr}
		}
		view.Outcome(app.Stdout, res, label, sc)
	}
	if res.Outcome != schema.OutcomeSuccess {
		return fmt.Errorf("run %s: %v", res.Outcome, res.Reason)
	}
	if checkErr != nil {
		return fmt.Errorf("the site disagrees: %w", checkErr)
	}
	return nil
}

// buildTask reads the task from the flags; a suite task comes with the
// site this process serves for it, unless --url names one.
func buildTask(ctx context.Context, suites suiteSupport, f runFlags, a []string) (planner.Task, *suiteRun, error) {
	params, err := cli.KeyValues("--param", f.params)
	if err != nil {
		return planner.Task{}, nil, err
	}
	secrets, err := cli.KeyValues("--secret", f.secrets)
	if err != nil {
		return planner.Task{}, nil, err
	}
	var t planner.Task
	var site *suiteRun
	switch {
	case f.suiteID != "" && len(a) > 0:
		return t, nil, cli.Usagef("give a task text or --suite-task, not both")
	case f.suiteID != "" && suites.run == nil:
		return t, nil, cli.Usagef("--suite-task: %s", errNoSuites)
	case f.suiteID != "":
		if site, err = suites.run(ctx, f.suiteID, f.rep, params, f.variant, f.base); err != nil {
			return t, nil, err
		}
		t = site.task
		if site.site == "" {
			site.close()
			site = nil
		}
	case len(a) == 0:
		return t, nil, cli.Usagef(`run needs a task: rote run "TASK" --url URL, or --suite-task ID`)
	case f.base == "":
		return t, nil, cli.Usagef("run needs --url, the site the task is on")
	default:
		t = planner.Task{Text: a[0], Params: params, StartURL: f.base}
	}
	if t.Params == nil {
		t.Params = map[string]string{} // --secret without --param, on any kind of task
	}
	t.MaxSteps = f.maxSteps
	for k, v := range secrets {
		t.Params[k] = v
		t.Secrets = append(t.Secrets, k)
	}
	for _, text := range f.verifyText {
		t.Verify = append(t.Verify, schema.Expect{Op: schema.OpTextVisible, Arg: text})
	}
	return t, site, nil
}
