package distiller

import (
	"encoding/json"
	"regexp"

	"github.com/rote-agent/rote/schema"
)

// RoteBrowserServer is the name `rote mcp browser` gives itself. Its
// controls have stable ids (not per-snapshot handles), and each action's
// result says, on its control line, what the control was: a step keeps
// the id, adds the role and name to fall back on, and, for a click or a
// key press, the contract the server then enforces.
const RoteBrowserServer = "rote-browser"

// server is the name of the MCP server the run recorded, from its last
// inventory.
func (d *distillation) server() string {
	if n := len(d.r.Inventories); n > 0 {
		return d.r.Inventories[n-1].Environment.Identity.Server
	}
	return ""
}

var controlLine = regexp.MustCompile(`(?m)^control: (\{.*\})$`)

// control is the control a rote mcp browser action's result names.
func control(c *schema.ToolCall) *schema.Target {
	m := controlLine.FindStringSubmatch(schema.ToolResultWorld(c.Result).Text)
	if m == nil {
		return nil
	}
	var t schema.Target
	if json.Unmarshal([]byte(m[1]), &t) != nil || t.Empty() {
		return nil
	}
	return &t
}

// roteBrowserStep is the step of one rote mcp browser call whose
// arguments are templated for parameters.
func (d *distillation) roteBrowserStep(c *schema.ToolCall, args map[string]any) schema.Step {
	s := schema.Step{Tool: c.Tool, Args: args}
	t := control(c)
	if t == nil {
		return s
	}
	s.Target = &schema.Target{Role: t.Role, Name: d.templateText(t.Name)}
	if _, ok := args["role"]; !ok && t.Role != "" {
		args["role"], args["name"] = t.Role, d.templateText(t.Name)
	}
	// Only what may send is held to its contract: a click, or a key press
	// (Enter submits). A value typed or chosen sends nothing, and a field
	// that became a textarea is no reason to stop.
	if t.Contract != nil && (c.Tool == string(schema.ActClick) || c.Tool == string(schema.ActPress)) {
		s.Target.Contract = t.Contract
		var contract map[string]any
		b, _ := json.Marshal(t.Contract)
		_ = json.Unmarshal(b, &contract)
		args["contract"] = contract
	}
	return s
}
