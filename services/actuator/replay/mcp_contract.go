package replay

import (
	"context"
	"encoding/json"
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

// contractFunction reads a control's contract as the perception service
// does: tag, input type (text for a bare input, submit for a bare
// button), a link's href, and for a submit control its form's action and
// method; same-origin URLs as path, query and fragment.
const contractFunction = `(el) => {
  const rel = (u) => { try { const x = new URL(u, document.baseURI); return x.origin === location.origin ? x.pathname + x.search + x.hash : x.href; } catch (e) { return u; } };
  const tag = el.tagName.toLowerCase();
  const c = { tag };
  if (tag === 'input') c.input_type = (el.getAttribute('type') || 'text').toLowerCase();
  if (tag === 'button') c.input_type = (el.getAttribute('type') || 'submit').toLowerCase();
  if (tag === 'a' && el.hasAttribute('href')) c.href = rel(el.getAttribute('href'));
  if ((c.input_type === 'submit' || c.input_type === 'image') && el.form) {
    c.form_action = rel(el.getAttribute('formaction') ?? el.form.getAttribute('action') ?? '');
    c.form_method = (el.getAttribute('formmethod') || el.form.getAttribute('method') || 'get').toLowerCase();
  }
  return c;
}`

// probes reports whether a call of tool with args may send something
// through a control whose contract the dispatcher can read: the server
// offers browser_evaluate taking a target, and the call clicks one, or
// types into one and submits. Typing, choosing and hovering send
// nothing: the control's identity (its bound ref) is what matters there,
// and a field that became a textarea is no reason to stop.
func (d *MCPDispatcher) probes(tool string, args map[string]any) bool {
	if !d.hasProbe {
		return false
	}
	if ref, ok := args["target"].(string); !ok || ref == "" {
		return false
	}
	switch tool {
	case "browser_click":
		return true
	case "browser_type":
		submit, _ := args["submit"].(bool)
		return submit
	}
	return false
}

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

// contractOf reads the contract of the control ref names, recording the
// read as a probe call of step stepID.
func (d *MCPDispatcher) contractOf(ctx context.Context, stepID string, args map[string]any) (*schema.Contract, error) {
	probe := map[string]any{"target": args["target"], "function": contractFunction}
	if e, ok := args["element"].(string); ok {
		probe["element"] = e
	}
	w, err := d.call(ctx, stepID, probeTool, probe, true)
	if err != nil {
		return nil, err
	}
	text := w.Text
	if i := strings.Index(text, "### Result"); i >= 0 {
		text = text[i+len("### Result"):]
		if j := strings.Index(text, "\n###"); j >= 0 {
			text = text[:j]
		}
	}
	var c schema.Contract
	if err := json.Unmarshal([]byte(strings.TrimSpace(text)), &c); err != nil || c.Tag == "" {
		return nil, schema.Errorf(schema.CodeUnavailable, "%s on %v did not say what the control is: %s", probeTool, args["target"], schema.Clip(w.Text, 200))
	}
	return &c, nil
}
