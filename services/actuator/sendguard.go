package actuator

import (
	"context"
	"fmt"
	"net/url"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/rote-agent/rote/schema"
)

// A contract is read before the action; a page script can still move the
// form between that read and the request (on mousedown, change, an Enter
// keydown, submit). The send guard closes that gap where the request
// leaves: while a recorded control that sends is clicked or pressed, the
// page's first main-frame navigation is held (Fetch) and let through only
// when it goes where the recorded contract says, by its method; anything
// else is answered in the browser, before a byte is sent, and the action
// is contract_changed.

// sending is where a control sends (schema.Sending), resolved against
// the page.
type sending struct {
	schema.Sending
	url *url.URL
}

// sendsTo returns where c says its control sends, resolved against the
// page at pageURL, and whether it sends at all.
func sendsTo(c *schema.Contract, pageURL string) (sending, bool) {
	to, ok := c.Sending()
	if !ok {
		return sending{}, false
	}
	base, err := url.Parse(pageURL)
	if err != nil {
		return sending{}, false
	}
	u, err := base.Parse(to.Ref)
	if err != nil {
		return sending{}, false
	}
	u.Fragment = ""
	return sending{Sending: to, url: u}, true
}

// allows reports whether a request of method to raw is the sending: a
// POST to the action exactly; a GET form's request to the action with
// any query (the form's fields); a link's GET to its href exactly.
func (s sending) allows(method, raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || s.Method == "" || method != s.Method {
		return false
	}
	u.Fragment = ""
	if s.Form && method == "GET" {
		got, want := *u, *s.url
		got.RawQuery, want.RawQuery = "", ""
		return got.String() == want.String()
	}
	return u.String() == s.url.String()
}

// sendGuard holds a session's first main-frame navigation to a sending.
type sendGuard struct {
	want    sending
	frame   cdp.FrameID
	s       *session
	stop    context.CancelFunc
	mu      sync.Mutex
	decided bool
	refused string // the request refused, "METHOD url"
	wg      sync.WaitGroup
}

// guardSend arms a guard for an action on a control with contract c.
func (s *session) guardSend(c *schema.Contract) (*sendGuard, error) {
	pageURL, err := chromedp.Run(s.ctx, chromedp.Location())
	if err != nil {
		return nil, s.fail(err)
	}
	want, ok := sendsTo(c, pageURL)
	if !ok {
		return nil, nil
	}
	lctx, stop := context.WithCancel(s.ctx)
	g := &sendGuard{want: want, frame: cdp.FrameID(chromedp.FromContext(s.ctx).Target.TargetID), s: s, stop: stop}
	if err := chromedp.Listen(lctx, g.onEvent); err != nil {
		stop()
		return nil, s.fail(err)
	}
	err = chromedp.Do(s.ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*", ResourceType: network.ResourceTypeDocument}}})
		return err
	}))
	if err != nil {
		stop()
		return nil, s.fail(fmt.Errorf("guard the send: %w", err))
	}
	return g, nil
}

// onEvent takes a paused request to a goroutine: a listener may not run
// commands.
func (g *sendGuard) onEvent(ev any) {
	if e, ok := ev.(*fetch.EventRequestPaused); ok {
		g.wg.Add(1)
		go g.decide(e)
	}
}

// decide lets a paused request through or fails it: only the first
// main-frame navigation is the sending; what follows it (a redirect, a
// frame's load) goes on.
func (g *sendGuard) decide(e *fetch.EventRequestPaused) {
	defer g.wg.Done()
	g.mu.Lock()
	refuse := false
	if !g.decided && e.FrameID == g.frame && e.RedirectedRequestID == "" && e.Request != nil {
		g.decided = true
		if !g.want.allows(e.Request.Method, e.Request.URL) {
			refuse = true
			g.refused = e.Request.Method + " " + e.Request.URL
		}
	}
	g.mu.Unlock()
	_ = chromedp.Do(g.s.ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if refuse {
			// Answered in the browser with 204 No Content: the request is
			// never sent, and the page stays where it was (a failed
			// request would leave an error page).
			_, err := cdp.Call(ctx, t, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: e.RequestID, ResponseCode: 204})
			return err
		}
		_, err := cdp.Call(ctx, t, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
		return err
	}))
}

// disarm stops holding requests and says whether one was refused: a
// *schema.Error with CodeContractChanged.
func (g *sendGuard) disarm() error {
	g.wg.Wait() // a decision in flight is sent before Fetch.disable releases what is held
	err := chromedp.Do(g.s.ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, fetch.Disable, cdp.Empty{})
		return err
	}))
	g.stop()
	g.wg.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.refused != "" {
		return schema.Errorf(schema.CodeContractChanged, "the page sent %s where the control's contract says %s (a script moved it as it was used): refused in the browser, nothing was sent", g.refused, g.want.Sending)
	}
	if err != nil {
		return g.s.fail(fmt.Errorf("end the send guard: %w", err))
	}
	return nil
}
