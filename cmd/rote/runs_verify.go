package main

import (
	"fmt"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/runlog"
	"github.com/rote-agent/rote/schema"
	"github.com/spf13/cobra"
)

func newRunsVerifyCommand(app *cli.App) *cobra.Command {
	var expects []string
	cmd := &cobra.Command{
		Use:   "verify RUN --expect EXPECT [--expect EXPECT ...]",
		Short: "Check assertions against a recorded session's last result, and record the outcome in the run",
		Long: `verify checks each assertion against the result of the last successful tool call
of a finished recorded run, and appends the checks to the run as a
verify.checked.v1 event: the run's outcome, for the distiller, is that event,
never a bare flag. It exits 0 only when every assertion holds.`,
		Args: cli.Args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if len(expects) == 0 {
				return cli.Usagef("give at least one --expect, e.g. --expect 'text_visible: Saved'")
			}
			exps, err := cli.ParseExpects(expects)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			b, err := app.Bus(ctx)
			if err != nil {
				return err
			}
			r, err := b.Runs().Fold(ctx, a[0])
			if err != nil {
				return err
			}
			switch {
			case r.Spec.Mode != schema.ModeRecord:
				return schema.Errorf(schema.CodeInvalid, "run %s is a %s run: its outcome is its own verify gate's, which runs verify does not overwrite (it checks recorded sessions)", a[0], r.Spec.Mode)
			case r.Finished == nil:
				return schema.Errorf(schema.CodeInvalid, "run %s has not finished", a[0])
			}
			world, _, err := runlog.LastWorld(ctx, b.Runs(), r)
			if err != nil {
				return err
			}
			checks, passed, err := schema.CheckAll(exps, world)
			if err != nil {
				return err
			}
			ev := &schema.VerifyChecked{Meta: schema.Meta{ID: a[0] + "-verify-" + bus.NewID(), Time: time.Now()}, RunID: a[0], Checks: checks, Passed: passed}
			if _, err := b.Runs().Publish(ctx, ev); err != nil {
				return err
			}
			runlog.WriteChecks(app.Stdout, "", checks)
			if !passed {
				return fmt.Errorf("run %s did not verify", a[0])
			}
			fmt.Fprintf(app.Stdout, "run %s verified\n", a[0])
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&expects, "expect", nil, "an assertion, e.g. 'text_visible: Saved' or '{json_path_equals: $.status, equals: ok}' (repeatable)")
	return cmd
}
