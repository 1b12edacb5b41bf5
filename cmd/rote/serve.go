package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/actuator"
	"github.com/rote-agent/rote/services/distiller"
	"github.com/rote-agent/rote/services/matcher"
	"github.com/rote-agent/rote/services/perception"
	"github.com/rote-agent/rote/services/planner"
	"github.com/spf13/cobra"
)

// serveOptions are the flags of rote serve that shape the services.
type serveOptions struct {
	browsers int
	latency  string    // the offline scripted model's simulated latency
	key      []byte    // the secret key the planner's runs digest secrets with
	log      io.Writer // where roles say how they are set up
	// taskDone is told how each claimed task ended (the metrics).
	taskDone func(planner.TaskDone)
}

// role is one of the six services: how to build it, or, for a role that
// runs per session rather than as a server, how to run it instead.
type role struct {
	name       string
	build      func(*bus.Bus, serveOptions) ([]service, error)
	perSession string
}

// one is a role made of a single service.
func one(svc service, err error) ([]service, error) {
	if err != nil {
		return nil, err
	}
	return []service{svc}, nil
}

var roles = []role{
	{name: "perception", build: func(b *bus.Bus, _ serveOptions) ([]service, error) { return one(perception.New(perception.Config{}, b)) }},
	{name: "planner", build: func(b *bus.Bus, o serveOptions) ([]service, error) {
		m, err := openModel(b, o.latency)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(o.log, "rote serve: the planner's model is %s; it claims tasks on %s\n", m.label, schema.SubjectTasks)
		agent := planner.NewAgent(b, m.llm, o.key)
		tasks := planner.NewTaskWorker(b, planner.NewController(b, agent, sessionReplayer(b, o.key)), taskResolver(b))
		tasks.Done = o.taskDone
		return []service{planner.NewService(b, m.llm), tasks}, nil
	}},
	{name: "actuator", build: func(b *bus.Bus, o serveOptions) ([]service, error) {
		return one(actuator.New(actuator.Config{Browsers: o.browsers}, b))
	}},
	{name: "recorder", perSession: "the recorder runs once per MCP session, in front of the server: rote record -- COMMAND"},
	{name: "distiller", build: func(b *bus.Bus, _ serveOptions) ([]service, error) { return one(distiller.NewService(b), nil) }},
	{name: "matcher", build: func(b *bus.Bus, _ serveOptions) ([]service, error) { return one(matcher.New(matcher.Config{}, b), nil) }},
}

func newServeCommand(app *App) *cobra.Command {
	var roleFlag, listen, httpAddr string
	var opts serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run Rote's services: all in one process, or one role against --nats",
		Long: `serve runs services until interrupted. With --role all (the default) every
role runs in this process, on the embedded NATS server (which listens on
--listen so that other processes can join) or on --nats. With --role NAME
only that role runs. The recorder is not a server: it runs per MCP session,
as rote record. The planner's model is ROTE_LLM_BASE_URL, else the offline
scripted model, and serve says which.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var names []string
			for _, r := range roles {
				names = append(names, r.name)
			}
			if roleFlag != "all" && !slices.Contains(names, roleFlag) {
				return usageError("unknown role %q: want all, %s", roleFlag, strings.Join(names, ", "))
			}
			var run []role
			for _, r := range roles {
				switch {
				case roleFlag == r.name && r.perSession != "":
					return usageError("%s", r.perSession)
				case (roleFlag == "all" || roleFlag == r.name) && r.perSession == "":
					run = append(run, r)
				}
			}
			cfg := app.busConfig("rote-serve-" + roleFlag)
			cfg.Listen = listen
			b, err := bus.Open(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			app.bus = b
			opts.log, opts.latency = app.Stderr, app.ModelLatency
			var probe *ops
			if httpAddr != "" {
				probe = newOps(b, roleFlag)
				addr, err := probe.serve(cmd.Context(), httpAddr)
				if err != nil {
					return err
				}
				opts.taskDone = probe.taskDone
				fmt.Fprintf(app.Stderr, "rote serve: health on http://%s/healthz, readiness /readyz, metrics /metrics\n", addr)
			}
			if opts.key, err = secretKey(app.DataDir); err != nil {
				return err
			}
			var list []service
			for _, r := range run {
				svcs, err := r.build(b, opts)
				if err != nil {
					return err
				}
				list = append(list, svcs...)
			}
			svcs, err := startServices(cmd.Context(), list...)
			if err != nil {
				return err
			}
			if probe != nil {
				probe.ready.Store(true)
			}
			var started []string
			for _, r := range run {
				started = append(started, r.name)
			}
			fmt.Fprintf(app.Stderr, "rote serve: running %s on %s\n", strings.Join(started, ", "), b.ClientURL())
			return svcs.wait()
		},
	}
	cmd.Flags().StringVar(&roleFlag, "role", "all", "which service to run: all, perception, planner, actuator, recorder, distiller, matcher")
	cmd.Flags().StringVar(&listen, "listen", "", "client address of the embedded NATS server, host:port (default 127.0.0.1 on a free port)")
	cmd.Flags().IntVar(&opts.browsers, "browsers", 1, "how many Chromium processes the actuator may run")
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve /healthz, /readyz and Prometheus /metrics on this address, e.g. :9090 (default: none)")
	return cmd
}
