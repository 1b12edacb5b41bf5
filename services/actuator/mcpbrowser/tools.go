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
	secrets  map[string]string

	mu      sync.Mutex
	session *bus.BrowserSession
	verdict *Verdict
}

// New returns the tools for run runID; the browser session is opened
// from browsers on the first call, masking secrets (Session.Secrets).
func New(browsers *bus.Browsers, runID string, secrets map[string]string) *Tools {
	return &Tools{browsers: browsers, runID: runID, secrets: secrets}
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
		s.Secrets = m.secrets
		m.session = s
	}
	return m.session, nil
}

// Server returns an MCP server with the tools. The action tools take,
// beyond the browser's own arguments, an optional contract: what the
// control must be (tag, input type, form action and method, href). An
// action whose control is something else now is refused with
// contract_changed or control_changed and nothing is sent.
func (m *Tools) Server(version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "rote-browser", Version: version}, nil)
	for _, spec := range schema.BrowserTools() {
		s.AddTool(&mcp.Tool{Name: spec.Name, Description: spec.Description, InputSchema: json.RawMessage(withContract(spec))},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return m.call(ctx, spec.Name, req.Params.Arguments), nil
			})
	}
	return s
}

// contractSchema is the schema of the contract argument.
const contractSchema = `{"type":"object","description":"What the control must be; the action is refused (contract_changed, control_changed) when it is not. Each result's control line says what the control was.",` +
	`"properties":{"tag":{"type":"string"},"input_type":{"type":"string"},"form_action":{"type":"string"},"form_method":{"type":"string"},"href":{"type":"string"}},"additionalProperties":false}`

// withContract adds the contract argument to an action tool that takes a
// target.
func withContract(spec schema.ToolSpec) []byte {
	var s map[string]any
	if err := json.Unmarshal(spec.InputSchema, &s); err != nil {
		return spec.InputSchema
	}
	props, _ := s["properties"].(map[string]any)
	if _, ok := props["target"]; !ok || spec.Name == "extract" {
		return spec.InputSchema
	}
	var c any
	_ = json.Unmarshal([]byte(contractSchema), &c)
	props["contract"] = c
	b, _ := json.Marshal(s)
	return b
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
		return toolText(pageLines(rep.Observation) + rep.Observation.Render)
	}
	arguments, contract, err := splitContract(arguments)
	if err != nil {
		return toolError("bad arguments: " + err.Error())
	}
	action, err := schema.ActionFromToolCall(tool, arguments)
	if err != nil {
		return toolError("bad arguments: " + err.Error())
	}
	if contract != nil {
		if action.Target == nil {
			return toolError("bad arguments: a contract needs a target")
		}
		action.Target.Contract = contract
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
		return refused(schema.AsError(err), err.Error())
	}
	summary := describeAction(ev)
	// done shows the whole page it ends on, so that a session's last
	// result is something a verify gate can be checked against.
	full := action.Kind == schema.ActDone
	if action.Kind == schema.ActFail {
		return toolText(summary)
	}
	rep, oerr := s.Observe(ctx, "", !full, 0)
	page := ""
	if oerr == nil {
		page = "\n" + pageLines(rep.Observation) + "\n" + rep.Observation.Render
	}
	if ev.Error != nil {
		return refused(ev.Error, summary+page)
	}
	return toolText(summary + page)
}

// refused is an error result whose structured content carries the typed
// reason, {"error": {"code", "message"}}, for clients to act on.
func refused(e *schema.Error, text string) *mcp.CallToolResult {
	r := toolError(text)
	r.StructuredContent = map[string]any{"error": e}
	return r
}

// splitContract takes the contract argument out of an action's
// arguments.
func splitContract(arguments json.RawMessage) (json.RawMessage, *schema.Contract, error) {
	if len(arguments) == 0 {
		return arguments, nil, nil
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal(arguments, &args); err != nil {
		return nil, nil, err
	}
	raw, ok := args["contract"]
	if !ok {
		return arguments, nil, nil
	}
	delete(args, "contract")
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	var c schema.Contract
	if err := dec.Decode(&c); err != nil {
		return nil, nil, fmt.Errorf("contract: %v", err)
	}
	rest, err := json.Marshal(args)
	return rest, &c, err
}

// pageLines says where the page is: its URL and title, one per line.
func pageLines(o schema.Observation) string {
	return fmt.Sprintf("page: %s\ntitle: %s\n", o.URL, o.Title)
}

// describeAction is the first lines of an action's result: what it did,
// and the control it acted on as JSON (id, role, name and contract), for
// a client to check the next time.
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
	if t := ev.Action.Target; t != nil {
		control, _ := json.Marshal(t)
		fmt.Fprintf(&b, "\ncontrol: %s", control)
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
