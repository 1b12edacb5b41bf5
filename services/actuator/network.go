package actuator

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
)

// netTracker counts the page's requests in flight, follows whether its
// main frame is loading a document, and remembers when either last
// changed. It is a chromedp listener, so it sees the page's events in the
// order they came; a settle waiting on the network waits on changed, not
// on a clock.
type netTracker struct {
	mu         sync.Mutex
	pending    map[network.RequestID]*request
	streams    map[network.RequestID]*stream
	remote     map[cdp.FrameID]bool // frames a target of their own reports
	main       cdp.FrameID          // the page's own frame, once known
	loading    bool                 // the main frame is loading a document
	lastActive time.Time
	signal     chan struct{} // closed and replaced at every change
	// refresh is what the main document's Refresh header asks for, and
	// refreshAt when, once the document loaded: a reload or redirect the
	// page has scheduled, as a meta refresh does.
	refresh   time.Duration
	refreshAt time.Time
	// sent are the last requests the page started and the frames it sent
	// on its sockets, "METHOD url", with when they started.
	sent []sentRequest
}

// sentRequest is a request the page started, or a frame it sent; a write
// is one that may change something on the server (any method but GET,
// HEAD and OPTIONS; a socket's frame).
type sentRequest struct {
	at    time.Time
	what  string
	write bool
}

// maxSent bounds the requests netTracker remembers as sent.
const maxSent = 32

// request is one request in flight.
type request struct {
	frame cdp.FrameID
	url   string
	what  string // "METHOD url", as a settle that gave up names it
	// loader is the document load the request belongs to: the main
	// frame's next document ends the others, whose ends the browser
	// does not always report.
	loader cdp.LoaderID
	// started is when it was sent, answered when its response arrived,
	// and last when it last received anything (zero until answered).
	started, answered, last time.Time
	document                bool
}

// stream is a WebSocket or an EventSource: open by design, it counts as
// in flight only while the page awaits an answer on it, from its opening
// to the first message it receives and from a frame the page sends to
// the next it receives. Only a wait that began within streamCause of the
// last action counts, as that action's consequence: for up to streamWait
// after an action on the page (a click, a key, a fill), for up to
// streamIdle after a navigation (a page's load opening its live updates).
// A frame the page sends later on its own (a heartbeat, telemetry) is not
// awaited, and a message nobody awaited (a ticker, a push) is not the
// network's activity: what it changes on the page, the page's watch
// sees.
type stream struct {
	awaiting time.Time // since when an answer is awaited; zero: none
	what     string    // "WebSocket url", "EventSource url"
}

// How long a stream's wait for an answer counts (see stream).
const (
	streamCause = time.Second
	streamWait  = 3 * time.Second
	streamIdle  = time.Second
)

// An answered request whose body has stopped arriving is either a body
// the server sends slowly, which the page awaits, or one the page never
// reads (a fetch whose result it ignores), which the browser never
// finishes and which would hold every settle to its cap. As a stream's
// wait (see stream), it counts when it started within streamCause of the
// last action: until nothing arrived for streamWait after an action on
// the page, for streamIdle after a navigation. One the page started later
// on its own (a heartbeat whose answer it ignores) does not.

func newNetTracker() *netTracker {
	return &netTracker{pending: map[network.RequestID]*request{}, streams: map[network.RequestID]*stream{}, remote: map[cdp.FrameID]bool{}, signal: make(chan struct{})}
}

// setMain names the page's own frame, whose document loads are followed.
func (n *netTracker) setMain(frame cdp.FrameID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.main = frame
}

// dropFrame hands frame over to a target of its own (an out-of-process
// frame, whose document request starts in its parent and finishes in
// it): the requests counted for it on the page are forgotten, and the
// page's reports of its requests are not counted from now on.
func (n *netTracker) dropFrame(frame cdp.FrameID) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.remote[frame] = true
	for id, r := range n.pending {
		if r.frame == frame {
			delete(n.pending, id)
		}
	}
	n.wakeLocked()
}

// dropWorker hands the script request of a worker at url over to the
// worker's own target, which reports its end: the page saw it start and
// never sees it finish.
func (n *netTracker) dropWorker(url string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for id, r := range n.pending {
		if r.url == url && !r.document {
			delete(n.pending, id)
		}
	}
	n.wakeLocked()
}

// from is onEvent for the target of frame self ("" the page): a request
// it reports for another frame that reports its own is that frame's to
// count.
func (n *netTracker) from(self cdp.FrameID) func(any) {
	return func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok && e.FrameID != self {
			n.mu.Lock()
			remote := n.remote[e.FrameID]
			n.mu.Unlock()
			if remote {
				return
			}
		}
		n.onEvent(ev)
	}
}

// onEvent follows requests from start to finish, the main frame's
// document loads from their start (a link followed, a form submitted, a
// script's location change) to the page's load, and streams (WebSocket,
// EventSource) while an answer is awaited on them. data: and blob: URLs
// are not counted.
func (n *netTracker) onEvent(ev any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if handled, active := n.onStream(ev); handled {
		if active {
			n.lastActive = time.Now()
			n.wakeLocked()
		}
		return
	}
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		// A data: or blob: URL is read from memory: a shared worker's
		// blob script is reported started and never finished.
		if e.Type == network.ResourceTypeWebSocket || e.Request == nil || strings.HasPrefix(e.Request.URL, "data:") || strings.HasPrefix(e.Request.URL, "blob:") {
			return
		}
		n.pending[e.RequestID] = &request{frame: e.FrameID, url: e.Request.URL, what: e.Request.Method + " " + e.Request.URL, loader: e.LoaderID,
			started: time.Now(), document: e.Type == network.ResourceTypeDocument}
		m := e.Request.Method
		n.remember(m+" "+e.Request.URL, m != "GET" && m != "HEAD" && m != "OPTIONS")
	case *network.EventResponseReceived:
		r := n.pending[e.RequestID]
		if r == nil {
			return
		}
		r.answered, r.last = time.Now(), time.Now()
		if r.document && e.FrameID == n.main && e.Response != nil {
			n.refresh = refreshAfter(e.Response.Headers)
		}
	case *network.EventDataReceived:
		r := n.pending[e.RequestID]
		if r == nil {
			return
		}
		r.last = time.Now()
	case *network.EventLoadingFinished:
		if !n.finish(e.RequestID) {
			return
		}
	case *network.EventLoadingFailed:
		if !n.finish(e.RequestID) {
			return
		}
	case *page.EventFrameNavigated:
		if e.Frame == nil || e.Frame.ParentID != "" || (n.main != "" && e.Frame.ID != n.main) {
			return
		}
		// A new document in the main frame: what the old one had in
		// flight (a long poll, a socket) and its refresh went with it.
		n.refreshAt = time.Time{}
		for id, r := range n.pending {
			if r.loader != e.Frame.LoaderID {
				delete(n.pending, id)
			}
		}
		clear(n.streams)
	case *page.EventFrameStartedLoading:
		if n.main == "" || e.FrameID != n.main {
			return
		}
		n.loading = true
	case *page.EventFrameStoppedLoading:
		if n.main == "" || e.FrameID != n.main {
			return
		}
		n.loading = false
		if n.refresh > 0 {
			n.refreshAt = time.Now().Add(n.refresh)
		}
	default:
		return
	}
	n.lastActive = time.Now()
	n.wakeLocked()
}

// onStream follows ev when it is a stream's: handled says so, and
// active whether it started or ended a wait for an answer (or the page
// sent on the stream), which is the network's activity. The caller holds
// mu.
func (n *netTracker) onStream(ev any) (handled, active bool) {
	answer := func(id network.RequestID) (bool, bool) {
		st := n.streams[id]
		if st == nil || st.awaiting.IsZero() {
			return true, false
		}
		st.awaiting = time.Time{}
		return true, true
	}
	end := func(id network.RequestID) (bool, bool) {
		st, ok := n.streams[id]
		if !ok {
			return false, false // a request's, for onEvent
		}
		delete(n.streams, id)
		return true, !st.awaiting.IsZero()
	}
	switch e := ev.(type) {
	case *network.EventWebSocketCreated:
		n.streams[e.RequestID] = &stream{awaiting: time.Now(), what: "WebSocket " + e.URL}
		return true, true
	case *network.EventRequestWillBeSent:
		if e.Type != network.ResourceTypeEventSource {
			return false, false
		}
		n.streams[e.RequestID] = &stream{awaiting: time.Now(), what: "EventSource " + e.Request.URL}
		return true, true
	case *network.EventWebSocketFrameSent:
		if st := n.streams[e.RequestID]; st != nil {
			st.awaiting = time.Now() // an answer to this one, from now
			n.remember("a frame on "+st.what, true)
		}
		return true, true
	case *network.EventWebSocketFrameReceived:
		return answer(e.RequestID)
	case *network.EventEventSourceMessageReceived:
		return answer(e.RequestID)
	case *network.EventWebSocketClosed:
		end(e.RequestID)
		return true, true
	case *network.EventWebSocketFrameError:
		end(e.RequestID)
		return true, true
	case *network.EventLoadingFinished:
		return end(e.RequestID)
	case *network.EventLoadingFailed:
		return end(e.RequestID)
	}
	return false, false
}

// wakeLocked wakes whoever waits for the network to change. The caller
// holds mu.
func (n *netTracker) wakeLocked() {
	close(n.signal)
	n.signal = make(chan struct{})
}

// finish ends a counted request; the end of one that was never counted
// (a skipped stream, or one the browser makes for itself, such as a
// favicon redirect's follow-up) is not the page's activity.
func (n *netTracker) finish(id network.RequestID) bool {
	if _, ok := n.pending[id]; !ok {
		return false
	}
	delete(n.pending, id)
	return true
}

// refreshAfter reads a Refresh response header ("2", "2; url=/next"): how
// long after the load the page reloads or moves on; 0 for none.
func refreshAfter(headers network.Headers) time.Duration {
	for k, v := range headers {
		if !strings.EqualFold(k, "refresh") {
			continue
		}
		text, _ := v.(string)
		secs, _, _ := strings.Cut(strings.TrimSpace(text), ";")
		secs, _, _ = strings.Cut(secs, ",")
		if f, err := strconv.ParseFloat(strings.TrimSpace(secs), 64); err == nil && f >= 0 && f < 3600 {
			return max(time.Duration(f*float64(time.Second)), time.Millisecond)
		}
	}
	return 0
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// remember notes a request or a socket's frame the page sent now. The
// caller holds mu.
func (n *netTracker) remember(what string, write bool) {
	n.sent = append(n.sent, sentRequest{at: time.Now(), what: what, write: write})
	if len(n.sent) > maxSent {
		n.sent = n.sent[1:]
	}
}

// sentSince returns what the page sent since t that may change something
// on the server ("POST url", "a frame on WebSocket url"), and, when all
// is set, every request it started.
func (n *netTracker) sentSince(t time.Time, all bool) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, r := range n.sent {
		if !r.at.Before(t) && (all || r.write) {
			out = append(out, r.what)
		}
	}
	return out
}

// netState is what the network is doing at one moment.
type netState struct {
	pending    int       // requests in flight
	loading    bool      // the main frame loads a document
	lastActive time.Time // when a request or a load last started or ended
	changed    <-chan struct{}
	// unread is when the first answered request whose body is not being
	// read, or the first stream awaiting an answer, stops counting; zero
	// when none will.
	unread time.Time
	// awaited names what counts as in flight ("GET url", "WebSocket url").
	awaited []string
}

// busy reports whether something is still on its way.
func (s netState) busy() bool { return s.pending > 0 || s.loading }

// state returns what the network is doing now, the last action having
// been dispatched from began to acted (on the page, or a navigation),
// and a channel closed at its next change. A request not yet answered, or a document,
// counts; an answered request whose body stopped arriving and a stream
// awaiting an answer count only as the last action's consequence (see
// stream and the rule above).
func (n *netTracker) state(began, acted time.Time, onPage bool) netState {
	n.mu.Lock()
	defer n.mu.Unlock()
	st := netState{loading: n.loading, lastActive: n.lastActive, changed: n.signal}
	now := time.Now()
	wait := streamIdle
	if onPage {
		wait = streamWait
	}
	// awaits counts what started at start, when the action caused it,
	// until from plus wait.
	awaits := func(what string, start, from time.Time) {
		if acted.IsZero() || start.Before(began) || start.After(acted.Add(streamCause)) {
			return // not the last action's consequence
		}
		if gone := from.Add(wait); now.Before(gone) {
			st.pending++
			st.awaited = append(st.awaited, what)
			if st.unread.IsZero() || gone.Before(st.unread) {
				st.unread = gone
			}
		}
	}
	for _, r := range n.streams {
		if !r.awaiting.IsZero() {
			awaits(r.what, r.awaiting, r.awaiting)
		}
	}
	// A refresh due within the horizon of the action or of the load.
	if due := n.refreshAt; !due.IsZero() && now.Before(due) && due.Before(later(acted, due.Add(-n.refresh)).Add(streamWait)) {
		st.pending++
		st.awaited = append(st.awaited, "the refresh its Refresh header set")
		if st.unread.IsZero() || due.Before(st.unread) {
			st.unread = due
		}
	}
	for _, r := range n.pending {
		if r.answered.IsZero() || r.document {
			st.pending++
			st.awaited = append(st.awaited, r.what)
			continue
		}
		awaits(r.what, r.started, r.last)
	}
	slices.Sort(st.awaited)
	return st
}
