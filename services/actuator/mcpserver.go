package actuator

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

// MCPVerdict is what the agent driving an MCP browser session said last:
// done or fail, with its reason.
type MCPVerdict struct {
	Kind   schema.ActionKind
	Reason string
}

// MCPBrowser serves one browser session as MCP tools: every typed action,
// and observe. Each action answers with a one-line result and the page as
// it is afterwards, settled: a diff against the last full observation, not
// a page dump.
type MCPBrowser struct {
	bus   *bus.Bus
	runID string

	mu      sync.Mutex
	session *bus.BrowserSession
	verdict *MCPVerdict
}

// NewMCPBrowser returns the tools for run runID; the browser session is
// opened on the first call.
func NewMCPBrowser(b *bus.Bus, runID string) *MCPBrowser {
	return &MCPBrowser{bus: b, runID: runID}
}

// Verdict returns the agent's last done or fail, or nil.
func (m *MCPBrowser) Verdict() *MCPVerdict {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.verdict
}

// Close ends the browser session, if one was opened.
func (m *MCPBrowser) Close(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.session == nil {
		return nil
	}
	return m.session.Close(ctx)
}

func (m *MCPBrowser) open(ctx context.Context) (*bus.BrowserSession, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.session == nil {
		s, err := m.bus.OpenBrowser(ctx, m.runID)
		if err != nil {
			return nil, err
		}
		m.session = s
	}
	return m.session, nil
}

// Server returns an MCP server with the tools.
func (m *MCPBrowser) Server(version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "rote-browser", Version: version}, nil)
	for _, spec := range schema.BrowserTools() {
		s.AddTool(&mcp.Tool{Name: spec.Name, Description: spec.Description, InputSchema: json.RawMessage(spec.InputSchema)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return m.call(ctx, spec.Name, req.Params.Arguments), nil
			})
	}
	return s
}

func (m *MCPBrowser) call(ctx context.Context, tool string, arguments json.RawMessage) *mcp.CallToolResult {
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
		m.verdict = &MCPVerdict{Kind: action.Kind, Reason: action.Reason}
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
