//go:build !nobench

package lab

import (
	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/spf13/cobra"
)

func newDemoCommand(app *cli.App) *cobra.Command {
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
own server-side state (for row 5: no vendor registered, none imported). The
model is ROTE_LLM_BASE_URL, else the offline scripted model, and the table
says which. It exits non-zero if any outcome is not what it should be.`,
		Args: cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			b, err := app.Bus(ctx)
			if err != nil {
				return err
			}
			cfg, err := app.NodeConfig()
			if err != nil {
				return err
			}
			l, err := Open(ctx, b, suite.SuitePortal, cfg)
			if err != nil {
				return err
			}
			defer l.Close()
			return Demo(ctx, l, app.DataDir, app.Stdout)
		},
	}
}
