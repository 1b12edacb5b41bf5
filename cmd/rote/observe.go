package main

import (
	"context"
	"fmt"
	"os"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/node"
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

func newObserveCommand(app *App) *cobra.Command {
	var asJSON bool
	var budget int
	cmd := &cobra.Command{
		Use:   "observe URL",
		Short: "Open URL in headless Chromium and print what a planner would read of it",
		Long: `observe loads URL, waits until it settles, and prints the distilled page: one
line per node (stable id, role, name, value and state) and its statistics.
It runs a private, throwaway bus: nothing is recorded.`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			ctx := cmd.Context()
			var rep *schema.SessionObserveReply
			if err := withBrowsers(ctx, app, "rote-observe", func(browsers *bus.Browsers) (err error) {
				rep, err = observeURL(ctx, browsers, a[0], budget)
				return err
			}); err != nil {
				return err
			}
			o := rep.Observation
			stats := observeStats{
				DOMElements: o.Stats.DOMElements, Nodes: o.Stats.Nodes, Actionable: o.Stats.Actionable, Chars: o.Stats.Chars,
				Tokens: o.Stats.Tokens, CaptureMS: ms(o.Stats.Capture), DistillMS: ms(o.Stats.Distill), SettleMS: ms(rep.SettleWait), Bootstrap: o.Bootstrap,
			}
			if asJSON {
				return writeJSON(app, struct {
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

// withBrowsers runs f with the browsers of a private, throwaway bus (a
// store that keeps nothing, so no secret key either), in this process.
func withBrowsers(ctx context.Context, app *App, name string, f func(*bus.Browsers) error) error {
	if err := node.CheckBrowser(app.Browser); err != nil {
		return usageError("%v", err)
	}
	dir, err := os.MkdirTemp("", name+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	b, err := bus.Open(ctx, bus.Config{DataDir: dir, Name: name, Log: app.Log})
	if err != nil {
		return err
	}
	defer b.Close()
	n, err := node.New(node.Config{Roles: node.Browser, SecretKey: []byte(name + " keeps nothing"), Log: app.Log, Browser: app.Browser}, b)
	if err != nil {
		return err
	}
	if err := n.Run(ctx); err != nil {
		return err
	}
	defer n.Close()
	return f(b.Browsers())
}

// observeURL opens a session, loads url and observes it.
func observeURL(ctx context.Context, browsers *bus.Browsers, url string, budget int) (*schema.SessionObserveReply, error) {
	s, err := browsers.Open(ctx, bus.NewID())
	if err != nil {
		return nil, err
	}
	defer s.Close(context.WithoutCancel(ctx))
	ev, err := s.Act(ctx, "", schema.Action{Kind: schema.ActNavigate, URL: url})
	if err != nil {
		return nil, err
	}
	if ev.Error != nil {
		return nil, ev.Error
	}
	return s.Observe(ctx, "", false, budget)
}
