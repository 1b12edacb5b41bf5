package replay

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/rote-agent/rote/schema"
)

// Browser MCP servers such as @playwright/mcp act on a page control named
// by a ref from their last snapshot. The ref itself is bound by the
// control's identity (a step output located by its snapshot line); what
// the control does is checked here, before the call is sent: the
// dispatcher reads the control's contract with the server's own
// browser_evaluate on the same ref and refuses a control that no longer
// is what the playbook recorded (schema.Contract.Check).

// probeTool is the tool that runs a function on a ref's element.
const probeTool = "browser_evaluate"

// contractOfElement reads a control's contract as the perception service
// does (services/perception, contract): tag, input type (text for a bare
// input, submit for a bare button), a radio's group, a link's href, and for a control
// that can send its form the action and method it would send it with: a
// submit button's own formaction and formmethod, a field's (Enter) those
// of the form's default button. Same-origin URLs are path, query and
// fragment. Form properties are read through the prototypes, since a
// form's named controls shadow its own (a field named "action").
const contractOfElement = `(el) => {
  const attr = (e, n) => Element.prototype.getAttribute.call(e, n);
  const rel = (u) => { try { const x = new URL(u, document.baseURI); return x.origin === location.origin ? x.pathname + x.search + x.hash : x.href; } catch (e) { return u; } };
  const kind = (e) => { const t = e.tagName.toLowerCase(); return (attr(e, 'type') || (t === 'button' ? 'submit' : t === 'input' ? 'text' : '')).toLowerCase(); };
  const submits = (e) => { const t = e.tagName.toLowerCase(), k = kind(e); return (t === 'button' && k === 'submit') || (t === 'input' && (k === 'submit' || k === 'image')); };
  if (!el || !el.tagName) return { tag: '' };
  const tag = el.tagName.toLowerCase();
  const c = { tag };
  if (tag === 'input' || tag === 'button') c.input_type = kind(el);
  if (c.input_type === 'radio' && attr(el, 'name')) c.group = attr(el, 'name');
  if (tag === 'a' && el.hasAttribute('href')) c.href = rel(attr(el, 'href'));
  const form = (tag === 'input' || tag === 'button') ? el.form : null;
  if (!form) return c;
  let by = null;
  if (submits(el)) by = el;
  else if (tag === 'input' && !['button', 'reset', 'hidden'].includes(c.input_type)) {
    const elements = Object.getOwnPropertyDescriptor(HTMLFormElement.prototype, 'elements').get.call(form);
    by = Array.prototype.find.call(elements, submits) || null;
  } else return c;
  c.form_action = rel((by && attr(by, 'formaction')) ?? attr(form, 'action') ?? '');
  c.form_method = ((by && attr(by, 'formmethod')) || attr(form, 'method') || 'get').toLowerCase();
  return c;
}`

// contractOfFocus reads the contract of the element that has the focus,
// which a key press acts on.
const contractOfFocus = `() => (` + contractOfElement + `)(document.activeElement)`

// probes reports whether a call of tool with args may send something
// through a control whose contract the dispatcher can read: the server
// offers browser_evaluate, and the call clicks a control, types into one
// and submits, or presses a key that activates the focused control
// (Enter, Space). Typing, choosing and hovering send nothing: the
// control's identity (its bound ref) is what matters there, and a field
// that became a textarea is no reason to stop.
func (d *MCPDispatcher) probes(tool string, args map[string]any) bool {
	if !d.hasProbe {
		return false
	}
	ref, _ := args["target"].(string)
	switch tool {
	case "browser_click":
		return ref != ""
	case "browser_type":
		submit, _ := args["submit"].(bool)
		return ref != "" && submit
	case "browser_press_key":
		key, _ := args["key"].(string)
		return slices.Contains(activatingKeys, key)
	}
	return false
}

// activatingKeys are the keys whose press may send a form or follow a
// link through the focused control.
var activatingKeys = []string{"Enter", "NumpadEnter", " ", "Space", "Spacebar"}

// offersProbe reports whether tools include browser_evaluate with a target.
func offersProbe(tools []schema.ToolSpec) bool {
	for _, t := range tools {
		if t.Name != probeTool {
			continue
		}
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		_ = json.Unmarshal(t.InputSchema, &s)
		_, hasTarget := s.Properties["target"]
		_, hasFunction := s.Properties["function"]
		return hasTarget && hasFunction
	}
	return false
}

// contractOf reads the contract of the control the call acts on (the
// ref it names, else the focused element), recording the read as a probe
// call of step stepID.
func (d *MCPDispatcher) contractOf(ctx context.Context, stepID string, args map[string]any) (*schema.Contract, error) {
	probe := map[string]any{"function": contractOfFocus}
	if ref, ok := args["target"].(string); ok && ref != "" {
		probe = map[string]any{"target": ref, "function": contractOfElement}
		if e, ok := args["element"].(string); ok {
			probe["element"] = e
		}
	}
	w, err := d.call(ctx, stepID, probeTool, probe, true)
	if err != nil {
		return nil, err
	}
	var c schema.Contract
	if err := json.Unmarshal([]byte(resultSection(w.Text)), &c); err != nil || c.Tag == "" {
		return nil, schema.Errorf(schema.CodeUnavailable, "%s on %v did not say what the control is: %s", probeTool, args["target"], schema.Clip(w.Text, 200))
	}
	return &c, nil
}

// resultSection is the value a @playwright/mcp code call returned: its
// "### Result" section, or the whole text of a server that has none.
func resultSection(text string) string {
	if i := strings.Index(text, "### Result"); i >= 0 {
		text = text[i+len("### Result"):]
		if j := strings.Index(text, "\n###"); j >= 0 {
			text = text[:j]
		}
	}
	return strings.TrimSpace(text)
}
