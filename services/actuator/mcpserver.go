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

const targetProps = `"target": {"type": "string", "description": "The element's id from the last observation (e.g. k3f9q2)"},
"role": {"type": "string", "description": "The element's role, when no id is known"},
"name": {"type": "string", "description": "The element's accessible name, with role"},
"near": {"type": "string", "description": "Text near the element (a row key, a heading) that tells look-alikes apart"}`

// toolSpecs are the tools: name, description, input schema.
var toolSpecs = []struct{ name, description, schema string }{
	{"navigate", "Load a URL (absolute, or relative to the current page).", `{"type":"object","properties":{"url":{"type":"string"}},"required":["url"],"additionalProperties":false}`},
	{"click", "Click an element.", `{"type":"object","properties":{` + targetProps + `},"additionalProperties":false}`},
	{"fill", "Replace the text of a field.", `{"type":"object","properties":{` + targetProps + `,"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`},
	{"select", "Choose an option of a select by its label or value.", `{"type":"object","properties":{` + targetProps + `,"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`},
	{"check", "Check (or with checked=false, uncheck) a checkbox, radio or switch.", `{"type":"object","properties":{` + targetProps + `,"checked":{"type":"boolean"}},"additionalProperties":false}`},
	{"press", "Press a key (Enter, Tab, Escape, ArrowDown, ... or one character), on an element when given.", `{"type":"object","properties":{` + targetProps + `,"key":{"type":"string"}},"required":["key"],"additionalProperties":false}`},
	{"hover", "Move the mouse over an element.", `{"type":"object","properties":{` + targetProps + `},"additionalProperties":false}`},
	{"extract", "Read an element's text or value, or the page's main text with no element.", `{"type":"object","properties":{` + targetProps + `},"additionalProperties":false}`},
	{"observe", "Read the page: the whole page with full=true, else what changed since the last whole page.", `{"type":"object","properties":{"full":{"type":"boolean"}},"additionalProperties":false}`},
	{"done", "Say the task is done, and why.", `{"type":"object","properties":{"reason":{"type":"string"}},"additionalProperties":false}`},
	{"fail", "Say the task cannot be done, and why.", `{"type":"object","properties":{"reason":{"type":"string"}},"required":["reason"],"additionalProperties":false}`},
}

// toolArgs is the union of the tools' arguments.
type toolArgs struct {
	URL     string `json:"url"`
	Target  string `json:"target"`
	Role    string `json:"role"`
	Name    string `json:"name"`
	Near    string `json:"near"`
	Value   string `json:"value"`
	Checked *bool  `json:"checked"`
	Key     string `json:"key"`
	Full    bool   `json:"full"`
	Reason  string `json:"reason"`
}

// Server returns an MCP server with the tools.
func (m *MCPBrowser) Server(version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "rote-browser", Version: version}, nil)
	for _, spec := range toolSpecs {
		s.AddTool(&mcp.Tool{Name: spec.name, Description: spec.description, InputSchema: json.RawMessage(spec.schema)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a toolArgs
				if len(req.Params.Arguments) > 0 {
					if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
						return toolError("bad arguments: " + err.Error()), nil
					}
				}
				return m.call(ctx, spec.name, a), nil
			})
	}
	return s
}

func (m *MCPBrowser) call(ctx context.Context, tool string, a toolArgs) *mcp.CallToolResult {
	s, err := m.open(ctx)
	if err != nil {
		return toolError(err.Error())
	}
	if tool == "observe" {
		rep, err := s.Observe(ctx, "", !a.Full, 0)
		if err != nil {
			return toolError(err.Error())
		}
		return toolText(rep.Observation.Render)
	}
	action := schema.Action{Kind: schema.ActionKind(tool), URL: a.URL, Value: a.Value, Reason: a.Reason}
	if a.Target != "" || a.Role != "" || a.Name != "" || a.Near != "" {
		action.Target = &schema.Target{ID: a.Target, Role: a.Role, Name: a.Name, Near: a.Near}
	}
	switch action.Kind {
	case schema.ActCheck:
		if a.Checked != nil && !*a.Checked {
			action.Value = "false"
		}
	case schema.ActPress:
		action.Value = a.Key
	case schema.ActDone, schema.ActFail:
		m.mu.Lock()
		m.verdict = &MCPVerdict{Kind: action.Kind, Reason: a.Reason}
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
