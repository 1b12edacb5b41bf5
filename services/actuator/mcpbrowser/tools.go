package mcpbrowser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// Verdict is what the agent driving an MCP browser session said last:
// done or fail, with its reason.
type Verdict struct {
	Kind   schema.ActionKind
	Reason string
}

// Tools serves one browser session as MCP tools: every typed action,
// and observe. Each action answers with a one-line result and the page as
// it is afterwards, settled: a diff against the last full observation, not
// a page dump.
type Tools struct {
	browsers *bus.Browsers
	runID    string

	mu      sync.Mutex
	session *bus.BrowserSession
	verdict *Verdict
}

// New returns the tools for run runID; the browser session is opened
// from browsers on the first call.
func New(browsers *bus.Browsers, runID string) *Tools {
	return &Tools{browsers: browsers, runID: runID}
}

// Verdict returns the agent's last done or fail, or nil.
func (m *Tools) Verdict() *Verdict {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.verdict
}

// Close ends the browser session, if one was opened.
func (m *Tools) Close(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.session == nil {
		return nil
	}
	return m.session.Close(ctx)
}

func (m *Tools) open(ctx context.Context) (*bus.BrowserSession, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.session == nil {
		s, err := m.browsers.Open(ctx, m.runID)
		if err != nil {
			return nil, err
		}
		m.session = s
	}
	return m.session, nil
}

// Server returns an MCP server with the tools.
func (m *Tools) Server(version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "rote-browser", Version: version}, nil)
	for _, spec := range schema.BrowserTools() {
		s.AddTool(&mcp.Tool{Name: spec.Name, Description: spec.Description, InputSchema: json.RawMessage(spec.InputSchema)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return m.call(ctx, spec.Name, req.Params.Arguments), nil
			})
	}
	return s
}

func (m *Tools) call(ctx context.Context, tool string, arguments json.RawMessage) *mcp.CallToolResult {
	if tool == schema.ToolObserve {
		var a struct {
			Full bool `json:"full"`
		}
		if len(arguments) > 0 {
			if err := json.Unmarshal(arguments, &a); err != nil {
				return toolError("bad arguments: " + err.Error())
			}
		}
		s, err := m.open(ctx)
		if err != nil {
			return toolError(err.Error())
		}
		rep, err := s.Observe(ctx, "", !a.Full, 0)
		if err != nil {
			return toolError(err.Error())
		}
		return toolText(rep.Observation.Render)
	}
	action, err := schema.ActionFromToolCall(tool, arguments)
	if err != nil {
		return toolError("bad arguments: " + err.Error())
	}
	s, err := m.open(ctx)
	if err != nil {
		return toolError(err.Error())
	}
	if action.Kind == schema.ActDone || action.Kind == schema.ActFail {
		m.mu.Lock()
		m.verdict = &Verdict{Kind: action.Kind, Reason: action.Reason}
		m.mu.Unlock()
	}
	ev, err := s.Act(ctx, "", action)
	if err != nil {
		return toolError(err.Error())
	}
	summary := describeAction(ev)
	if action.Kind == schema.ActDone || action.Kind == schema.ActFail {
		return toolText(summary)
	}
	rep, oerr := s.Observe(ctx, "", true, 0)
	page := ""
	if oerr == nil {
		page = "\n\n" + rep.Observation.Render
	}
	if ev.Error != nil {
		return toolError(summary + page)
	}
	return toolText(summary + page)
}

// describeAction is the first line of a tool result.
func describeAction(ev *schema.BrowserAction) string {
	var b strings.Builder
	if ev.Error != nil {
		fmt.Fprintf(&b, "refused %s: %s", ev.Action.Kind, ev.Error)
		return b.String()
	}
	fmt.Fprintf(&b, "%s ok", ev.Action.Kind)
	if ev.Resolution != "" {
		fmt.Fprintf(&b, " (target by %s)", ev.Resolution)
	}
	if ev.Output != "" {
		fmt.Fprintf(&b, ":\n%s", ev.Output)
	}
	return b.String()
}

func toolText(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func toolError(s string) *mcp.CallToolResult {
	r := toolText(s)
	r.IsError = true
	return r
}
