package main

import (
	"context"
	"os"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/recorder"
	"github.com/rote-agent/rote/services/replay"
	"github.com/rote-agent/rote/services/replay/mcpbrowser"
	"github.com/spf13/cobra"
)

func newMCPCommand(app *cli.App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve Rote over the Model Context Protocol",
		Args:  cli.Args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newMCPBrowserCommand(app))
	return cmd
}

func newMCPBrowserCommand(app *cli.App) *cobra.Command {
	var task, text string
	var offer bool
	cmd := &cobra.Command{
		Use:   "browser",
		Short: "Serve a headless browser as MCP tools over stdio",
		Long: `browser serves one browser session to an MCP client on stdin/stdout. Its tools
are Rote's typed actions (navigate, click, fill, select, check, press, hover,
extract, done, fail) and observe. Targets are the stable ids of the last
observation; every action settles the page first, resolves its target
fail-closed, and answers with what changed on the page.

The session is a run: its observations and actions are recorded in ROTE_RUNS.
Put rote record in front of it to record the MCP traffic as well. The value
of every $ROTE_SECRET_<NAME> in its environment (rote record --secret sets
them) is shown as {{name}} in the pages and actions it records and returns,
once an action typed it.

The playbooks promoted for the site the page is on (learned from browser runs)
are offered as tools too, one each, named rote_NAME: calling one replays it on
this page and answers with what it verified, or where and why it stopped with
the page as it is. The list changes, and the client is told, when the page
reaches another site or a playbook is promoted. Under rote record the recorder
offers the playbooks learned through it instead. --offer=false turns this off.`,
		Args: cli.Args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			recording := os.Getenv(recorder.EnvRecording)
			offer = offer && recording == ""
			roles := node.Browser
			if offer {
				roles = node.Tasks // a replay's slot and judgment steps ask the planner
			}
			n, err := app.StartNode(ctx, roles...)
			if err != nil {
				return err
			}
			defer n.Close()
			b := n.Bus()
			var playbooks *mcpbrowser.Playbooks
			if offer {
				playbooks = &mcpbrowser.Playbooks{Store: b.Playbooks(), Log: app.Log, Replay: sessionReplay(n)}
			}
			// The run is locked while it is served: if this process is
			// killed, the next rote record or rote mcp browser marks it
			// aborted instead of leaving it running forever.
			runID := bus.NewID()
			lock, err := recorder.LockRun(app.DataDir, runID)
			if err != nil {
				return err
			}
			defer lock.Release()
			if aborted, err := recorder.Recover(ctx, b.Runs(), app.DataDir, time.Now()); err != nil {
				app.Log.Warn("could not close the runs of dead sessions", "err", err)
			} else if len(aborted) > 0 {
				app.Log.Info("marked the runs of dead sessions aborted", "runs", aborted)
			}
			return mcpbrowser.Serve(ctx, b.Browsers(), b.Runs(), mcpbrowser.Session{RunID: runID, Task: schema.TaskSpec{Name: task, Text: text},
				Version: buildVersion(), Secrets: schema.SecretsFromEnv(os.Environ()), Parent: recording, Playbooks: playbooks}, app.Stdin, app.Stdout)
		},
	}
	cmd.Flags().StringVar(&task, "task", "", "name of the task the session performs")
	cmd.Flags().StringVar(&text, "text", "", "the task in words")
	cmd.Flags().BoolVar(&offer, "offer", true, "offer the playbooks promoted for the page's site as tools")
	return cmd
}

// sessionReplay replays an offered playbook with n's executor on the
// session rote mcp browser serves, which stays open after it.
func sessionReplay(n *node.Node) func(context.Context, replay.PlaybookTool, map[string]string, *bus.BrowserSession, string) (*schema.ReplayResult, error) {
	return func(ctx context.Context, t replay.PlaybookTool, params map[string]string, s *bus.BrowserSession, base string) (*schema.ReplayResult, error) {
		return n.Executor().Replay(ctx, replay.Request{Playbook: t.Playbook, Version: t.Version, Params: params, Open: node.SessionBrowserOpener(s, base)})
	}
}
