package main

import (
	"fmt"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/cmd/rote/view"
	"github.com/rote-agent/rote/schema"
	"github.com/spf13/cobra"
)

// observeStats are the numbers `rote observe` reports.
type observeStats struct {
	DOMElements int     `json:"dom_elements"`
	Nodes       int     `json:"nodes"`
	Actionable  int     `json:"actionable"`
	Chars       int     `json:"chars"`
	Tokens      int     `json:"tokens"`
	CaptureMS   float64 `json:"capture_ms"`
	DistillMS   float64 `json:"distill_ms"`
	SettleMS    float64 `json:"settle_ms"`
	Bootstrap   bool    `json:"bootstrap"`
}

func newObserveCommand(app *cli.App) *cobra.Command {
	var asJSON bool
	var budget int
	cmd := &cobra.Command{
		Use:   "observe URL",
		Short: "Open URL in headless Chromium and print what a planner would read of it",
		Long: `observe loads URL, waits until it settles, and prints the distilled page: one
line per node (stable id, role, name, value and state) and its statistics.
It runs a private, throwaway bus: nothing is recorded.`,
		Args: cli.Args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			ctx := cmd.Context()
			var rep *schema.SessionObserveReply
			if err := node.CheckBrowser(app.Browser); err != nil {
				return cli.Usagef("%v", err)
			}
			if err := node.WithBrowsers(ctx, app.Browser, "rote-observe", app.Log, func(browsers *bus.Browsers) (err error) {
				rep, err = node.ObserveURL(ctx, browsers, a[0], budget)
				return err
			}); err != nil {
				return err
			}
			o := rep.Observation
			stats := observeStats{
				DOMElements: o.Stats.DOMElements, Nodes: o.Stats.Nodes, Actionable: o.Stats.Actionable, Chars: o.Stats.Chars,
				Tokens: o.Stats.Tokens, CaptureMS: view.MS(o.Stats.Capture), DistillMS: view.MS(o.Stats.Distill), SettleMS: view.MS(rep.SettleWait), Bootstrap: o.Bootstrap,
			}
			if asJSON {
				return view.JSON(app.Stdout, struct {
					Stats  observeStats          `json:"stats"`
					Nodes  []schema.ObservedNode `json:"nodes"`
					Render string                `json:"render"`
				}{stats, o.Nodes, o.Render})
			}
			fmt.Fprintln(app.Stdout, o.Render)
			fmt.Fprintf(app.Stdout, "\n%d DOM elements, %d nodes (%d actionable), %d characters, %d tokens (o200k); capture %.1f ms, distill %.1f ms, settled in %.0f ms\n",
				stats.DOMElements, stats.Nodes, stats.Actionable, stats.Chars, stats.Tokens, stats.CaptureMS, stats.DistillMS, stats.SettleMS)
			if o.Bootstrap {
				fmt.Fprintln(app.Stdout, "over the ordinary budget: this is a one-time grounded bootstrap under the emergency ceiling")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"stats": {...}, "nodes": [...], "render": "..."}`)
	cmd.Flags().IntVar(&budget, "budget", 0, "ordinary render budget in characters (default perception's)")
	return cmd
}
