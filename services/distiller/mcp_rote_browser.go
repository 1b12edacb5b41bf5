package distiller

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

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
func (d *distillation) roteBrowserStep(what string, c *schema.ToolCall, args map[string]any) (schema.Step, error) {
	s := schema.Step{Tool: c.Tool, Args: args}
	t := control(c)
	if t == nil {
		return s, nil
	}
	s.Target = &schema.Target{Role: t.Role, Name: d.templateText(t.Name)}
	if _, ok := args["role"]; !ok && t.Role != "" {
		args["role"], args["name"] = t.Role, d.templateText(t.Name)
	}
	if s.Target.Name != t.Name {
		// The control is named by a parameter: its id hashes the name it
		// had, and would find that control again (the post trashed then)
		// while it is on the page. Role and name find the one the new
		// value names.
		delete(args, "target")
	}
	if c.Tool == string(schema.ActClick) && togglesOnClick[t.Role] {
		// A click toggles: replayed on a box found the other way it would
		// undo what the session did. The step checks the box into the
		// state the click left it in, whatever state it finds.
		checked, ok := toggledTo(c, t.ID)
		if !ok {
			return s, schema.Errorf(schema.CodeInvalid, "%s clicks %s %q, and its result does not say whether that left it checked: not distilled (use check with checked)", what, t.Role, t.Name)
		}
		delete(args, "contract")
		args["checked"] = checked
		s.Tool = string(schema.ActCheck)
		return s, nil
	}
	// Only what may send is held to its contract: a click, or a key press
	// (Enter submits). A value typed or chosen sends nothing, and a field
	// that became a textarea is no reason to stop.
	if t.Contract != nil && (c.Tool == string(schema.ActClick) || c.Tool == string(schema.ActPress)) {
		s.Target.Contract = d.contract(t)
		var contract map[string]any
		b, _ := json.Marshal(s.Target.Contract)
		_ = json.Unmarshal(b, &contract)
		args["contract"] = contract
	}
	return s, nil
}

// togglesOnClick are the roles of controls a click checks or unchecks.
var togglesOnClick = map[string]bool{"checkbox": true, "switch": true, "menuitemcheckbox": true}

// toggledTo reads from a click's result whether the control with id was
// left checked: the diff's line for it ("~ id [checked focused]", "~ id
// []", or its whole line when its name changed too).
func toggledTo(c *schema.ToolCall, id string) (bool, bool) {
	if id == "" {
		return false, false
	}
	line := regexp.MustCompile(`(?m)^~ ` + regexp.QuoteMeta(id) + `(?: .*)? \[([^\]]*)\]$`)
	m := line.FindStringSubmatch(schema.ToolResultWorld(c.Result).Text)
	if m == nil {
		return false, false
	}
	return slices.Contains(strings.Fields(m[1]), "checked"), true
}
