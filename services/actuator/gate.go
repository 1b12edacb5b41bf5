package actuator

import (
	"context"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/rote-agent/rote/schema"
)

// The gate is where a session's page loads leave the browser. It holds
// document requests (Fetch) and answers each before a byte is sent:
// whatever started the load (a link, a form, a script, a redirect), a
// confined session's page may load only from its origins, and a send
// guard armed for an action lets through only where the control was
// recorded to send. A refused request is answered in the browser with
// 204 No Content, so the page stays where it was.
//
// A confined session holds every load for its whole life; an unconfined
// one only while a send guard is armed.
type gate struct {
	s       *session
	frame   cdp.FrameID
	origins []string // nil: unconfined

	mu      sync.Mutex
	guard   *sendGuard    // armed for the action in progress
	outside *schema.Error // the first load refused as out_of_origin since take
	wg      sync.WaitGroup
}

// newGate listens to s's paused requests and, when origins confine it,
// starts holding its page loads.
func newGate(s *session, origins []string) (*gate, error) {
	g := &gate{s: s, frame: cdp.FrameID(chromedp.FromContext(s.ctx).Target.TargetID), origins: origins}
	if err := chromedp.Listen(s.ctx, g.onEvent); err != nil {
		return nil, err
	}
	if len(origins) > 0 {
		if err := g.hold(true); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// hold starts or stops holding the page's document requests.
func (g *gate) hold(on bool) error {
	return chromedp.Do(g.s.ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if !on {
			_, err := cdp.Call(ctx, t, fetch.Disable, cdp.Empty{})
			return err
		}
		_, err := cdp.Call(ctx, t, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*", ResourceType: network.ResourceTypeDocument}}})
		return err
	}))
}

// onEvent takes a paused request to a goroutine: a listener may not run
// commands. A tab or window the page opened was refused by the browser
// before it sent a thing (chromium's popups.go): one aimed off a
// confined session's origins is the action's out_of_origin error.
func (g *gate) onEvent(ev any) {
	switch e := ev.(type) {
	case *fetch.EventRequestPaused:
		g.wg.Add(1)
		go g.decide(e)
	case *page.EventWindowOpen:
		if len(g.origins) == 0 || e.URL == "" {
			return // an empty window: nothing was loaded
		}
		if _, err := schema.CheckNavigation(e.URL, g.origins); err != nil {
			g.mu.Lock()
			if g.outside == nil {
				g.outside = schema.Errorf(schema.CodeOutOfOrigin, "the page opened a new tab at %s: refused in the browser, nothing was sent", schema.AsError(err).Message)
			}
			g.mu.Unlock()
		}
	}
}

// decide lets a paused request through or answers it in the browser. A
// confined session's frames load only from its origins too (a form aimed
// at a frame, a frame the page embeds): a refused frame stays empty, and
// only the main frame's refusal is the action's out_of_origin error.
func (g *gate) decide(e *fetch.EventRequestPaused) {
	defer g.wg.Done()
	refuse := false
	g.mu.Lock()
	if e.Request != nil {
		_, err := schema.CheckNavigation(e.Request.URL, g.origins)
		switch {
		case e.FrameID != g.frame:
			refuse = err != nil && len(g.origins) > 0
		case err != nil:
			refuse = true
			if g.outside == nil {
				g.outside = schema.Errorf(schema.CodeOutOfOrigin, "the page went to %s: refused in the browser, that request was not sent", schema.AsError(err).Message)
			}
		}
		if e.FrameID == g.frame && g.guard != nil && g.guard.judge(e) {
			refuse = true
		}
	}
	g.mu.Unlock()
	_ = chromedp.Do(g.s.ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if refuse {
			_, err := cdp.Call(ctx, t, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: e.RequestID, ResponseCode: 204})
			return err
		}
		_, err := cdp.Call(ctx, t, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
		return err
	}))
}

// take returns the out_of_origin refusal since the last take, if any, as
// a *schema.Error, and forgets it.
func (g *gate) take() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	err := g.outside
	g.outside = nil
	if err == nil {
		return nil
	}
	return err
}

// arm holds the page's loads for guard until disarm.
func (g *gate) arm(guard *sendGuard) error {
	g.mu.Lock()
	g.guard = guard
	g.mu.Unlock()
	if len(g.origins) == 0 {
		if err := g.hold(true); err != nil {
			g.mu.Lock()
			g.guard = nil
			g.mu.Unlock()
			return g.s.fail(fmt.Errorf("guard the send: %w", err))
		}
	}
	return nil
}

// disarm ends the guard, once the decisions in flight are answered.
func (g *gate) disarm() error {
	g.wg.Wait() // a decision in flight is sent before Fetch.disable releases what is held
	var err error
	if len(g.origins) == 0 {
		err = g.hold(false)
		g.wg.Wait()
	}
	g.mu.Lock()
	g.guard = nil
	g.mu.Unlock()
	if err != nil {
		return g.s.fail(fmt.Errorf("end the send guard: %w", err))
	}
	return nil
}
