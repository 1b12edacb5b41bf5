// Package tools is the tool surface Rote shows models and MCP clients:
// the browser's tools and their schemas, written for a model to read; the
// actions a call of one of them means; the browser's environment, which
// its tools fingerprint; and the _meta keys that Rote's tool calls and
// results carry beside what a client's model sees (what a click chose
// among, the control it acted on, which arguments hold a secret).
package tools

import (
	"encoding/json"
	"fmt"

	"github.com/rote-agent/rote/schema"
)

const targetProps = `"target": {"type": "string", "description": "The element's id from the last observation (e.g. k3f9q2)"},
"role": {"type": "string", "description": "The element's role, when no id is known"},
"name": {"type": "string", "description": "The element's accessible name, with role"},
"near": {"type": "string", "description": "Text near the element (a row key, a heading) that tells look-alikes apart"}`

const dropProps = `"to": {"type": "string", "description": "The id of the element to drop on"},
"to_role": {"type": "string", "description": "The drop element's role, when no id is known"},
"to_name": {"type": "string", "description": "The drop element's accessible name, with to_role"},
"to_near": {"type": "string", "description": "Text near the drop element that tells look-alikes apart"}`

// Observe is the browser tool that reads the page without acting. It is
// not an action: an agent whose every step observes (the planner) is not
// offered it.
const Observe = "observe"

// Snapshot is @playwright/mcp's tool that reads the page without acting.
const Snapshot = "browser_snapshot"

// ReadsPage reports whether tool only reads a browser MCP server's page,
// rote mcp browser's or @playwright/mcp's: calling it again repeats
// nothing.
func ReadsPage(tool string) bool { return tool == Observe || tool == Snapshot }

var browserTools = []schema.ToolSpec{
	{Name: "navigate", Description: "Load a URL (absolute, or relative to the current page).", InputSchema: schema.RawJSON(`{"type":"object","properties":{"url":{"type":"string"}},"required":["url"],"additionalProperties":false}`)},
	{Name: "click", Description: "Click an element.", InputSchema: schema.RawJSON(`{"type":"object","properties":{` + targetProps + `},"additionalProperties":false}`)},
	{Name: "fill", Description: "Replace the text of a field.", InputSchema: schema.RawJSON(`{"type":"object","properties":{` + targetProps + `,"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`)},
	{Name: "select", Description: "Choose an option of a select by its label or value.", InputSchema: schema.RawJSON(`{"type":"object","properties":{` + targetProps + `,"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`)},
	{Name: "check", Description: "Check (or with checked=false, uncheck) a checkbox, radio or switch.", InputSchema: schema.RawJSON(`{"type":"object","properties":{` + targetProps + `,"checked":{"type":"boolean"}},"additionalProperties":false}`)},
	{Name: "press", Description: "Press a key or a chord (Enter, Tab, Escape, ArrowDown, Control+K, Shift+Tab, or one character), on an element when given.", InputSchema: schema.RawJSON(`{"type":"object","properties":{` + targetProps + `,"key":{"type":"string"}},"required":["key"],"additionalProperties":false}`)},
	{Name: "hover", Description: "Move the mouse over an element.", InputSchema: schema.RawJSON(`{"type":"object","properties":{` + targetProps + `},"additionalProperties":false}`)},
	{Name: "drag", Description: "Drag an element and drop it on another.", InputSchema: schema.RawJSON(`{"type":"object","properties":{` + targetProps + `,` + dropProps + `},"additionalProperties":false}`)},
	{Name: "set_value", Description: "Set a date, time, range, color or number input to a value (2026-10-26, 14:30, 40, #ff8800).", InputSchema: schema.RawJSON(`{"type":"object","properties":{` + targetProps + `,"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`)},
	{Name: "extract", Description: "Read an element's text or value, or the page's main text with no element.", InputSchema: schema.RawJSON(`{"type":"object","properties":{` + targetProps + `},"additionalProperties":false}`)},
	{Name: Observe, Description: "Read the page: the whole page with full=true, else what changed since the last whole page.", InputSchema: schema.RawJSON(`{"type":"object","properties":{"full":{"type":"boolean"}},"additionalProperties":false}`)},
	{Name: "done", Description: "Say the task is done, and why.", InputSchema: schema.RawJSON(`{"type":"object","properties":{"reason":{"type":"string"}},"additionalProperties":false}`)},
	{Name: "fail", Description: "Say the task cannot be done, and why.", InputSchema: schema.RawJSON(`{"type":"object","properties":{"reason":{"type":"string"}},"required":["reason"],"additionalProperties":false}`)},
}

// Browser returns the browser's tools in a fixed order: one per action,
// and observe. They are the browser environment's tool inventory (its
// fingerprint), the MCP browser server's tools and, without observe, what
// the planner's model may call.
func Browser() []schema.ToolSpec {
	out := make([]schema.ToolSpec, len(browserTools))
	copy(out, browserTools)
	return out
}

// ActionFromArgs builds the action that tool kind called with args means,
// on target. URLs are taken as given (relative ones are the caller's to
// resolve). The action is validated: an *schema.Error says what is missing.
func ActionFromArgs(kind schema.ActionKind, args map[string]any, target *schema.Target) (schema.Action, error) {
	a := schema.Action{Kind: kind, Target: target}
	str := func(k string) string {
		if v, ok := args[k]; ok && v != nil {
			return fmt.Sprint(v)
		}
		return ""
	}
	switch kind {
	case schema.ActNavigate:
		a.URL = str("url")
	case schema.ActFill, schema.ActSelect, schema.ActSetValue:
		a.Value = str("value")
	case schema.ActDrag:
		to, err := dropTarget(args["to"])
		if err != nil {
			return a, err
		}
		a.To = to
	case schema.ActPress:
		a.Value = str("key")
	case schema.ActExtract:
		a.Value = str("count")
	case schema.ActCheck:
		if checked, ok := args["checked"].(bool); ok && !checked {
			a.Value = "false"
		}
	case schema.ActDone, schema.ActFail:
		a.Reason = str("reason")
	}
	return a, a.Validate()
}

// ActionFromToolCall decodes a call of one of the action tools, as a model
// or an MCP client makes it: the target is given by the target (an id),
// role, name and near arguments. An unknown tool is CodeOutOfSet, bad
// arguments CodeInvalid. A pick, when given, chooses the target among
// sibling records instead of (or beside) those arguments.
func ActionFromToolCall(name string, arguments []byte, pick *schema.Pick) (schema.Action, error) {
	kind, err := schema.ParseActionKind(name)
	if err != nil {
		return schema.Action{}, err
	}
	args := map[string]any{}
	if len(arguments) > 0 {
		if err := json.Unmarshal(arguments, &args); err != nil {
			return schema.Action{}, schema.Errorf(schema.CodeInvalid, "%s: arguments are not a JSON object: %v", name, err)
		}
	}
	for k, v := range args {
		if _, ok := v.(string); !ok && k != "checked" {
			return schema.Action{}, schema.Errorf(schema.CodeInvalid, "%s: argument %s is %T, want a string", name, k, v)
		}
	}
	var target *schema.Target
	str := func(k string) string { s, _ := args[k].(string); return s }
	if t := (schema.Target{ID: str("target"), Role: str("role"), Name: str("name"), Near: str("near")}); !t.Empty() {
		target = &t
	}
	if pick != nil {
		if target == nil {
			target = &schema.Target{}
		}
		target.Pick = pick
	}
	if kind == schema.ActDrag {
		args["to"] = map[string]any{"id": str("to"), "role": str("to_role"), "name": str("to_name"), "near": str("to_near")}
	}
	return ActionFromArgs(kind, args, target)
}

// dropTarget reads where a drag drops: an element id, or an object of
// id, role, name and near (as a playbook step writes it). Anything else
// is an *schema.Error with CodeInvalid.
func dropTarget(v any) (*schema.Target, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		return &schema.Target{ID: x}, nil
	case map[string]any:
		t := &schema.Target{}
		for k, e := range x {
			s, ok := e.(string)
			field := map[string]*string{"id": &t.ID, "role": &t.Role, "name": &t.Name, "near": &t.Near}[k]
			if !ok || field == nil {
				return nil, schema.Errorf(schema.CodeInvalid, "drag: to.%s: want id, role, name or near, each a string", k)
			}
			*field = s
		}
		if t.Empty() {
			return nil, nil
		}
		return t, nil
	}
	return nil, schema.Errorf(schema.CodeInvalid, "drag: to is %T, want an element id or {id, role, name, near}", v)
}

// BrowserProtocol names the action surface the browser offers; a change to
// what its actions mean changes it, and with it every fingerprint.
const BrowserProtocol = "rote-browser/1"

// BrowserEnvironment is the environment of the browser on origin: its
// tools and their schemas, the origin, the action protocol.
func BrowserEnvironment(origin string) schema.Environment {
	return schema.Environment{Tools: Browser(), Identity: schema.Identity{Origin: origin}, Surfaces: map[string]string{schema.SurfaceProtocol: BrowserProtocol}}
}
