package schema

import (
	"encoding/json"
	"fmt"
)

const targetProps = `"target": {"type": "string", "description": "The element's id from the last observation (e.g. k3f9q2)"},
"role": {"type": "string", "description": "The element's role, when no id is known"},
"name": {"type": "string", "description": "The element's accessible name, with role"},
"near": {"type": "string", "description": "Text near the element (a row key, a heading) that tells look-alikes apart"}`

// ToolObserve is the browser tool that reads the page without acting. It
// is not an action: an agent whose every step observes (the planner) is
// not offered it.
const ToolObserve = "observe"

var browserTools = []ToolSpec{
	{Name: "navigate", Description: "Load a URL (absolute, or relative to the current page).", InputSchema: RawJSON(`{"type":"object","properties":{"url":{"type":"string"}},"required":["url"],"additionalProperties":false}`)},
	{Name: "click", Description: "Click an element.", InputSchema: RawJSON(`{"type":"object","properties":{` + targetProps + `},"additionalProperties":false}`)},
	{Name: "fill", Description: "Replace the text of a field.", InputSchema: RawJSON(`{"type":"object","properties":{` + targetProps + `,"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`)},
	{Name: "select", Description: "Choose an option of a select by its label or value.", InputSchema: RawJSON(`{"type":"object","properties":{` + targetProps + `,"value":{"type":"string"}},"required":["value"],"additionalProperties":false}`)},
	{Name: "check", Description: "Check (or with checked=false, uncheck) a checkbox, radio or switch.", InputSchema: RawJSON(`{"type":"object","properties":{` + targetProps + `,"checked":{"type":"boolean"}},"additionalProperties":false}`)},
	{Name: "press", Description: "Press a key (Enter, Tab, Escape, ArrowDown, ... or one character), on an element when given.", InputSchema: RawJSON(`{"type":"object","properties":{` + targetProps + `,"key":{"type":"string"}},"required":["key"],"additionalProperties":false}`)},
	{Name: "hover", Description: "Move the mouse over an element.", InputSchema: RawJSON(`{"type":"object","properties":{` + targetProps + `},"additionalProperties":false}`)},
	{Name: "extract", Description: "Read an element's text or value, or the page's main text with no element.", InputSchema: RawJSON(`{"type":"object","properties":{` + targetProps + `},"additionalProperties":false}`)},
	{Name: ToolObserve, Description: "Read the page: the whole page with full=true, else what changed since the last whole page.", InputSchema: RawJSON(`{"type":"object","properties":{"full":{"type":"boolean"}},"additionalProperties":false}`)},
	{Name: "done", Description: "Say the task is done, and why.", InputSchema: RawJSON(`{"type":"object","properties":{"reason":{"type":"string"}},"additionalProperties":false}`)},
	{Name: "fail", Description: "Say the task cannot be done, and why.", InputSchema: RawJSON(`{"type":"object","properties":{"reason":{"type":"string"}},"required":["reason"],"additionalProperties":false}`)},
}

// BrowserTools returns the browser's tools in a fixed order: one per
// action, and observe. They are the browser environment's tool inventory
// (its fingerprint), the MCP browser server's tools and, without observe,
// what the planner's model may call.
func BrowserTools() []ToolSpec {
	out := make([]ToolSpec, len(browserTools))
	copy(out, browserTools)
	return out
}

// ActionFromArgs builds the action that tool kind called with args means,
// on target. URLs are taken as given (relative ones are the caller's to
// resolve). The action is validated: an *Error says what is missing.
func ActionFromArgs(kind ActionKind, args map[string]any, target *Target) (Action, error) {
	a := Action{Kind: kind, Target: target}
	str := func(k string) string {
		if v, ok := args[k]; ok && v != nil {
			return fmt.Sprint(v)
		}
		return ""
	}
	switch kind {
	case ActNavigate:
		a.URL = str("url")
	case ActFill, ActSelect:
		a.Value = str("value")
	case ActPress:
		a.Value = str("key")
	case ActExtract:
		a.Value = str("count")
	case ActCheck:
		if checked, ok := args["checked"].(bool); ok && !checked {
			a.Value = "false"
		}
	case ActDone, ActFail:
		a.Reason = str("reason")
	}
	return a, a.Validate()
}

// ActionFromToolCall decodes a call of one of the action tools, as a model
// or an MCP client makes it: the target is given by the target (an id),
// role, name and near arguments. An unknown tool is CodeOutOfSet, bad
// arguments CodeInvalid.
func ActionFromToolCall(name string, arguments []byte) (Action, error) {
	kind, err := ParseActionKind(name)
	if err != nil {
		return Action{}, err
	}
	args := map[string]any{}
	if len(arguments) > 0 {
		if err := json.Unmarshal(arguments, &args); err != nil {
			return Action{}, Errorf(CodeInvalid, "%s: arguments are not a JSON object: %v", name, err)
		}
	}
	for k, v := range args {
		if _, ok := v.(string); !ok && k != "checked" {
			return Action{}, Errorf(CodeInvalid, "%s: argument %s is %T, want a string", name, k, v)
		}
	}
	var target *Target
	str := func(k string) string { s, _ := args[k].(string); return s }
	if t := (Target{ID: str("target"), Role: str("role"), Name: str("name"), Near: str("near")}); !t.Empty() {
		target = &t
	}
	return ActionFromArgs(kind, args, target)
}

// BrowserProtocol names the action surface the browser offers; a change to
// what its actions mean changes it, and with it every fingerprint.
const BrowserProtocol = "rote-browser/1"

// BrowserEnvironment is the environment of the browser on origin: its
// tools and their schemas, the origin, the action protocol.
func BrowserEnvironment(origin string) Environment {
	return Environment{Tools: BrowserTools(), Identity: Identity{Origin: origin}, Surfaces: map[string]string{surfaceProtocol: BrowserProtocol}}
}
