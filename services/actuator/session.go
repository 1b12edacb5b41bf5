package actuator

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/rote-agent/rote/schema"
)

// session is one run's page, in a browser context of its own.
type session struct {
	runID   string
	browser *browser
	ctx     context.Context // the chromedp context of the page
	cancel  context.CancelFunc
	ref     schema.BrowserRef
	net     *netTracker

	mu  sync.Mutex // one action or observation at a time
	seq uint64     // numbers the run's browser events
}

// mutationScript counts DOM mutations in window.__roteMutations, in every
// document the page loads: settledness polls it.
const mutationScript = `(() => {
  if (window.__roteMutations !== undefined) return;
  window.__roteMutations = 0;
  new MutationObserver(() => { window.__roteMutations++; })
    .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
})();`

// openSession creates a browser context with one page in b and starts
// watching its network and DOM.
func openSession(b *browser, runID string) (*session, error) {
	ctx, cancel := chromedp.NewContext(b.alloc, chromedp.WithNewBrowserContext())
	s := &session{runID: runID, browser: b, ctx: ctx, cancel: cancel, net: newNetTracker()}
	s.net.watch(ctx)
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: mutationScript})
		return err
	}), chromedp.Evaluate[chromedp.Void](mutationScript)); err != nil {
		cancel()
		return nil, s.fail(fmt.Errorf("open page: %w", err))
	}
	s.ref = schema.BrowserRef{WSURL: b.proc.ws, TargetID: string(chromedp.FromContext(ctx).Target.TargetID)}
	return s, nil
}

// nextSeq numbers the next browser event of the run. The caller holds mu.
func (s *session) nextSeq() uint64 {
	s.seq++
	return s.seq
}

// fail turns an error into ErrBrowserCrashed when the browser is gone.
func (s *session) fail(err error) error {
	if err == nil {
		return nil
	}
	if !s.browser.proc.alive() {
		return schema.Errorf(schema.CodeBrowserCrashed, "the browser of run %s died: %v", s.runID, err)
	}
	var e *schema.Error
	if errors.As(err, &e) {
		return err
	}
	return schema.Errorf(schema.CodeInternal, "%v", err)
}

func (s *session) close() { s.cancel() }

// netTracker counts the page's requests in flight.
type netTracker struct {
	mu      sync.Mutex
	pending map[network.RequestID]bool
}

func newNetTracker() *netTracker { return &netTracker{pending: map[network.RequestID]bool{}} }

// watch follows the page's network events until ctx ends. Streams that
// never finish by design (EventSource, WebSocket) are not counted.
func (n *netTracker) watch(ctx context.Context) {
	sent := chromedp.Events(ctx, network.RequestWillBeSent)
	finished := chromedp.Events(ctx, network.LoadingFinished)
	failed := chromedp.Events(ctx, network.LoadingFailed)
	go func() {
		for ev, err := range sent {
			if err != nil {
				return
			}
			if ev.Type == network.ResourceTypeEventSource || ev.Type == network.ResourceTypeWebSocket || (ev.Request != nil && len(ev.Request.URL) > 5 && ev.Request.URL[:5] == "data:") {
				continue
			}
			n.mu.Lock()
			n.pending[ev.RequestID] = true
			n.mu.Unlock()
		}
	}()
	done := func(id network.RequestID) {
		n.mu.Lock()
		delete(n.pending, id)
		n.mu.Unlock()
	}
	go func() {
		for ev, err := range finished {
			if err != nil {
				return
			}
			done(ev.RequestID)
		}
	}()
	go func() {
		for ev, err := range failed {
			if err != nil {
				return
			}
			done(ev.RequestID)
		}
	}()
}

func (n *netTracker) inFlight() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.pending)
}
