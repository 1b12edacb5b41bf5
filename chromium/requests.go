package chromium

import (
	"context"
	"slices"
	"time"

	"github.com/chromedp/cdproto"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// The browser-level interception (popups.go) sees each request with
// only the id of the frame that makes it. A frame is a page's main frame
// (whose id is the page's target id), a frame inside a page, or an
// out-of-process frame with a session of its own. The mux learns the
// frames inside driven pages from the Page.frameAttached events of their
// clients' sessions; a request from a frame it does not know is traced:
// once every page the browser has is accounted for (driven, judged free,
// refused, or being judged), the frame is looked for in the pages being
// refused or judged, and decided with them. A request that cannot be
// traced in time is failed.

// judging is a new page being judged, and the requests it made meanwhile.
type judging struct {
	session  target.SessionID
	requests []paused
}

// paused is a request the browser holds for the mux.
type paused struct {
	id       fetch.RequestID
	frame    target.ID
	url      string
	document bool
}

// traceTimeout bounds how long a request of an unknown frame waits.
const traceTimeout = 5 * time.Second

// requestPaused decides on a request the browser holds for the mux.
func (m *mux) requestPaused(msg *cdproto.Message) {
	var ev struct {
		RequestID    fetch.RequestID      `json:"requestId"`
		FrameID      target.ID            `json:"frameId"`
		ResourceType network.ResourceType `json:"resourceType"`
		Request      struct {
			URL string `json:"url"`
		} `json:"request"`
	}
	if unmarshal(msg.Params, &ev) != nil {
		return
	}
	p := paused{id: ev.RequestID, frame: ev.FrameID, url: ev.Request.URL, document: ev.ResourceType == network.ResourceTypeDocument}
	if !m.route(p) {
		go m.trace(p)
	}
}

// route decides a request from a frame the mux knows: it fails one of a
// refused page (and tells its driven page of it: tellOpened), holds one
// of a page being judged, lets one of a driven or free page go (or one
// without a frame: a service worker's). It reports false for a frame it
// does not know.
func (m *mux) route(p paused) bool {
	m.mu.Lock()
	if j, ok := m.held[p.frame]; ok {
		j.requests = append(j.requests, p)
		m.mu.Unlock()
		return true
	}
	refused, known := false, p.frame == "" || m.driven[p.frame] > 0 || m.free[p.frame]
	if _, ok := m.frames[p.frame]; ok {
		known = true
	}
	var tell []*client
	var tellSessions []target.SessionID
	for sid, s := range m.sessions {
		if s.target != p.frame {
			continue
		}
		known, refused = true, s.c == nil
		if refused && p.document && s.tell != "" {
			tellSessions, tell = m.holders(s.tell)
			s.tell = ""
			m.sessions[sid] = s
		}
		break
	}
	m.mu.Unlock()
	if known {
		m.decide(p.id, refused)
	}
	for i, c := range tell {
		c.deliver(windowOpened(tellSessions[i], p.url))
	}
	return known
}

// holders are the clients' own sessions on page t, and their clients.
// The caller holds mu.
func (m *mux) holders(t target.ID) ([]target.SessionID, []*client) {
	var sessions []target.SessionID
	var clients []*client
	for sid, s := range m.sessions {
		if s.c != nil && !s.child && s.target == t {
			sessions, clients = append(sessions, sid), append(clients, s.c)
		}
	}
	return sessions, clients
}

// windowOpened is the Page.windowOpen event the browser sends an opener,
// for a page that opened one without being its opener (a click with
// Shift or Ctrl, or the middle button, opens a page with none).
func windowOpened(session target.SessionID, url string) *cdproto.Message {
	params, _ := jsonv2.Marshal(page.EventWindowOpen{URL: url, WindowFeatures: []string{}, UserGesture: true}, chromedp.DefaultMarshalOptions)
	return &cdproto.Message{SessionID: session, Method: cdproto.EventPageWindowOpen, Params: params}
}

// trace decides a request from a frame the mux does not know.
func (m *mux) trace(p paused) {
	ctx, cancel := context.WithTimeout(context.Background(), traceTimeout)
	defer cancel()
	var targets struct {
		TargetInfos []*target.Info `json:"targetInfos"`
	}
	if err := m.call(ctx, "", target.CommandGetTargets, nil, &targets); err != nil {
		m.decide(p.id, true)
		return
	}
	for _, t := range targets.TargetInfos {
		for t.Type == "page" && !m.accounted(t.TargetID) {
			select {
			case <-ctx.Done():
				m.decide(p.id, true)
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	if m.route(p) {
		return
	}
	// A frame inside a page: look for it in those refused or judged.
	m.mu.Lock()
	pages := map[target.SessionID]target.ID{}
	for sid, s := range m.sessions {
		if s.c == nil {
			pages[sid] = s.target
		}
	}
	for t, j := range m.held {
		pages[j.session] = t
	}
	m.mu.Unlock()
	for sid, t := range pages {
		var tree struct {
			FrameTree *page.FrameTree `json:"frameTree"`
		}
		err := m.call(ctx, sid, page.CommandGetFrameTree, nil, &tree)
		if (err == nil && holds(tree.FrameTree, p.frame)) || (err != nil && m.tracking(sid, t)) {
			inside := p
			inside.frame, inside.document = t, false
			if !m.route(inside) { // decided as its page is, else failed
				m.decide(p.id, true)
			}
			return
		}
	}
	m.decide(p.id, false)
}

// accounted says whether the mux has decided what page t is, or is
// deciding.
func (m *mux) accounted(t target.ID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.driven[t] > 0 || m.free[t] {
		return true
	}
	if _, ok := m.held[t]; ok {
		return true
	}
	for _, s := range m.sessions {
		if s.target == t {
			return true
		}
	}
	return false
}

// tracking says whether page t, on session sid, is still being refused
// or judged.
func (m *mux) tracking(sid target.SessionID, t target.ID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.held[t]; ok {
		return true
	}
	s, ok := m.sessions[sid]
	return ok && s.c == nil
}

// noteFrame records the frames inside a driven page from the Page
// events its client's session carries. The caller holds mu.
func (m *mux) noteFrame(s session, msg *cdproto.Message) {
	if msg.Method != cdproto.EventPageFrameAttached && msg.Method != cdproto.EventPageFrameDetached {
		return
	}
	var ev struct {
		FrameID target.ID `json:"frameId"`
	}
	if unmarshal(msg.Params, &ev) != nil || ev.FrameID == "" {
		return
	}
	if msg.Method == cdproto.EventPageFrameAttached {
		m.frames[ev.FrameID] = s.target
	} else {
		delete(m.frames, ev.FrameID)
	}
}

// forgetFrames drops what the mux knew of page t's frames, once no
// client drives it. The caller holds mu.
func (m *mux) forgetFrames(t target.ID) {
	delete(m.free, t)
	for f, owner := range m.frames {
		if owner == t {
			delete(m.frames, f)
		}
	}
}

// holds says whether frame is in tree.
func holds(tree *page.FrameTree, frame target.ID) bool {
	if tree == nil {
		return false
	}
	if tree.Frame != nil && target.ID(tree.Frame.ID) == frame {
		return true
	}
	return slices.ContainsFunc(tree.ChildFrames, func(c *page.FrameTree) bool { return holds(c, frame) })
}
