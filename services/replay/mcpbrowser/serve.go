package mcpbrowser

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/replay"
)

// Session is one MCP session served as a run.
type Session struct {
	RunID   string
	Task    schema.TaskSpec
	Version string // the server's, as initialize reports it
	// Secrets (name to value) are shown as {{name}} in every page and
	// action the run records and the client reads, once an action typed
	// them (the client types the values themselves).
	Secrets map[string]string
	// Parent is the run of the recording this session is served under,
	// if any: its record of the session.
	Parent string
	// Playbooks, when set, offers the playbooks of the site the page is
	// on as tools.
	Playbooks *Playbooks
}

// Serve serves one MCP session on in and out as run s.RunID: the run
// starts when the session does, its browser session is claimed from
// browsers on the first tool call, and it finishes when the client goes
// away, unverified (nothing proved its effect) unless the agent gave up
// (failed).
func Serve(ctx context.Context, browsers *bus.Browsers, runs *bus.RunLog, s Session, in io.Reader, out io.Writer) error {
	runID := s.RunID
	spec := schema.RunSpec{RunID: runID, Mode: schema.ModeAgent, Task: s.Task, Parent: s.Parent}
	started := time.Now()
	if _, err := runs.Publish(ctx, &schema.RunStarted{Meta: schema.Meta{ID: runID + "-started", Time: started}, RunSpec: spec}); err != nil {
		return err
	}
	tools := New(browsers, runID, s.Secrets)
	if s.Playbooks != nil {
		tools.playbooks, tools.offers = s.Playbooks, &replay.Offer{Store: s.Playbooks.Store}
	}
	gate := newSerial(in, out)
	server := tools.Server(s.Version)
	watch, stop := context.WithCancel(ctx)
	defer stop()
	go tools.watch(watch)
	serveErr := server.Run(ctx, &mcp.IOTransport{Reader: gate, Writer: gate})
	closeCtx := context.WithoutCancel(ctx)
	tools.Close(closeCtx)
	manifest := schema.Manifest{RunSpec: spec, Started: started, Finished: time.Now(), Outcome: schema.OutcomeUnverified,
		Reason: &schema.Error{Code: schema.CodeUnverified, Message: "the session ended without a verify gate"}, ToolCalls: tools.Counts()}
	if v := tools.Verdict(); v != nil && v.Kind == schema.ActFail {
		manifest.Outcome, manifest.Reason = schema.OutcomeFailed, &schema.Error{Code: schema.CodeInternal, Message: "the agent gave up: " + v.Reason}
	}
	if _, err := runs.Publish(closeCtx, &schema.RunFinished{Meta: schema.Meta{ID: runID + "-finished", Time: manifest.Finished}, Manifest: manifest}); err != nil {
		return err
	}
	if serveErr != nil && ctx.Err() == nil && serveErr != io.EOF {
		return fmt.Errorf("mcp browser: %w", serveErr)
	}
	return nil
}
