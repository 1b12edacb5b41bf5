package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/runlog"
	"github.com/rote-agent/rote/cmd/rote/view"
	"github.com/rote-agent/rote/schema"
	"github.com/spf13/cobra"
)

func newRunsCommand(app *cli.App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "Inspect the run log in ROTE_RUNS",
		Args:  cli.Args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newRunsListCommand(app), newRunsShowCommand(app), newRunsExportCommand(app), newRunsVerifyCommand(app))
	return cmd
}

func newRunsListCommand(app *cli.App) *cobra.Command {
	var asJSON, all bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List runs, oldest first",
		Long: `list prints every run, oldest first: its mode, task, outcome, when it started,
how long it took, its steps (tool calls and browser actions), model calls and
tokens. The sessions rote mcp browser opens for itself with no task (under
rote record, whose run is the session's record) are left out and counted
below the table; --all lists them too.`,
		Args: cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := app.Bus(cmd.Context())
			if err != nil {
				return err
			}
			runs, err := runlog.List(cmd.Context(), b.Runs())
			if err != nil {
				return err
			}
			hidden := 0
			if !all {
				shown := runs[:0]
				for _, r := range runs {
					if r.Untasked() {
						hidden++
						continue
					}
					shown = append(shown, r)
				}
				runs = shown
			}
			if asJSON {
				return view.JSON(app.Stdout, runs)
			}
			if hidden > 0 {
				defer fmt.Fprintf(app.Stdout, "(%d session(s) of rote mcp browser with no task left out: --all lists them)\n", hidden)
			}
			if len(runs) == 0 {
				fmt.Fprintln(app.Stdout, "no runs")
				return nil
			}
			tw := tabwriter.NewWriter(app.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tMODE\tTASK\tOUTCOME\tSTARTED\tDURATION\tSTEPS\tMODEL CALLS\tTOKENS")
			for _, r := range runs {
				duration := "-"
				if !r.Finished.IsZero() {
					duration = r.Finished.Sub(r.Started).Round(time.Millisecond).String()
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\n", r.RunID, r.Mode, view.Cell(view.TaskCell(r), 48), r.Outcome,
					r.Started.UTC().Format(time.RFC3339), duration, r.Steps, r.ModelCalls(), schema.LogicalTokens(r.Usage))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of run manifests")
	cmd.Flags().BoolVar(&all, "all", false, "also list the sessions rote mcp browser opened with no task")
	return cmd
}

func newRunsShowCommand(app *cli.App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Print one run's events as a timeline",
		Args:  cli.Args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			b, err := app.Bus(cmd.Context())
			if err != nil {
				return err
			}
			envs, err := b.Runs().ReadRun(cmd.Context(), a[0])
			if err != nil {
				return err
			}
			if asJSON {
				return view.JSON(app.Stdout, view.Events(envs))
			}
			runlog.WriteTimeline(app.Stdout, envs)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the events as a JSON array")
	return cmd
}

func newRunsExportCommand(app *cli.App) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "export RUN --dir DIR",
		Short: "Write a run as trajectory.jsonl, manifest.json and blobs/",
		Long: `export writes one run to DIR:

  trajectory.jsonl  every event of the run in log order, one JSON object a line
  manifest.json     the run's manifest (outcome "running" if it has not finished)
  blobs/<hex>       each payload the run keeps in ROTE_BLOBS, checked against its digest

The files are a pure function of the stream: exporting the same run twice
gives the same bytes.`,
		Args: cli.Args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			if dir == "" {
				return cli.Usagef("export needs --dir")
			}
			b, err := app.Bus(cmd.Context())
			if err != nil {
				return err
			}
			n, err := runlog.Export(cmd.Context(), b.Runs(), a[0], dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "exported run %s to %s: %d events, %d blobs\n", a[0], dir, n.Events, n.Blobs)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory to write into (created if missing)")
	return cmd
}
