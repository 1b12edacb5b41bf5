package chromium

import (
	"context"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
)

// A session is one page: a tab or window its page opens (a link or a
// form aimed at _blank, window.open) would load wherever it pointed,
// outside the origin gate, and a script in the page can undo any blocker
// that runs in the page's own world. So the browser itself refuses them:
// the mux attaches to every new page before it runs (auto-attach with
// waitForDebuggerOnStart), and one that a page some client drives opened
// has every request it makes failed before it is sent, and is closed.
// The opener hears of it as Page.windowOpen, with the address, in its
// own session. A page nobody here drives (a user's own tab in a browser
// they started) is let go at once.

// refusePopups turns the browser's auto-attach on for new pages.
func (m *mux) refusePopups() error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	type filter struct {
		Type    string `json:"type,omitempty"`
		Exclude bool   `json:"exclude,omitempty"`
	}
	return m.call(ctx, target.CommandSetAutoAttach, struct {
		AutoAttach             bool     `json:"autoAttach"`
		WaitForDebuggerOnStart bool     `json:"waitForDebuggerOnStart"`
		Flatten                bool     `json:"flatten"`
		Filter                 []filter `json:"filter"`
	}{true, true, true, []filter{{Type: "page"}, {Exclude: true}}})
}

// autoAttached decides on a new page the browser holds for the mux: a
// popup of a driven page is refused; any other page runs on, and the
// mux lets go of it.
func (m *mux) autoAttached(ev *target.EventAttachedToTarget) {
	info := ev.TargetInfo
	m.mu.Lock()
	popup := info.Type == "page" && info.OpenerID != "" && m.driven[info.OpenerID] > 0
	if popup {
		m.own(ev.SessionID, session{target: info.TargetID})
	}
	m.mu.Unlock()
	if !popup {
		m.send(ev.SessionID, runtime.CommandRunIfWaitingForDebugger, nil)
		m.send("", target.CommandDetachFromTarget, target.DetachFromTargetParams{SessionID: ev.SessionID})
		return
	}
	// Every request the popup makes is held before it runs a thing, so
	// none leaves as it starts and before it is closed.
	m.send(ev.SessionID, fetch.CommandEnable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}})
	m.send(ev.SessionID, runtime.CommandRunIfWaitingForDebugger, nil)
	m.send("", target.CommandCloseTarget, target.CloseTargetParams{TargetID: info.TargetID})
}

// popupEvent fails a request a refused popup makes.
func (m *mux) popupEvent(msg *cdproto.Message) {
	if msg.Method != cdproto.EventFetchRequestPaused {
		return
	}
	var ev struct {
		RequestID fetch.RequestID `json:"requestId"`
	}
	if unmarshal(msg.Params, &ev) == nil {
		m.send(msg.SessionID, fetch.CommandFailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
	}
}
