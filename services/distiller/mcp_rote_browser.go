package distiller

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
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

// control is the control a rote mcp browser action's result names: on
// its control line, or in its metadata (kept when the result is a blob).
func control(c *schema.ToolCall) *schema.Target {
	raw := c.ResultMetaOf()[tools.ControlMeta]
	if m := controlLine.FindStringSubmatch(schema.ToolResultWorld(c.Result).Text); m != nil {
		raw = json.RawMessage(m[1])
	}
	var t schema.Target
	if len(raw) == 0 || json.Unmarshal(raw, &t) != nil || t.Empty() {
		return nil
	}
	return &t
}

// roteBrowserStep is the step of one rote mcp browser call whose
// arguments are templated for parameters.
func (d *distillation) roteBrowserStep(what string, c *schema.ToolCall, args map[string]any, producers []producer) (schema.Step, error) {
	s := schema.Step{Tool: c.Tool, Args: args}
	t := control(c)
	if t == nil && c.BlobRef != "" && (c.Tool == string(schema.ActClick) || c.Tool == string(schema.ActHover)) {
		// Neither the result nor what was kept of it says what the control
		// was, or whether it was one of several records.
		return s, schema.Errorf(schema.CodeTooLarge, "%s: its result is over %d bytes and kept no record of the control it acted on: not distilled", what, schema.InlineLimit)
	}
	if t == nil {
		return s, nil
	}
	// A name that is a parameter's whole value is that parameter, however
	// short (radio "S4"); inside a longer name only a longer value is.
	name, whole := d.b.whole(t.Name)
	if !whole {
		name = d.templateText(t.Name)
	}
	s.Target = &schema.Target{Role: t.Role, Name: name}
	if _, ok := args["role"]; !ok && t.Role != "" {
		args["role"], args["name"] = t.Role, name
	}
	if s.Target.Name != t.Name {
		// The control is named by a parameter: its id hashes the name it
		// had, and would find that control again (the post trashed then)
		// while it is on the page. Role and name find the one the new
		// value names.
		delete(args, "target")
	} else if label, ok := d.twinLabel(t.ID, producers); ok {
		// One of twins told apart by nothing but the text just before
		// each (one Add button an item), which the task names: the replay
		// takes the twin after that text, exactly.
		delete(args, "target")
		args["near"], s.Target.Near = label, label
	} else if among, ok := amongOf(c); ok {
		// One of several records (a row's Trash button), named by nothing
		// the task gives: the replay chooses it by the row's key or the
		// rule the task states, on the page as it is then.
		if step, chosen, err := d.roteBrowserChoice(what, c, s, t, among, args); chosen || err != nil {
			return step, err
		}
	}
	if _, ok := args["target"]; ok && t.Twins > 0 && t.Contract != nil {
		// One of fields alike told apart by order: its place holds at
		// replay while the page shows as many, of the kind and in the form
		// it recorded, as it did for the agent.
		args["twins"] = t.Twins
		s.Target.Contract = d.contract(t)
		args["contract"] = asArgument(s.Target.Contract)
	}
	if c.Tool == string(schema.ActClick) && togglesOnClick[t.Role] {
		// A click toggles: replayed on a box found the other way it would
		// undo what the session did. The step checks the box into the
		// state the click left it in, whatever state it finds.
		return checkInstead(what, c, s, t, args)
	}
	// Only what may send is held to its contract: a click, or a key press
	// (Enter submits). A value typed or chosen sends nothing, and a field
	// that became a textarea is no reason to stop.
	// A secret, though, is typed only into a field of the kind it was
	// typed into (a password field): typed into another, it would show,
	// and leave in the place of something else.
	if t.Contract != nil && (c.Tool == string(schema.ActClick) || c.Tool == string(schema.ActPress) || c.Tool == string(schema.ActFill) && d.typesSecret(args)) {
		s.Target.Contract = d.contract(t)
		args["contract"] = asArgument(s.Target.Contract)
	}
	return s, nil
}

// typesSecret reports whether a call's value is a secret parameter.
func (d *distillation) typesSecret(args map[string]any) bool {
	v, _ := args["value"].(string)
	refs, _ := schema.ParseRefs(v)
	for _, r := range refs {
		if p, ok := d.c.Playbook.Params[r.Param]; ok && p.IsSecret() {
			return true
		}
	}
	return false
}

// togglesOnClick are the roles of controls a click checks or unchecks.
var togglesOnClick = map[string]bool{"checkbox": true, "switch": true, "menuitemcheckbox": true}

// checkInstead turns step s, a click that toggled control t, into a
// check into the state the click left it in, as its result says
// (toggledTo); a result that does not say is refused.
func checkInstead(what string, c *schema.ToolCall, s schema.Step, t *schema.Target, args map[string]any) (schema.Step, error) {
	checked, ok := toggledTo(c, t.ID)
	if !ok {
		return s, schema.Errorf(schema.CodeInvalid, "%s clicks %s %q, and its result does not say whether that left it checked: not distilled (use check with checked)", what, t.Role, t.Name)
	}
	delete(args, "contract")
	args["checked"] = checked
	s.Tool = string(schema.ActCheck)
	return s, nil
}

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

// amongOf reads the records a rote mcp browser click or hover chose its
// control among, from its result's metadata.
func amongOf(c *schema.ToolCall) (tools.Among, bool) {
	var among tools.Among
	raw := c.ResultMetaOf()[tools.AmongMeta]
	if raw == nil || json.Unmarshal(raw, &among) != nil {
		return among, false
	}
	return among, true
}

// twinOf is a line of rote mcp browser's page text for one of twins:
// `ID role "name" (2 of 3)`.
var twinOf = regexp.MustCompile(`^\S+ [a-z-]+ "(?:[^"\\]|\\.)*" \(\d+ of \d+\)`)

// textLine is a line of rote mcp browser's page text for a text: `ID
// text "..."`.
var textLine = regexp.MustCompile(`^\S+ text ("(?:[^"\\]|\\.)*")$`)

// twinLabel returns, templated, the text on the line just before the
// twin with id in the latest page text that shows it, when that text is
// a parameter's whole value.
func (d *distillation) twinLabel(id string, producers []producer) (string, bool) {
	if id == "" {
		return "", false
	}
	for i := len(producers) - 1; i >= 0; i-- {
		lines := strings.Split(producers[i].world.Text, "\n")
		for k, l := range lines {
			if !strings.HasPrefix(l, id+" ") {
				continue
			}
			if k == 0 || !twinOf.MatchString(l) {
				return "", false
			}
			m := textLine.FindStringSubmatch(lines[k-1])
			if m == nil {
				return "", false
			}
			label, err := strconv.Unquote(m[1])
			if err != nil {
				return "", false
			}
			return d.b.whole(label)
		}
	}
	return "", false
}

// roteBrowserChoice is the step of a click or hover on one of several
// records: its pick goes in the arguments in place of the control's id
// and name, for the server to choose by at replay. A click that toggles
// a box becomes a check into the state it left the box in: replayed on
// a box found the other way, a click would undo what the session did.
// chosen is false when the records are only what a place counts and the
// task states none: the control is then the one its name says.
func (d *distillation) roteBrowserChoice(what string, c *schema.ToolCall, s schema.Step, control *schema.Target, among tools.Among, args map[string]any) (step schema.Step, chosen bool, err error) {
	desc := fmt.Sprintf("%s %s %q", what, control.Role, control.Name)
	toggles := s.Tool == string(schema.ActClick) && togglesOnClick[control.Role]
	if s.Tool != string(schema.ActClick) && s.Tool != string(schema.ActHover) && s.Tool != string(schema.ActCheck) {
		return s, true, schema.Errorf(schema.CodeUnbound, "%s acts on one of several records, which no parameter names; a replay chooses a record only to click, hover or tick it: not distilled", desc)
	}
	// A judgment step needs the page's records at replay, which an MCP
	// session's replay does not read: an unexplained choice is refused.
	t, err := d.choice(desc, among.Records, among.Chosen, control, false)
	if err != nil || t == nil {
		return s, err != nil, err
	}
	s.Target = t
	for _, k := range []string{"target", "name", "near", "contract"} {
		delete(args, k)
	}
	args["role"], args["pick"] = t.Role, asArgument(t.Pick)
	if toggles {
		s, err := checkInstead(what, c, s, control, args)
		return s, true, err
	}
	if t.Contract != nil {
		args["contract"] = asArgument(t.Contract)
	}
	return s, true, nil
}

// asArgument is v as a tool call's JSON argument.
func asArgument(v any) map[string]any {
	var m map[string]any
	b, _ := json.Marshal(v)
	_ = json.Unmarshal(b, &m)
	return m
}
