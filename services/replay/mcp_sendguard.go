package replay

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rote-agent/rote/schema"
)

// The contract is read before the call; a page script can still move the
// form between that read and the request (on mousedown, change, an Enter
// keydown, submit). Where the server runs Playwright code
// (@playwright/mcp's browser_run_code_unsafe), a call that may send is
// wrapped in a send guard: a route that holds the page's first
// main-frame navigation and lets it through only when it goes where the
// recorded contract says, by its method. Anything else is aborted in the
// browser before it is sent, and the step is contract_changed.

// runCodeTool runs Playwright code with the page.
const runCodeTool = "browser_run_code_unsafe"

// guardFunction routes a page's navigations through a guard for want,
// a schema.Sending ({method, ref, form}).
const guardFunction = `async (page, want) => {
  const target = new URL(want.ref || '', page.url());
  const carries = (request) => {
    const texts = [request.url(), request.postData() || ''];
    const decoded = (t) => { try { return decodeURIComponent(t.replace(/\+/g, ' ')); } catch { return t; } };
    return want.values.some(v => texts.some(t => t.includes(v) || decoded(t).includes(v)));
  };
  const norm = (u, dropQuery) => { const x = new URL(u); x.hash = ''; if (dropQuery) x.search = ''; return x.href; };
  const guard = { decided: false, refused: '', others: [], values: !!want.values };
  guard.handler = async (route, request) => {
    const m0 = request.method();
    if (!request.isNavigationRequest() && !['GET', 'HEAD', 'OPTIONS'].includes(m0) && guard.others.length < 16) guard.others.push(m0 + ' ' + request.url());
    if (guard.decided || !request.isNavigationRequest() || request.frame() !== page.mainFrame() || request.redirectedFrom()) return route.continue();
    guard.decided = true;
    const m = request.method(), q = want.form && m === 'GET';
    if (want.values ? !carries(request) : want.method !== '' && m === want.method && norm(request.url(), q) === norm(target.href, q)) return route.continue();
    guard.refused = m + ' ' + request.url();
    return route.abort('blockedbyclient');
  };
  page.__roteSendGuard = guard;
  await page.route('**/*', guard.handler);
}`

// readAndArmGuard is Playwright code that reads the contract of the
// control a call acts on (the element of the ref %s, "" for the focused
// one) as contractOfElement does and, when it says where the control
// sends (as schema.Contract.Sending reads it), arms the guard for that;
// when it sends nowhere and values (%s, the run's typed values) are
// given, arms it against a load that carries one: one call where a read
// and an arming were two. It returns the contract, what it armed for,
// and whether it did.
const readAndArmGuard = `async (page) => {
  const ref = %s, values = %s;
  const c = ref ? await page.locator('aria-ref=' + ref).evaluate(` + contractOfElement + `) : await page.evaluate(` + contractOfFocus + `);
  const method = (c.form_method || '').toUpperCase();
  const want = method ? { method: method === 'DIALOG' ? '' : method, ref: c.form_action || '', form: true } : c.href ? { method: 'GET', ref: c.href, form: false } : values.length ? { method: '', ref: '', form: false, values } : null;
  if (want) await (` + guardFunction + `)(page, want);
  return { contract: c, want, armed: !!want };
}`

// disarmSendGuard removes the route and says what it refused.
const disarmSendGuard = `async (page) => {
  const g = page.__roteSendGuard;
  delete page.__roteSendGuard;
  if (!g) return { missing: true };
  await page.unroute('**/*', g.handler);
  return { refused: g.refused, others: g.others, values: !!g.values };
}`

// checkAndArm reads the contract of the control a call of kind acts on
// and arms the send guard for where it sends, in one call of the server's
// Playwright code, and holds the contract to the target's record as
// checkContract does. The guard is removed again when the contract does
// not hold, when it was armed for other than where the contract sends, or
// when a call of kind sends nothing through the control. It returns the
// contract and whether the guard is armed.
func (d *MCPDispatcher) checkAndArm(ctx context.Context, stepID string, args map[string]any, kind schema.ActionKind, target *schema.Target) (*schema.Contract, bool, error) {
	ref, _ := args["target"].(string)
	quoted, _ := json.Marshal(ref)
	d.mu.Lock()
	values, _ := json.Marshal(append([]string{}, d.typed...))
	d.mu.Unlock()
	w, err := d.call(ctx, stepID, runCodeTool, map[string]any{"code": fmt.Sprintf(readAndArmGuard, quoted, values)}, true)
	if err != nil {
		return nil, false, schema.Errorf(schema.CodeUnavailable, "the control could not be read and guarded: %v", err)
	}
	var got struct {
		Contract schema.Contract `json:"contract"`
		Want     *struct {
			schema.Sending
			Values []string `json:"values"`
		} `json:"want"`
		Armed bool `json:"armed"`
	}
	if err := json.Unmarshal([]byte(resultSection(w.Text)), &got); err != nil || got.Contract.Tag == "" {
		return nil, false, schema.Errorf(schema.CodeUnavailable, "%s on %q did not say what the control is: %s", runCodeTool, ref, schema.Clip(w.Text, 200))
	}
	c := &got.Contract
	want, sends := c.Sending()
	fail := func(err error) (*schema.Contract, bool, error) {
		if got.Armed {
			if derr := d.disarmSend(ctx, stepID, c); derr != nil {
				return nil, false, derr
			}
		}
		return nil, false, err
	}
	guardsValues := got.Want != nil && got.Want.Values != nil
	if got.Armed != (got.Want != nil) || (sends && (guardsValues || got.Want == nil || got.Want.Sending != want)) || (!sends && got.Want != nil && !guardsValues) {
		return fail(schema.Errorf(schema.CodeInternal, "the send guard was armed for %v where the control's contract says %v", got.Want, want))
	}
	if err := d.hold(target, c, kind); err != nil {
		return fail(err)
	}
	if got.Armed && !guardsValues && (target == nil || target.Contract == nil || !c.Sends(kind)) {
		_, _, err := fail(nil)
		return c, false, err
	}
	return c, got.Armed, nil
}

// remember adds what a call of tool types or chooses to the values the
// send guard keeps from leaving by a control that sent nothing, and the
// replay's secrets. The caller holds mu.
func (d *MCPDispatcher) remember(tool string, args map[string]any) {
	for _, v := range d.cfg.Secrets {
		d.typed.Add(v)
	}
	add := func(v any) {
		if s, ok := v.(string); ok {
			d.typed.Add(s)
		}
	}
	switch tool {
	case "browser_type":
		add(args["text"])
	case "browser_fill_form":
		fields, _ := args["fields"].([]any)
		for _, f := range fields {
			if m, ok := f.(map[string]any); ok {
				add(m["value"])
			}
		}
	case "browser_select_option":
		values, _ := args["values"].([]any)
		for _, v := range values {
			add(v)
		}
	}
}

// disarmSend removes the guard: a navigation it refused is
// *schema.Error CodeContractChanged.
func (d *MCPDispatcher) disarmSend(ctx context.Context, stepID string, current *schema.Contract) error {
	w, err := d.call(ctx, stepID, runCodeTool, map[string]any{"code": disarmSendGuard}, true)
	if err != nil {
		return schema.Errorf(schema.CodeUnavailable, "the send guard could not be read: %v", err)
	}
	var g struct {
		Refused string   `json:"refused"`
		Others  []string `json:"others"`
		Missing bool     `json:"missing"`
		Values  bool     `json:"values"`
	}
	if json.Unmarshal([]byte(resultSection(w.Text)), &g) != nil || g.Missing {
		return schema.Errorf(schema.CodeUnavailable, "the send guard did not answer: %s", schema.Clip(w.Text, 200))
	}
	if g.Refused != "" && g.Values {
		return schema.Errorf(schema.CodeContractChanged, "the page sent %s, carrying a value this run typed, where the control sent nothing when it was recorded: aborted in the browser, that request was not sent%s", g.Refused, schema.AlsoSent(g.Others))
	}
	if g.Refused != "" {
		want, _ := current.Sending()
		return schema.Errorf(schema.CodeContractChanged, "the page sent %s where the control's contract says %s (a script moved it as it was used): aborted in the browser, that request was not sent%s",
			g.Refused, want, schema.AlsoSent(g.Others))
	}
	return nil
}
