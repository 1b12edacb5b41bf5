package main

import (
	"context"
	"fmt"
	"net"

	"github.com/rote-agent/rote/bench/scripted"
	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/services/matcher"
	"github.com/rote-agent/rote/services/planner"
	"github.com/spf13/cobra"
)

func newModelCommand(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "model",
		Short: "Serve the offline scripted test model",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newModelServeCommand(app))
	return cmd
}

func newModelServeCommand(app *App) *cobra.Command {
	var addr, latency string
	var scriptedFlag bool
	cmd := &cobra.Command{
		Use:   "serve --scripted",
		Short: "Serve the offline scripted model over the OpenAI chat completions API",
		Long: `serve --scripted runs the offline test model: an OpenAI-compatible server
(POST /v1/chat/completions, GET /v1/models) whose answers come from the
frozen suite's oracles, which read the observation text of each request, and
whose token usage is counted with o200k_base over the real request, with
prompt caching by the providers' rules. It is no language model: it knows the
suite tasks only. Point Rote at it with
  ROTE_LLM_BASE_URL=http://ADDR/v1
It answers at once unless --latency (or $ROTE_SCRIPTED_LATENCY) gives it a
simulated latency: "hosted" (` + scripted.HostedLatency.String() + `) or
first=DURATION,prefill=TOKENS_PER_S,decode=TOKENS_PER_S.
Every output that used it says "` + scripted.Label + `".`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !scriptedFlag {
				return usageError("only the scripted offline model is served here: rote model serve --scripted (for a real model, set ROTE_LLM_BASE_URL)")
			}
			srv, label, err := scriptedServer(latency)
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "%s on http://%s/v1\n", label, ln.Addr())
			return serveUntilDone(cmd.Context(), ln, srv)
		},
	}
	cmd.Flags().BoolVar(&scriptedFlag, "scripted", false, "serve the scripted offline model (the only one served)")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8081", "address to listen on")
	cmd.Flags().StringVar(&latency, "latency", app.ModelLatency, "simulated latency: none, hosted, or first=1s,prefill=5000,decode=60 ($ROTE_SCRIPTED_LATENCY)")
	return cmd
}

// model is the LLM a command uses and how to name it.
type model struct {
	llm   *planner.LLM
	label string
	stop  func()
}

// openModel returns the model ROTE_LLM_* names, or, when none is set, the
// offline scripted model served in this process on loopback, answering
// with the simulated latency latency (scripted.ParseLatency's form).
func openModel(b *bus.Bus, latency string) (*model, error) {
	if cfg, ok := planner.LLMConfigFromEnv(); ok {
		llm := planner.NewLLM(cfg, b)
		return &model{llm: llm, label: llm.Model() + " at " + cfg.BaseURL, stop: func() {}}, nil
	}
	srv, label, err := scriptedServer(latency)
	if err != nil {
		return nil, err
	}
	base, stop, err := serveLoopback(srv)
	if err != nil {
		return nil, err
	}
	llm := planner.NewLLM(planner.LLMConfig{BaseURL: base + "/v1", APIKey: "offline", Model: scripted.ModelName}, b)
	return &model{llm: llm, label: label + ", ROTE_LLM_BASE_URL unset", stop: stop}, nil
}

// scriptedServer is the offline model answering the suite's tasks with
// the simulated latency latency, and its label.
func scriptedServer(latency string) (*scripted.Server, string, error) {
	l, err := scripted.ParseLatency(latency)
	if err != nil {
		return nil, "", usageError("%v", err)
	}
	srv := scripted.NewServer(suite.Oracle())
	srv.SetLatency(l)
	label := scripted.Label
	if !l.IsZero() {
		label += ", " + l.Describe()
	}
	return srv, label, nil
}

// startPlanner opens the model (openModel) and runs the planner's
// endpoints with it on b (for the slot, judgment and repair steps of
// replays, and the matcher's bindings), and the matcher. stop ends them.
func startPlanner(ctx context.Context, app *App, b *bus.Bus) (m *model, stop func(), err error) {
	if m, err = openModel(b, app.ModelLatency); err != nil {
		return nil, nil, err
	}
	svcs, err := startServices(ctx, planner.NewService(b, m.llm), matcher.New(matcher.Config{}, b))
	if err != nil {
		m.stop()
		return nil, nil, err
	}
	return m, func() { svcs.stop(); m.stop() }, nil
}

// stack is what does tasks: the browser planes, the planner and matcher
// with their model, the secret key, and the control loop over them.
type stack struct {
	model      *model
	key        []byte
	agent      *planner.Agent
	controller *planner.Controller
	stop       func()
}

// startStack starts a stack on b.
func startStack(ctx context.Context, app *App, b *bus.Bus) (*stack, error) {
	key, err := secretKey(app.DataDir)
	if err != nil {
		return nil, err
	}
	planes, err := startBrowserPlanes(ctx, b)
	if err != nil {
		return nil, err
	}
	m, stopPlanner, err := startPlanner(ctx, app, b)
	if err != nil {
		planes.stop()
		return nil, err
	}
	agent := planner.NewAgent(b, m.llm, key)
	c := planner.NewController(b, agent, sessionReplayer(b, key))
	return &stack{model: m, key: key, agent: agent, controller: c, stop: func() { stopPlanner(); planes.stop() }}, nil
}
