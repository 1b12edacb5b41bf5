package chromium

import (
	"context"
	"slices"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
)

// A session is one page: a tab or window its page opens (a link or a
// form aimed at _blank, window.open, a click with Shift, Ctrl or the
// middle button) would load wherever it pointed, outside the origin
// gate, and a script in the page can undo any blocker that runs in the
// page's own world. So the browser itself refuses them: the mux attaches
// to every new page before it runs (auto-attach with
// waitForDebuggerOnStart). A page that a driven page opened (its opener),
// or one that appears in the browser context of a driven page that a
// client created (Rote gives each session a context of its own: a page
// a modified click opens there has no opener), has every request it
// makes failed before it is sent, and is closed. The opener hears of it
// as Page.windowOpen, with the address, in its own session. Any other
// page (a session's own first page, a user's tab in a browser they
// started) runs on, and the mux lets go of it.
//
// A popup's own Fetch session comes too late: its first document may set
// out before interception on the new session takes hold, and its opener
// may write into an about:blank popup at once (an image whose address
// carries what the page knows). So the mux also holds every request in
// the browser, on its own browser-level Fetch: one of a refused popup's
// frames, or of a frame inside one, fails; one of a page still being
// judged waits for the judgment; every other one goes on at once.

// refusePopups turns the browser's auto-attach on for new pages.
func (m *mux) refusePopups() error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	type filter struct {
		Type    string `json:"type,omitempty"`
		Exclude bool   `json:"exclude,omitempty"`
	}
	every := fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*", RequestStage: fetch.RequestStageRequest}}}
	if err := m.call(ctx, "", fetch.CommandEnable, every, nil); err != nil {
		return err
	}
	err := m.call(ctx, "", target.CommandSetAutoAttach, struct {
		AutoAttach             bool     `json:"autoAttach"`
		WaitForDebuggerOnStart bool     `json:"waitForDebuggerOnStart"`
		Flatten                bool     `json:"flatten"`
		Filter                 []filter `json:"filter"`
	}{true, true, true, []filter{{Type: "page"}, {Exclude: true}}}, nil)
	if err != nil {
		return err
	}
	// The pages there before (a browser's first tab) are nobody's popups.
	var targets struct {
		TargetInfos []*target.Info `json:"targetInfos"`
	}
	if err := m.call(ctx, "", target.CommandGetTargets, nil, &targets); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range targets.TargetInfos {
		if t.Type == "page" {
			m.free[t.TargetID] = true
		}
	}
	return nil
}

// autoAttached decides on a new page the browser holds for the mux: a
// popup of a driven page is refused; any other is judged by its browser
// context (judge), its requests held meanwhile.
func (m *mux) autoAttached(ev *target.EventAttachedToTarget) {
	info := ev.TargetInfo
	m.mu.Lock()
	popup := info.Type == "page" && info.OpenerID != "" && m.driven[info.OpenerID] > 0
	if popup {
		m.own(ev.SessionID, session{target: info.TargetID})
	} else {
		m.held[info.TargetID] = &judging{session: ev.SessionID}
	}
	m.mu.Unlock()
	if popup {
		go m.refusePopup(ev.SessionID, info.TargetID)
		return
	}
	go m.judge(ev.SessionID, info)
}

// judge refuses a page without a driven opener when it appeared in a
// browser context a client created that holds a driven page; else it
// lets the page go. The requests it made meanwhile are failed or let go
// with it, and the driven page hears of a refused one as if it had opened
// it (tellOpened). A page that cannot be judged (the browser does not
// answer) is refused.
func (m *mux) judge(sid target.SessionID, info *target.Info) {
	popup, tell := true, target.ID("")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var contexts struct {
		BrowserContextIDs []cdp.BrowserContextID `json:"browserContextIds"`
	}
	var targets struct {
		TargetInfos []*target.Info `json:"targetInfos"`
	}
	if m.call(ctx, "", target.CommandGetBrowserContexts, nil, &contexts) == nil &&
		m.call(ctx, "", target.CommandGetTargets, nil, &targets) == nil {
		i := slices.IndexFunc(targets.TargetInfos, func(t *target.Info) bool {
			return t.BrowserContextID == info.BrowserContextID && t.TargetID != info.TargetID && m.isDriven(t.TargetID)
		})
		popup = i >= 0 && slices.Contains(contexts.BrowserContextIDs, info.BrowserContextID)
		if popup {
			tell = targets.TargetInfos[i].TargetID
		}
	}
	m.mu.Lock()
	held := m.held[info.TargetID]
	delete(m.held, info.TargetID)
	if popup {
		m.own(sid, session{target: info.TargetID, tell: tell})
	} else {
		m.free[info.TargetID] = true
	}
	m.mu.Unlock()
	for _, p := range held.requests {
		if !m.route(p) {
			m.decide(p.id, true)
		}
	}
	if popup {
		m.refusePopup(sid, info.TargetID)
		return
	}
	m.send(sid, runtime.CommandRunIfWaitingForDebugger, nil)
	m.send("", target.CommandDetachFromTarget, target.DetachFromTargetParams{SessionID: sid})
}

// isDriven says whether a client holds a session on t.
func (m *mux) isDriven(t target.ID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.driven[t] > 0
}

// refusePopup holds every request a popup makes before it runs a thing,
// so none leaves as it starts and before it is closed: the popup runs on
// only once its Fetch.enable has answered (or failed: its requests are
// held at the browser's level all the same, and a popup left waiting
// would hold up its opener, which shares its renderer).
func (m *mux) refusePopup(session target.SessionID, id target.ID) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	m.call(ctx, session, fetch.CommandEnable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}, nil)
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

// decide fails a request the browser holds for the mux, or lets it go.
func (m *mux) decide(id fetch.RequestID, fail bool) {
	if fail {
		m.send("", fetch.CommandFailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: network.ErrorReasonBlockedByClient})
		return
	}
	m.send("", fetch.CommandContinueRequest, fetch.ContinueRequestParams{RequestID: id})
}
