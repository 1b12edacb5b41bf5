package main

import (
	"cmp"
	"fmt"
	"net/url"
	"strings"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/schema"
	"github.com/spf13/cobra"
)

func newServeCommand(app *cli.App) *cobra.Command {
	var roleFlag, listen, httpAddr, logLevel string
	var logJSON bool
	var browsers int
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run Rote's services: all in one process, or one role against --nats",
		Long: `serve runs services until interrupted. With --role all (the default) every
role runs in this process, on the embedded NATS server (which listens on
--listen so that other processes can join) or on --nats. With --role NAME
only that role runs. The recorder is not a server: it runs per MCP session,
as rote record. The planner's model is ROTE_LLM_BASE_URL, else the offline
scripted model, and serve says which.

Services log to stderr (--log-level, --log-json), with the run and task
they work on as attributes.`,
		Args: cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			roles, err := node.ServeRoles(roleFlag)
			if err != nil {
				return cli.Usagef("%v", err)
			}
			if app.Log, err = node.NewLogger(app.Stderr, logLevel, logJSON); err != nil {
				return cli.Usagef("%v", err)
			}
			ctx := cmd.Context()
			cfg, err := app.BusConfig("rote-serve-" + roleFlag)
			if err != nil {
				return err
			}
			cfg.Listen = listen
			if len(roles) == 1 {
				// Joining another process's server: as the role's user.
				cfg.Role = roles[0]
			} else if u, err := url.Parse(app.NATSURL); err == nil && u.User != nil && bus.IsRole(u.User.Username()) {
				return cli.Usagef("--role %s runs every role, so it connects as user rote, not as the role user %s", roleFlag, u.User.Username())
			}
			b, err := app.OpenBus(ctx, cfg)
			if err != nil {
				return err
			}
			// say reports the process's state: a log record with
			// --log-json, so that stderr is JSON throughout, else a line.
			say := func(msg string) {
				if logJSON {
					app.Log.Info(msg)
					return
				}
				fmt.Fprintln(app.Stderr, "rote serve: "+msg)
			}
			if app.NATSURL == "" && b.Server() == nil {
				// Another rote process owns --data and runs its server
				// (bus.Open refused --listen in that case).
				app.Log.Warn("the data directory is served by another rote process: when that one stops, this one (or another that joined it) takes the directory over", "data", app.DataDir, "nats", b.ClientURL(), "user", cmp.Or(cfg.Role, "rote"))
			}
			ncfg, err := app.NodeConfig(roles...)
			if err != nil {
				return err
			}
			ncfg.Browsers, ncfg.ClaimTasks = browsers, true
			var probe *node.Probe
			if httpAddr != "" {
				probe = node.NewProbe(b, roleFlag)
				addr, err := probe.Serve(ctx, httpAddr)
				if err != nil {
					return err
				}
				ncfg.TaskDone = probe.TaskDone
				say(fmt.Sprintf("health on http://%s/healthz, readiness /readyz, metrics /metrics", addr))
			}
			n, err := node.New(ncfg, b)
			if err != nil {
				return err
			}
			if err := n.Run(ctx); err != nil {
				return err
			}
			if m := n.Model(); m != nil {
				suites := "suite tasks (task.suite) and free-text tasks"
				if ncfg.Suites == nil {
					suites = "free-text tasks only: " + errNoSuites
				}
				say(fmt.Sprintf("the planner's model is %s; it claims tasks on %s: %s", m.Label, schema.SubjectTasks, suites))
			}
			if probe != nil {
				probe.Ready()
			}
			say(fmt.Sprintf("running %s on %s", strings.Join(roles, ", "), b.ClientURL()))
			return n.Wait()
		},
	}
	cmd.Flags().StringVar(&roleFlag, "role", "all", "which service to run: all, "+strings.Join(node.Roles, ", ")+" (the recorder runs per session: rote record)")
	cmd.Flags().StringVar(&listen, "listen", "", "client address of the embedded NATS server, host:port (default 127.0.0.1 on a free port)")
	cmd.Flags().IntVar(&browsers, "browsers", 1, "how many Chromium processes the actuator may run")
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve /healthz, /readyz and Prometheus /metrics on this address, e.g. :9090 (default: none)")
	cmd.Flags().StringVar(&logLevel, "log-level", "info", "what services log: debug, info, warn or error")
	cmd.Flags().BoolVar(&logJSON, "log-json", false, "log one JSON object a line instead of text")
	return cmd
}
