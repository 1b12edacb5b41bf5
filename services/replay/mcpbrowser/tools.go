package mcpbrowser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
	"github.com/rote-agent/rote/services/replay"
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

	playbooks *Playbooks    // nil: none offered
	offers    *replay.Offer // the playbooks offered, when playbooks is set
	server    *mcp.Server
	replaying sync.Mutex // held by the offered playbook replaying

	mu      sync.Mutex
	session *bus.BrowserSession
	verdict *Verdict
	page    string // the URL of the last page observed
	offer   offered
	counts  map[string]int // the calls served, by tool
}

// New returns the tools for run runID; the browser session is opened
// from browsers on the first call, masking secrets (Session.Secrets).
func New(browsers *bus.Browsers, runID string, secrets map[string]string) *Tools {
	return &Tools{browsers: browsers, runID: runID, secrets: secrets, counts: map[string]int{}}
}

// Counts counts the calls served so far, by tool; nil when none were.
func (m *Tools) Counts() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.counts) == 0 {
		return nil
	}
	return maps.Clone(m.counts)
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

// learnSecrets takes, from a call's metadata (tools.SecretArgsMeta),
// the arguments a replay says hold a secret: from now on they are
// recorded and shown as {{name}}, like the environment's.
func (m *Tools) learnSecrets(meta mcp.Meta, arguments json.RawMessage) {
	named, _ := meta[tools.SecretArgsMeta].(map[string]any)
	if len(named) == 0 {
		return
	}
	var args map[string]any
	if json.Unmarshal(arguments, &args) != nil {
		return
	}
	found := map[string]string{}
	for name, arg := range named {
		key, _ := arg.(string)
		if value, ok := args[key].(string); ok && value != "" && secretName.MatchString(name) {
			found[name] = value
		}
	}
	m.addSecrets(found)
}

// secretName is what a secret may be called: it is shown as {{name}}.
var secretName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// addSecrets adds secrets (name to value) to those the session masks.
func (m *Tools) addSecrets(secrets map[string]string) {
	if len(secrets) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.secrets == nil {
		m.secrets = map[string]string{}
	}
	maps.Copy(m.secrets, secrets)
	if m.session != nil {
		m.session.Secrets = m.secrets
	}
}

// saw notes the URL of a page the session observed.
func (m *Tools) saw(pageURL string) {
	m.mu.Lock()
	m.page = pageURL
	m.mu.Unlock()
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
// contract_changed or control_changed and nothing is sent. A click, a
// hover and a check may take a pick instead of a control: the rules that
// choose the record among its siblings (the row that holds a title, the
// newest report, the third box), as a playbook's target does.
func (m *Tools) Server(version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "rote-browser", Version: version}, nil)
	for _, spec := range tools.Browser() {
		s.AddTool(&mcp.Tool{Name: spec.Name, Description: spec.Description, InputSchema: json.RawMessage(withObjects(spec))},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				m.learnSecrets(req.Params.Meta, req.Params.Arguments)
				res := m.call(ctx, spec.Name, req.Params.Arguments)
				m.mu.Lock()
				page := m.page
				m.counts[spec.Name]++
				m.mu.Unlock()
				m.follow(ctx, page)
				return res, nil
			})
	}
	m.server = s
	return s
}

// contractSchema is the schema of the contract argument.
const contractSchema = `{"type":"object","description":"What the control must be; the action is refused (contract_changed, control_changed) when it is not. Each result's control line says what the control was.",` +
	`"properties":{"tag":{"type":"string"},"input_type":{"type":"string"},"form_action":{"type":"string"},"form_method":{"type":"string"},"href":{"type":"string"},"group":{"type":"string"}},"additionalProperties":false}`

// pickSchema is the schema of the pick argument.
const pickSchema = `{"type":"object","description":"Instead of target, name and near (with role: the role of the records' controls): choose the control among sibling records (table rows, list entries) by rules that must all agree, or the action stops (ambiguous).",` +
	`"properties":{"name":{"type":"string","description":"the records' control name, * where a list entry's key stands"},"rows":{"type":"boolean"},"within":{"type":"string"},` +
	`"among":{"type":"string","enum":["items","controls"],"description":"count by place: the items of one list, or the boxes of a form (name: * for controls named each their own way, else the name they all share; one nth rule)"},"field":{"type":"string","description":"with among controls, the name of the radios' group"},"shapes":{"type":"array","items":{"type":"string"},"description":"with among items, the shapes every item must have"},` +
	`"rules":{"type":"array","items":{"type":"object","properties":{"order":{"type":"string","enum":["is","first","last","nth","newest","oldest","highest","lowest"]},"by":{"type":"string"},"value":{"type":"string"}},"required":["order"],"additionalProperties":false}}},` +
	`"required":["name","rules"],"additionalProperties":false}`

// twinsSchema is the schema of the twins argument.
const twinsSchema = `{"type":"integer","minimum":2,"maximum":20,"description":"How many fields alike (the same role, name and context) the target's id counted among when recorded: the action takes its place among them only while the page shows as many, else it stops (ambiguous)."}`

// withObjects adds the contract and twins arguments to an action tool
// that takes a target, and the pick argument to a click, a hover and a
// check.
func withObjects(spec schema.ToolSpec) []byte {
	var s map[string]any
	if err := json.Unmarshal(spec.InputSchema, &s); err != nil {
		return spec.InputSchema
	}
	props, _ := s["properties"].(map[string]any)
	if _, ok := props["target"]; !ok || spec.Name == "extract" {
		return spec.InputSchema
	}
	props["contract"] = rawSchema(contractSchema)
	props["twins"] = rawSchema(twinsSchema)
	if picks(spec.Name) {
		props["pick"] = rawSchema(pickSchema)
	}
	b, _ := json.Marshal(s)
	return b
}

func rawSchema(s string) any {
	var v any
	_ = json.Unmarshal([]byte(s), &v)
	return v
}

func (m *Tools) call(ctx context.Context, tool string, arguments json.RawMessage) *mcp.CallToolResult {
	if tool == tools.Observe {
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
		m.saw(rep.Observation.URL)
		return toolText(pageLines(rep.Observation) + rep.Observation.Render)
	}
	arguments, contract, pick, twins, err := splitObjects(arguments)
	if err != nil {
		return toolError("bad arguments: " + err.Error())
	}
	if pick != nil && !picks(tool) {
		return toolError("bad arguments: a pick chooses the control of a click, a hover or a check; " + tool + " takes a target, role and name")
	}
	action, err := tools.ActionFromToolCall(tool, arguments, pick)
	if err != nil {
		return toolError("bad arguments: " + err.Error())
	}
	if contract != nil {
		if action.Target == nil {
			return toolError("bad arguments: a contract needs a target")
		}
		action.Target.Contract = contract
	}
	if twins != 0 {
		if action.Target == nil || action.Target.ID == "" || pick != nil || twins < 2 || twins > schema.MaxTwins {
			return toolError(fmt.Sprintf("bad arguments: twins (%d) counts the fields a target id is among: 2 to %d, with a target and no pick", twins, schema.MaxTwins))
		}
		action.Target.Twins = twins
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
		m.saw(rep.Observation.URL)
	}
	if ev.Error != nil {
		return refused(ev.Error, summary+page)
	}
	r := toolText(summary + page)
	// What the control was, and what it was chosen among, are for a
	// distiller, not for the agent to read: metadata a client does not
	// show its model, which the recorder keeps inline even when the
	// result is too large to be.
	if t := ev.Action.Target; t != nil {
		r.Meta = mcp.Meta{tools.ControlMeta: t}
	}
	if ev.Among != nil {
		r.Meta[tools.AmongMeta] = tools.Among{Records: ev.Among, Chosen: ev.Chosen}
	}
	return r
}

// refused is an error result whose structured content carries the typed
// reason, {"error": {"code", "message"}}, for clients to act on.
func refused(e *schema.Error, text string) *mcp.CallToolResult {
	r := toolError(text)
	r.StructuredContent = map[string]any{"error": e}
	return r
}

// splitObjects takes the contract, pick and twins arguments out of an
// action's arguments, each decoded strictly.
func splitObjects(arguments json.RawMessage) (rest json.RawMessage, contract *schema.Contract, pick *schema.Pick, twins int, err error) {
	if len(arguments) == 0 {
		return arguments, nil, nil, 0, nil
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal(arguments, &args); err != nil {
		return nil, nil, nil, 0, err
	}
	for name, into := range map[string]any{"contract": &contract, "pick": &pick, "twins": &twins} {
		raw, ok := args[name]
		if !ok {
			continue
		}
		delete(args, name)
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(into); err != nil {
			return nil, nil, nil, 0, fmt.Errorf("%s: %v", name, err)
		}
	}
	rest, err = json.Marshal(args)
	return rest, contract, pick, twins, err
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
		writeDialogs(&b, ev.Dialogs)
		return b.String()
	}
	fmt.Fprintf(&b, "%s ok", ev.Action.Kind)
	if ev.Resolution != "" {
		fmt.Fprintf(&b, " (target by %s)", ev.Resolution)
	}
	if ev.Picked != "" {
		fmt.Fprintf(&b, "\n%s", ev.Picked)
	}
	writeDialogs(&b, ev.Dialogs)
	if ev.Output != "" {
		fmt.Fprintf(&b, ":\n%s", ev.Output)
	}
	if t := ev.Action.Target; t != nil {
		control, _ := json.Marshal(t)
		fmt.Fprintf(&b, "\ncontrol: %s", control)
	}
	if t := ev.Action.To; t != nil {
		to, _ := json.Marshal(t)
		fmt.Fprintf(&b, "\ndropped on: %s", to)
	}
	return b.String()
}

// writeDialogs says which dialogs the page opened during the action.
func writeDialogs(b *strings.Builder, dialogs []string) {
	for _, d := range dialogs {
		fmt.Fprintf(b, "\ndialog: %s", d)
	}
}

func toolText(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func toolError(s string) *mcp.CallToolResult {
	r := toolText(s)
	r.IsError = true
	return r
}

// picks reports whether a tool takes a pick.
func picks(tool string) bool {
	return tool == string(schema.ActClick) || tool == string(schema.ActHover) || tool == string(schema.ActCheck)
}
