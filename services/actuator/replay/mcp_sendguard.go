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

// armSendGuard is Playwright code that routes the page's navigations
// through the guard; %s is the schema.Sending, {method, ref, form}.
const armSendGuard = `async (page) => {
  const want = %s;
  const target = new URL(want.ref, page.url());
  const norm = (u, dropQuery) => { const x = new URL(u); x.hash = ''; if (dropQuery) x.search = ''; return x.href; };
  const guard = { decided: false, refused: '' };
  guard.handler = async (route, request) => {
    if (guard.decided || !request.isNavigationRequest() || request.frame() !== page.mainFrame() || request.redirectedFrom()) return route.continue();
    guard.decided = true;
    const m = request.method(), q = want.form && m === 'GET';
    if (want.method !== '' && m === want.method && norm(request.url(), q) === norm(target.href, q)) return route.continue();
    guard.refused = m + ' ' + request.url();
    return route.abort('blockedbyclient');
  };
  page.__roteSendGuard = guard;
  await page.route('**/*', guard.handler);
  return { armed: true };
}`

// disarmSendGuard removes the route and says what it refused.
const disarmSendGuard = `async (page) => {
  const g = page.__roteSendGuard;
  delete page.__roteSendGuard;
  if (!g) return { missing: true };
  await page.unroute('**/*', g.handler);
  return { refused: g.refused };
}`

// armSend routes the page's next navigation through the guard, when the
// server can run Playwright code and a recorded control (target) sends,
// to where it sends now (current, as just read and checked against the
// record). It reports whether it armed.
func (d *MCPDispatcher) armSend(ctx context.Context, stepID string, kind schema.ActionKind, target *schema.Target, current *schema.Contract) (bool, error) {
	if target == nil || target.Contract == nil || !current.Sends(kind) || !d.offers(runCodeTool) {
		return false, nil
	}
	want, ok := current.Sending()
	if !ok {
		return false, nil
	}
	b, _ := json.Marshal(want)
	if _, err := d.call(ctx, stepID, runCodeTool, map[string]any{"code": fmt.Sprintf(armSendGuard, b)}, true); err != nil {
		return false, schema.Errorf(schema.CodeUnavailable, "the send guard could not be set: %v", err)
	}
	return true, nil
}

// disarmSend removes the guard: a navigation it refused is
// *schema.Error CodeContractChanged.
func (d *MCPDispatcher) disarmSend(ctx context.Context, stepID string, current *schema.Contract) error {
	w, err := d.call(ctx, stepID, runCodeTool, map[string]any{"code": disarmSendGuard}, true)
	if err != nil {
		return schema.Errorf(schema.CodeUnavailable, "the send guard could not be read: %v", err)
	}
	var g struct {
		Refused string `json:"refused"`
		Missing bool   `json:"missing"`
	}
	if json.Unmarshal([]byte(resultSection(w.Text)), &g) != nil || g.Missing {
		return schema.Errorf(schema.CodeUnavailable, "the send guard did not answer: %s", schema.Clip(w.Text, 200))
	}
	if g.Refused != "" {
		want, _ := current.Sending()
		return schema.Errorf(schema.CodeContractChanged, "the page sent %s where the control's contract says %s (a script moved it as it was used): aborted in the browser, nothing was sent", g.Refused, want)
	}
	return nil
}
