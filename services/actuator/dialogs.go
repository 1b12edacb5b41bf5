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

// A page's alert, confirm, prompt or beforeunload dialog halts its
// renderer until it is answered: every later evaluation of the session
// waited on it until the action timed out, and the session was lost. The
// session answers each at once, the cautious way: dismissed, so a
// confirm is declined, a prompt gets no text and a beforeunload keeps the
// page; but during a navigate, whose whole point is to leave the page, a
// beforeunload is accepted. The action during which it opened says so
// (BrowserAction.Dialogs): what the page asked was refused, and a
// replay's checks see what that did.

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
