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
//
// A popup's own Fetch session comes too late for its first document: a
// window.open popup's navigation may set out before interception set up
// on the new session takes hold (now and then, in tests here). So the
// mux also holds every document request in the browser, on its own
// browser-level Fetch, and fails those of a refused popup's frames;
// every other one goes on at once.

// refusePopups turns the browser's auto-attach on for new pages.
func (m *mux) refusePopups() error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	type filter struct {
		Type    string `json:"type,omitempty"`
		Exclude bool   `json:"exclude,omitempty"`
	}
	documents := fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*", ResourceType: network.ResourceTypeDocument, RequestStage: fetch.RequestStageRequest}}}
	if err := m.call(ctx, "", fetch.CommandEnable, documents); err != nil {
		return err
	}
	return m.call(ctx, "", target.CommandSetAutoAttach, struct {
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
	go m.refusePopup(ev.SessionID, info.TargetID)
}

// refusePopup holds every request a popup makes before it runs a thing,
// so none leaves as it starts and before it is closed: the popup runs on
// only once its Fetch.enable has answered (or failed: its documents are
// held at the browser's level all the same, and a popup left waiting
// would hold up its opener, which shares its renderer).
func (m *mux) refusePopup(session target.SessionID, id target.ID) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m.call(ctx, session, fetch.CommandEnable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}})
	m.send(session, runtime.CommandRunIfWaitingForDebugger, nil)
	m.send("", target.CommandCloseTarget, target.CloseTargetParams{TargetID: id})
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

// documentPaused decides on a document request the browser holds for
// the mux: one of a refused popup's frame fails, any other goes on.
func (m *mux) documentPaused(msg *cdproto.Message) {
	var ev struct {
		RequestID fetch.RequestID `json:"requestId"`
		FrameID   target.ID       `json:"frameId"`
	}
	if unmarshal(msg.Params, &ev) != nil {
		return
	}
	if m.refusing(ev.FrameID) {
		m.send("", fetch.CommandFailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		return
	}
	m.send("", fetch.CommandContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
}

// refusing says whether t is a popup being refused: a page the mux
// holds a session on for itself, until it detaches.
func (m *mux) refusing(t target.ID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.sessions {
		if s.c == nil && s.target == t {
			return true
		}
	}
	return false
}
