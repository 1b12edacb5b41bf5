//go:build !nobench

package lab

import (
	"fmt"
	"net"

	"github.com/rote-agent/rote/bench/scripted"
	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/spf13/cobra"
)

func newModelCommand(app *cli.App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "model",
		Short: "Serve the offline scripted test model",
		Args:  cli.Args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newModelServeCommand(app))
	return cmd
}

func newModelServeCommand(app *cli.App) *cobra.Command {
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
		Args: cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !scriptedFlag {
				return cli.Usagef("only the scripted offline model is served here: rote model serve --scripted (for a real model, set ROTE_LLM_BASE_URL)")
			}
			offline, err := Offline(latency)
			if err != nil {
				return cli.Usagef("%v", err)
			}
			m, err := offline()
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "%s on http://%s/v1\n", m.Label, ln.Addr())
			return node.ServeUntilDone(cmd.Context(), ln, m.Handler)
		},
	}
	cmd.Flags().BoolVar(&scriptedFlag, "scripted", false, "serve the scripted offline model (the only one served)")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8081", "address to listen on")
	cmd.Flags().StringVar(&latency, "latency", app.ModelLatency, "simulated latency: none, hosted, or first=1s,prefill=5000,decode=60 ($ROTE_SCRIPTED_LATENCY)")
	return cmd
}
