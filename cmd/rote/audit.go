package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/runlog"
	"github.com/rote-agent/rote/cmd/rote/view"
)

func newAuditCommand(app *cli.App) *cobra.Command {
	var asJSON, store, accept bool
	cmd := &cobra.Command{
		Use:   "audit RUN | audit --store [--accept]",
		Short: "Re-derive a run's outcome and token totals from its events and compare them with its manifest",
		Long: `audit re-reads every event of RUN from ROTE_RUNS and derives, without
trusting the run's own summary: its outcome (success only with a verify that
passed; fallback only when a run continues it), its model calls and tokens by
source (the llm.call events), and whether its browser events are numbered
without a gap. Each is compared with the manifest in run.finished. Events
whose signature does not hold (forged, or copied from another run) are
mismatches; on a bus without a signing key it says signatures were not
checked. It exits
0 when everything agrees, and 1 when anything does not (each mismatch is
printed) or the run is not in the stream.

With --store it checks the run log itself: that its limits are those Rote
set and that it lost no event since Rote last looked (every start of a
process of user rote checks the same, and refuses a log that fails). With
--accept, an owner takes the log as it is: what it lost is printed and
recorded as accepted, and Rote's limits are set again.`,
		Args: func(cmd *cobra.Command, a []string) error {
			if store {
				return cli.Args(cobra.NoArgs)(cmd, a)
			}
			if accept {
				return cli.Usagef("--accept goes with --store")
			}
			return cli.Args(cobra.ExactArgs(1))(cmd, a)
		},
		RunE: func(cmd *cobra.Command, a []string) error {
			if store {
				return auditStore(cmd, app, accept, asJSON)
			}
			b, err := app.Bus(cmd.Context())
			if err != nil {
				return err
			}
			rep, err := runlog.Audit(cmd.Context(), b.Runs(), a[0])
			if err != nil {
				return err
			}
			if asJSON {
				if err := view.JSON(app.Stdout, rep); err != nil {
					return err
				}
			} else {
				view.Audit(app.Stdout, rep)
			}
			if !rep.Agrees {
				return fmt.Errorf("run %s: %d mismatch(es) with its manifest", a[0], len(rep.Mismatches))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the audit as JSON")
	cmd.Flags().BoolVar(&store, "store", false, "check the run log's limits and that it lost no event")
	cmd.Flags().BoolVar(&accept, "accept", false, "with --store: take the log as it is and set Rote's limits again (the owner's decision)")
	return cmd
}

// auditStore opens the bus, which checks the run log (refusing one that
// was changed outside Rote unless accept), and prints its state.
func auditStore(cmd *cobra.Command, app *cli.App, accept, asJSON bool) error {
	cfg, err := app.BusConfig("rote-audit")
	if err != nil {
		return err
	}
	cfg.AcceptLogChanges = accept
	b, err := app.OpenBus(cmd.Context(), cfg)
	if err != nil {
		return err
	}
	st, err := b.LogState(cmd.Context())
	if err != nil {
		return err
	}
	if asJSON {
		return view.JSON(app.Stdout, st)
	}
	w := app.Stdout
	fmt.Fprintf(w, "ROTE_RUNS: %d events (sequences %d to %d), %d of %d bytes\n", st.Events, st.FirstSeq, st.LastSeq, st.Bytes, st.MaxBytes)
	fmt.Fprintf(w, "  limits  %s\n", st.Limits)
	if accept {
		fmt.Fprintln(w, "  accepted as it is; Rote's limits set again")
	} else {
		fmt.Fprintln(w, "  as Rote set them, and no event lost since Rote last looked")
	}
	return nil
}
