package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/spf13/cobra"
)

func newRunsCommand(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "Inspect the run log in ROTE_RUNS",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newRunsListCommand(app), newRunsShowCommand(app), newRunsExportCommand(app), newRunsVerifyCommand(app))
	return cmd
}

// runSummary is one row of `rote runs list`: the manifest as far as the
// log knows it, with the number of recorded steps: MCP tool calls and
// browser actions.
type runSummary struct {
	schema.Manifest
	Calls int `json:"calls"`
}

// modelCalls is the number of model calls the manifest counts.
func (r runSummary) modelCalls() int {
	n := 0
	for _, u := range r.Usage {
		n += u.Calls
	}
	return n
}

// summaries folds run.started and run.finished events into one summary
// per run, in the order the runs started. A run without run.finished is
// reported with outcome "running".
func summaries(ctx context.Context, b *bus.Bus) ([]runSummary, error) {
	envs, err := b.Read(ctx, schema.RunKindFilter(schema.KindStarted), schema.RunKindFilter(schema.KindFinished))
	if err != nil {
		return nil, err
	}
	index := map[string]int{}
	var out []runSummary
	for _, env := range envs {
		switch ev := env.Event.(type) {
		case *schema.RunStarted:
			index[ev.RunID] = len(out)
			out = append(out, runSummary{Manifest: schema.Manifest{RunSpec: ev.RunSpec, Outcome: "running", Started: ev.Time}})
		case *schema.RunFinished:
			i, ok := index[ev.RunID]
			if !ok { // finished without a start we can see: keep what the manifest says
				index[ev.RunID] = len(out)
				out = append(out, runSummary{})
				i = len(out) - 1
			}
			out[i].Manifest = ev.Manifest
		}
	}
	counts, err := callCounts(ctx, b)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Calls = counts[schema.RunSubject(out[i].RunID, schema.KindCalls)] + counts[schema.RunSubject(out[i].RunID, schema.KindActions)]
	}
	return out, nil
}

// callCounts returns the number of stored tool calls and browser actions
// per subject.
func callCounts(ctx context.Context, b *bus.Bus) (map[string]int, error) {
	stream, err := b.JetStream().Stream(ctx, bus.StreamRuns)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	for _, kind := range []string{schema.KindCalls, schema.KindActions} {
		info, err := stream.Info(ctx, jetstream.WithSubjectFilter(schema.RunKindFilter(kind)))
		if err != nil {
			return nil, err
		}
		for subject, n := range info.State.Subjects {
			counts[subject] = int(n)
		}
	}
	return counts, nil
}

func newRunsListCommand(app *App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List runs, oldest first",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := app.Bus(cmd.Context())
			if err != nil {
				return err
			}
			runs, err := summaries(cmd.Context(), b)
			if err != nil {
				return err
			}
			if asJSON {
				if runs == nil {
					runs = []runSummary{}
				}
				return writeJSON(app, runs)
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
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\n", r.RunID, r.Mode, clip(r.Task.Label(), 32), r.Outcome,
					r.Started.UTC().Format(time.RFC3339), duration, r.Calls, r.modelCalls(), logicalTokens(r.Usage))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of run manifests")
	return cmd
}

func newRunsShowCommand(app *App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Print one run's events as a timeline",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			b, err := app.Bus(cmd.Context())
			if err != nil {
				return err
			}
			envs, err := b.ReadRun(cmd.Context(), a[0])
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(app, jsonEvents(envs))
			}
			writeTimeline(app.Stdout, envs)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the events as a JSON array")
	return cmd
}

// jsonEvent is one event as `rote runs show --json` prints it.
type jsonEvent struct {
	Seq     uint64       `json:"seq"`
	Subject string       `json:"subject"`
	Type    string       `json:"type"`
	Stored  time.Time    `json:"stored"`
	Event   schema.Event `json:"event"`
}

func jsonEvents(envs []bus.Envelope) []jsonEvent {
	out := make([]jsonEvent, len(envs))
	for i, env := range envs {
		out[i] = jsonEvent{Seq: env.Seq, Subject: env.Subject, Type: env.Event.EventType(), Stored: env.Time.UTC(), Event: env.Event}
	}
	return out
}

func writeJSON(app *App, v any) error {
	enc := json.NewEncoder(app.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func logicalTokens(usage []schema.SourceUsage) int64 {
	var n int64
	for _, u := range usage {
		n += u.Tokens.Logical()
	}
	return n
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
