package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/actuator"
	"github.com/spf13/cobra"
)

func newMCPCommand(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve Rote over the Model Context Protocol",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newMCPBrowserCommand(app))
	return cmd
}

func newMCPBrowserCommand(app *App) *cobra.Command {
	var task, text string
	cmd := &cobra.Command{
		Use:   "browser",
		Short: "Serve a headless browser as MCP tools over stdio",
		Long: `browser serves one browser session to an MCP client on stdin/stdout. Its tools
are Rote's typed actions (navigate, click, fill, select, check, press, hover,
extract, done, fail) and observe. Targets are the stable ids of the last
observation; every action settles the page first, resolves its target
fail-closed, and answers with what changed on the page.

The session is a run: its observations and actions are recorded in ROTE_RUNS.
Put rote record in front of it to record the MCP traffic as well.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			b, err := app.Bus(ctx)
			if err != nil {
				return err
			}
			svcs, err := startBrowserPlanes(ctx, b)
			if err != nil {
				return err
			}
			defer svcs.stop()
			return serveMCPBrowser(ctx, b, schema.TaskSpec{Name: task, Text: text}, app.Stdin, app.Stdout)
		},
	}
	cmd.Flags().StringVar(&task, "task", "", "name of the task the session performs")
	cmd.Flags().StringVar(&text, "text", "", "the task in words")
	return cmd
}

// serveMCPBrowser records a run around one MCP session on in/out.
func serveMCPBrowser(ctx context.Context, b *bus.Bus, task schema.TaskSpec, in io.Reader, out io.Writer) error {
	runID := bus.NewID()
	spec := schema.RunSpec{RunID: runID, Mode: schema.ModeAgent, Task: task}
	started := time.Now()
	if _, err := b.Publish(ctx, &schema.RunStarted{Meta: schema.Meta{ID: runID + "-started", Time: started}, RunSpec: spec}); err != nil {
		return err
	}
	tools := actuator.NewMCPBrowser(b, runID)
	serveErr := tools.Server(buildVersion()).Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	closeCtx := context.WithoutCancel(ctx)
	tools.Close(closeCtx)
	manifest := schema.Manifest{RunSpec: spec, Started: started, Finished: time.Now(), Outcome: schema.OutcomeUnverified,
		Reason: &schema.Error{Code: schema.CodeUnverified, Message: "the session ended without a verify gate"}}
	if v := tools.Verdict(); v != nil && v.Kind == schema.ActFail {
		manifest.Outcome, manifest.Reason = schema.OutcomeFailed, &schema.Error{Code: schema.CodeInternal, Message: "the agent gave up: " + v.Reason}
	}
	if _, err := b.Publish(closeCtx, &schema.RunFinished{Meta: schema.Meta{ID: runID + "-finished", Time: manifest.Finished}, Manifest: manifest}); err != nil {
		return err
	}
	if serveErr != nil && ctx.Err() == nil && serveErr != io.EOF {
		return fmt.Errorf("mcp browser: %w", serveErr)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
