package perception

import (
	"context"
	"slices"
	"sync"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/rote-agent/rote/chromium"
	"github.com/rote-agent/rote/schema"
)

// maxAttached bounds the page targets kept attached; the oldest goes first.
const maxAttached = 64

// attachments keeps DevTools sessions to the pages perception observes:
// one connection per browser, one attached session per page target. The
// actuator owns those browsers and pages; perception only reads them, and
// detaches (never closes) when it lets a page go.
type attachments struct {
	parent context.Context

	mu       sync.Mutex
	browsers map[string]*attachedBrowser
	order    []schema.BrowserRef // least recently used first
}

type attachedBrowser struct {
	alloc   context.Context
	cancel  context.CancelFunc
	targets map[string]*attachedTarget
}

// attachedTarget is a session on one page, and on its out-of-process
// frames. Its mutex serializes captures.
type attachedTarget struct {
	sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
	frames *remoteFrames
}

func newAttachments(parent context.Context) *attachments {
	return &attachments{parent: parent, browsers: map[string]*attachedBrowser{}}
}

// get returns the session on ref's page, attaching on first use. A
// browser perception cannot reach (one another process launched and
// does not share) is a *schema.Error with code unavailable.
func (a *attachments) get(ref schema.BrowserRef) (*attachedTarget, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b := a.browsers[ref.Endpoint]
	if b == nil {
		alloc, cancel, err := chromium.Connect(a.parent, ref.Endpoint)
		if err != nil {
			return nil, schema.Errorf(schema.CodeUnavailable, "observe: %v", err)
		}
		b = &attachedBrowser{alloc: alloc, cancel: cancel, targets: map[string]*attachedTarget{}}
		a.browsers[ref.Endpoint] = b
	}
	a.touch(ref)
	if t := b.targets[ref.TargetID]; t != nil {
		return t, nil
	}
	frames := newRemoteFrames()
	ctx, cancel := chromedp.NewContext(b.alloc, chromedp.WithTargetID(target.ID(ref.TargetID)), chromedp.WithDetachOnCancel(), chromedp.WithListener(frames.onEvent))
	frames.parent = ctx
	t := &attachedTarget{ctx: ctx, cancel: cancel, frames: frames}
	b.targets[ref.TargetID] = t
	if len(a.order) > maxAttached {
		oldest := a.order[0]
		a.dropLocked(oldest)
	}
	return t, nil
}

// touch makes ref the most recently used page.
func (a *attachments) touch(ref schema.BrowserRef) {
	a.forget(ref)
	a.order = append(a.order, ref)
}

// forget takes ref out of the use order.
func (a *attachments) forget(ref schema.BrowserRef) {
	if i := slices.Index(a.order, ref); i >= 0 {
		a.order = slices.Delete(a.order, i, i+1)
	}
}

// drop detaches from ref's page (after an error: the page or its browser
// may be gone), and forgets its browser when no page of it is left.
func (a *attachments) drop(ref schema.BrowserRef) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.dropLocked(ref)
}

func (a *attachments) dropLocked(ref schema.BrowserRef) {
	a.forget(ref)
	b := a.browsers[ref.Endpoint]
	if b == nil {
		return
	}
	if t := b.targets[ref.TargetID]; t != nil {
		t.frames.close()
		t.cancel()
		delete(b.targets, ref.TargetID)
	}
	if len(b.targets) == 0 {
		b.cancel()
		delete(a.browsers, ref.Endpoint)
	}
}

// close detaches from everything.
func (a *attachments) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, b := range a.browsers {
		for _, t := range b.targets {
			t.frames.close()
			t.cancel()
		}
		b.cancel()
	}
	a.browsers = map[string]*attachedBrowser{}
	a.order = nil
}
