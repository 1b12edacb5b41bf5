package main

import (
	"cmp"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/spf13/cobra"
)

func newRootCommand(app *cli.App, suites suiteSupport) *cobra.Command {
	root := &cobra.Command{
		Use:   "rote",
		Short: "Trajectory memoization for AI agents",
		Long: `Rote records successful agent runs at the tool-call boundary, distills them
into parameterized, assertion-gated playbooks, and replays them next time with
no model in the loop for deterministic steps, verifying every step and the
final state.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cli.Args(cobra.NoArgs),
		RunE:          func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SetFlagErrorFunc(cli.FlagErrors)
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) {
		// A flag is on the command line, which every local user reads.
		if u, err := url.Parse(app.NATSURL); err == nil && cmd.Flags().Changed("nats") {
			if _, ok := u.User.Password(); ok {
				fmt.Fprintln(app.Stderr, "rote: warning: the password in --nats is seen by every local user (ps, /proc/PID/cmdline); give the URL in $ROTE_NATS_URL instead")
			}
		}
	}
	dataDefault := os.Getenv("ROTE_DATA")
	if dataDefault == "" {
		dataDefault = ".rote"
	}
	root.PersistentFlags().StringVar(&app.DataDir, "data", dataDefault, "embedded JetStream store directory ($ROTE_DATA)")
	app.ModelLatency = os.Getenv("ROTE_SCRIPTED_LATENCY")
	root.PersistentFlags().StringVar(&app.NATSURL, "nats", os.Getenv("ROTE_NATS_URL"), "external NATS URL; empty runs an embedded server ($ROTE_NATS_URL)")
	root.PersistentFlags().StringVar(&app.NATSCA, "nats-ca", os.Getenv("ROTE_NATS_CA"), "CA certificate of the NATS servers, for a tls:// URL ($ROTE_NATS_CA)")
	root.PersistentFlags().StringVar(&app.Browser, "browser", os.Getenv("ROTE_BROWSER"), "a running browser to open sessions in: the DevTools address (ws://...) of a Chromium you started, or the unix:/PATH another rote process shares; empty launches one over a pipe ($ROTE_BROWSER)")
	replicas, err := strconv.Atoi(cmp.Or(os.Getenv("ROTE_NATS_REPLICAS"), "1"))
	if err != nil {
		replicas = -1 // refused by bus.Open, which says what it wants
	}
	root.PersistentFlags().IntVar(&app.NATSReplicas, "nats-replicas", replicas, "replicas of Rote's streams and buckets on an external cluster, 1 or 3 ($ROTE_NATS_REPLICAS)")
	root.AddCommand(
		newVersionCommand(app),
		newServeCommand(app),
		newRunsCommand(app),
		newAuditCommand(app),
		newRecordCommand(app),
		newObserveCommand(app),
		newCompareCommand(app),
		newMCPCommand(app),
		newFixtureCommand(app),
		newPlaybooksCommand(app),
		newReplayCommand(app),
		newRunCommand(app, suites),
		newDistillCommand(app),
		newPromoteCommand(app),
		newLearnCommand(app),
		newMemoryCommand(app),
	)
	if suites.commands != nil {
		root.AddCommand(suites.commands(app)...)
	}
	root.SetHelpCommand(newHelpCommand())
	return root
}

// newHelpCommand is cobra's help command, but a topic it does not know
// is a usage error, as an unknown command is.
func newHelpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				return cli.Usagef("unknown help topic %q (see rote --help)", strings.Join(args, " "))
			}
			return cmd.Help()
		},
	}
}
