package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

func newAuditCommand(app *App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "audit RUN",
		Short: "Re-derive a run's outcome and token totals from its events and compare them with its manifest",
		Long: `audit re-reads every event of RUN from ROTE_RUNS and derives, without
trusting the run's own summary: its outcome (success only with a verify that
passed; fallback only when a run continues it), its model calls and tokens by
source (the llm.call events), and whether its browser events are numbered
without a gap. Each is compared with the manifest in run.finished. It exits
0 when everything agrees, and 1 when anything does not (each mismatch is
printed) or the run is not in the stream.`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			b, err := app.Bus(cmd.Context())
			if err != nil {
				return err
			}
			envs, err := b.ReadRun(cmd.Context(), a[0])
			if err != nil {
				return err
			}
			children, err := continuations(cmd, b, a[0])
			if err != nil {
				return err
			}
			rep := auditRun(a[0], envs, children)
			if asJSON {
				if err := writeJSON(app, rep); err != nil {
					return err
				}
			} else {
				rep.print(app)
			}
			if !rep.Agrees {
				return fmt.Errorf("run %s: %d mismatch(es) with its manifest", a[0], len(rep.Mismatches))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the audit as JSON")
	return cmd
}

// continuations returns the ids of runs whose parent is runID.
func continuations(cmd *cobra.Command, b *bus.Bus, runID string) ([]string, error) {
	envs, err := b.Read(cmd.Context(), schema.RunKindFilter(schema.KindStarted))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range envs {
		if s, ok := e.Event.(*schema.RunStarted); ok && s.Parent == runID {
			out = append(out, s.RunID)
		}
	}
	return out, nil
}

// audit is what rote audit found.
type audit struct {
	RunID      string               `json:"run_id"`
	Recorded   *schema.Manifest     `json:"recorded,omitempty"` // nil when the run never finished
	Outcome    schema.Outcome       `json:"derived_outcome"`
	Usage      []schema.SourceUsage `json:"derived_usage"`
	Events     int                  `json:"events"`
	Offline    bool                 `json:"offline_model"` // a call came from the scripted test model
	Mismatches []string             `json:"mismatches"`
	Agrees     bool                 `json:"agrees"`
}

// auditRun derives a run's outcome and usage from envs and compares them
// with its manifest. children are the runs that continue it.
func auditRun(runID string, envs []bus.Envelope, children []string) *audit {
	a := &audit{RunID: runID, Events: len(envs)}
	var started *schema.RunStarted
	var calls []*schema.LLMCall
	var verify *schema.VerifyChecked
	var seqs []uint64
	for _, e := range envs {
		switch ev := e.Event.(type) {
		case *schema.RunStarted:
			started = ev
		case *schema.RunFinished:
			a.Recorded = &ev.Manifest
		case *schema.LLMCall:
			calls = append(calls, ev)
			a.Offline = a.Offline || ev.Offline
		case *schema.VerifyChecked:
			verify = ev
		case *schema.BrowserAction:
			seqs = append(seqs, ev.Seq)
		case *schema.BrowserObserved:
			seqs = append(seqs, ev.Seq)
		}
	}
	a.Usage = schema.Tally(calls)
	mismatch := func(format string, args ...any) { a.Mismatches = append(a.Mismatches, fmt.Sprintf(format, args...)) }
	switch {
	case verify != nil && verify.Passed:
		a.Outcome = schema.OutcomeSuccess
	case len(children) > 0:
		a.Outcome = schema.OutcomeFallback
	case a.Recorded != nil && a.Recorded.Outcome != schema.OutcomeSuccess:
		// Without a passed verify or a continuation the events say only
		// that it did not succeed; which failure it was is the manifest's.
		a.Outcome = a.Recorded.Outcome
	default:
		a.Outcome = schema.OutcomeFailed
	}
	if started == nil {
		mismatch("no run.started event")
	}
	if a.Recorded == nil {
		mismatch("no run.finished event: the run never finished (rote runs list shows it as open)")
	} else {
		m := a.Recorded
		if started != nil && (m.RunID != started.RunID || m.Mode != started.Mode || m.Parent != started.Parent) {
			mismatch("run.finished names run %s (%s, parent %q), run.started %s (%s, parent %q)", m.RunID, m.Mode, m.Parent, started.RunID, started.Mode, started.Parent)
		}
		if m.Outcome != a.Outcome {
			mismatch("outcome: recorded %s, derived %s", m.Outcome, a.Outcome)
		}
		if m.Outcome == schema.OutcomeFallback && len(children) == 0 {
			mismatch("outcome fallback, but no run continues it")
		}
		if !slices.Equal(m.Usage, a.Usage) {
			mismatch("usage: recorded %s, derived from %d llm.call event(s) %s", usageText(m.Usage), len(calls), usageText(a.Usage))
		}
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			mismatch("browser events numbered %d then %d: an event is missing or out of order", seqs[i-1], seqs[i])
		}
	}
	a.Agrees = len(a.Mismatches) == 0
	return a
}

func usageText(u []schema.SourceUsage) string {
	if len(u) == 0 {
		return "none"
	}
	var parts []string
	for _, s := range u {
		parts = append(parts, fmt.Sprintf("%s %d call(s) %d tokens (uncached %d, cache read %d, cache write %d, output %d)",
			s.Source, s.Calls, s.Tokens.Logical(), s.Tokens.Uncached, s.Tokens.CacheRead, s.Tokens.CacheWrite, s.Tokens.Output))
	}
	return strings.Join(parts, "; ")
}

func (a *audit) print(app *App) {
	w := app.Stdout
	fmt.Fprintf(w, "run %s: %d events\n", a.RunID, a.Events)
	if a.Recorded != nil {
		fmt.Fprintf(w, "  recorded  outcome %s; %s\n", a.Recorded.Outcome, usageText(a.Recorded.Usage))
	}
	fmt.Fprintf(w, "  derived   outcome %s; %s\n", a.Outcome, usageText(a.Usage))
	if a.Offline {
		fmt.Fprintln(w, "  model     the offline scripted test model answered these calls")
	}
	for _, m := range a.Mismatches {
		fmt.Fprintf(w, "  MISMATCH  %s\n", m)
	}
	if a.Agrees {
		fmt.Fprintln(w, "  agrees with its manifest")
	}
}
