package actuator

import (
	"context"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/rote-agent/rote/schema"
)

// A page's dialog halts its renderer until it is answered, so each is
// answered at once, the cautious way: dismissed (a confirm declined, a
// prompt given no text, a beforeunload keeping the page), except a
// beforeunload during a navigate, which is accepted. The action during
// which it opened reports it (BrowserAction.Dialogs).

// dialogs answers a page's dialogs and keeps what they said until the
// next action takes it.
type dialogs struct {
	page context.Context // the page's chromedp context

	mu      sync.Mutex
	seen    []string
	leaving bool // a navigate is under way: a beforeunload is accepted
}

// leave says whether a navigate is under way.
func (d *dialogs) leave(on bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.leaving = on
}

// listener is a chromedp listener: it cannot call the browser itself, so
// it answers from a goroutine of its own.
func (d *dialogs) listener(ev any) {
	e, ok := ev.(*page.EventJavascriptDialogOpening)
	if !ok {
		return
	}
	d.mu.Lock()
	accept := d.leaving && e.Type == page.DialogTypeBeforeunload
	answer := "dismissed"
	if accept {
		answer = "accepted: the navigate leaves the page"
	}
	if len(d.seen) < schema.MaxDialogs {
		d.seen = append(d.seen, fmt.Sprintf("%s %q %s", e.Type, schema.Clip(e.Message, maxDialogText), answer))
	}
	ctx := d.page
	d.mu.Unlock()
	if ctx == nil {
		return
	}
	go func() {
		_ = chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept})
			return err
		}))
	}()
}

// maxDialogText bounds the message a dialog is reported with.
const maxDialogText = 200

// take returns the dialogs answered since the last take.
func (d *dialogs) take() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	seen := d.seen
	d.seen = nil
	return seen
}
