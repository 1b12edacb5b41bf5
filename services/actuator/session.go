package actuator

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
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
	frames  *frames
	dialogs *dialogs
	gate    *gate

	mu        sync.Mutex        // one action or observation at a time
	seq       uint64            // numbers the run's browser events
	began     time.Time         // when the last action began
	acted     time.Time         // when it was dispatched
	actedKind schema.ActionKind // and what it was
	// secrets are the run's secrets (name to value) its actions carried:
	// observations show each as {{name}}.
	secrets map[string]string
	// typed are the values the run's actions typed or chose, and its
	// secrets (schema.TypedValues).
	typed schema.TypedValues
	// watched is what the page's watch said when the page last settled,
	// before what it said as the last action began, and seen the last
	// capture, reused while the page is unchanged.
	watched, before settleProbe
	seen            *seenCapture
}

// learnSecrets adds the secrets an action carried. The caller holds mu.
func (s *session) learnSecrets(secrets map[string]string) {
	for name, v := range secrets {
		s.typed.Add(v)
		if s.secrets == nil {
			s.secrets = map[string]string{}
		}
		s.secrets[name] = v
	}
}

// openSession creates a browser context with one page in b, confined to
// origins (none: any http or https page), and starts watching its
// network, DOM and page loads.
func openSession(b *browser, runID string, origins []string) (*session, error) {
	s, err := newPage(b)
	if err != nil {
		return nil, err
	}
	if err := s.confine(runID, origins); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// newPage creates a browser context with one blank page in b, watching
// its network, frames and dialogs, with the settle watch in every
// document: a session of no run yet, which confine gives one. A tab or
// window the page opens is refused by the browser itself (chromium's
// popups.go), where the page's scripts cannot undo it; the gate hears
// of it.
func newPage(b *browser) (*session, error) {
	net := newNetTracker()
	fr := newFrames(net)
	dl := &dialogs{}
	ctx, cancel := chromedp.NewContext(b.alloc, chromedp.WithNewBrowserContext(), chromedp.WithListener(net.from("")), chromedp.WithListener(fr.listener(nil)), chromedp.WithListener(dl.listener))
	fr.page = ctx
	dl.mu.Lock()
	dl.page = ctx
	dl.mu.Unlock()
	s := &session{browser: b, ctx: ctx, cancel: cancel, net: net, frames: fr, dialogs: dl}
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: settleWatchScript})
		return err
	}), chromedp.Evaluate[chromedp.Void](settleWatchScript)); err != nil {
		cancel()
		return nil, s.fail(fmt.Errorf("open page: %w", err))
	}
	net.setMain(cdp.FrameID(chromedp.FromContext(ctx).Target.TargetID))
	s.ref = schema.BrowserRef{Endpoint: b.proc.Endpoint(), TargetID: string(chromedp.FromContext(ctx).Target.TargetID)}
	return s, nil
}

// confine makes a new page run runID's session, its loads confined to
// origins.
func (s *session) confine(runID string, origins []string) error {
	g, err := newGate(s, origins)
	if err != nil {
		return s.fail(fmt.Errorf("open page: %w", err))
	}
	s.runID, s.gate = runID, g
	return nil
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
	if !s.browser.proc.Alive() {
		return schema.Errorf(schema.CodeBrowserCrashed, "the browser of run %s died: %v", s.runID, err)
	}
	var e *schema.Error
	if errors.As(err, &e) {
		return err
	}
	return schema.Errorf(schema.CodeInternal, "%v", err)
}

func (s *session) close() {
	s.frames.close()
	s.cancel()
}
