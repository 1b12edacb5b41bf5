package actuator

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
)

// willSend is a request frame starts for document loader.
func willSend(id string, frame cdp.FrameID, loader cdp.LoaderID, method, url string, typ network.ResourceType) *network.EventRequestWillBeSent {
	return &network.EventRequestWillBeSent{RequestID: network.RequestID(id), FrameID: frame, LoaderID: loader, Type: typ,
		Request: &network.Request{Method: method, URL: url}}
}

func answered(id string, frame cdp.FrameID, headers network.Headers) *network.EventResponseReceived {
	return &network.EventResponseReceived{RequestID: network.RequestID(id), FrameID: frame, Response: &network.Response{Headers: headers}}
}

func finished(id string) *network.EventLoadingFinished {
	return &network.EventLoadingFinished{RequestID: network.RequestID(id)}
}

// wakes reports whether ch, a netState's changed, was closed.
func wakes(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// TestNetTrackerCountsRequestsInFlight: a request counts from its start
// to its end; data: and blob: URLs are read from memory and never count;
// the end of a request never counted is not the page's activity and
// wakes nobody.
func TestNetTrackerCountsRequestsInFlight(t *testing.T) {
	n := newNetTracker()
	n.setMain("main")
	n.onEvent(willSend("1", "main", "L1", "GET", "http://shop.test/api/cart", network.ResourceTypeXHR))
	n.onEvent(willSend("2", "main", "L1", "GET", "data:image/png;base64,AAAA", network.ResourceTypeImage))
	n.onEvent(willSend("3", "main", "L1", "GET", "blob:http://shop.test/5f0c", network.ResourceTypeScript))
	st := n.state(time.Time{}, time.Time{}, true)
	if st.pending != 1 || !st.busy() || !slices.Equal(st.awaited, []string{"GET http://shop.test/api/cart"}) {
		t.Fatalf("pending %d, awaited %q: want the one request", st.pending, st.awaited)
	}
	n.onEvent(finished("9"))
	if wakes(st.changed) || n.state(time.Time{}, time.Time{}, true).lastActive != st.lastActive {
		t.Error("the end of a request never counted was taken for activity")
	}
	n.onEvent(finished("1"))
	if after := n.state(time.Time{}, time.Time{}, true); after.busy() || !wakes(st.changed) || !after.lastActive.After(st.lastActive) {
		t.Errorf("after its end: busy %v, woke %v", after.busy(), wakes(st.changed))
	}
}

// TestNetTrackerRemembersWhatThePageSent: every request started is
// remembered, a write being one that may change something on the server
// (any method but GET, HEAD and OPTIONS; a socket's frame), the last
// maxSent of them.
func TestNetTrackerRemembersWhatThePageSent(t *testing.T) {
	n := newNetTracker()
	start := time.Now()
	for i, m := range []string{"GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE"} {
		n.onEvent(willSend(fmt.Sprint(i), "main", "L1", m, "http://shop.test/x", network.ResourceTypeFetch))
	}
	n.onEvent(&network.EventWebSocketCreated{RequestID: "ws", URL: "ws://shop.test/live"})
	n.onEvent(&network.EventWebSocketFrameSent{RequestID: "ws"})
	writes := []string{"POST http://shop.test/x", "PUT http://shop.test/x", "DELETE http://shop.test/x", "a frame on WebSocket ws://shop.test/live"}
	if got := n.sentSince(start, false); !slices.Equal(got, writes) {
		t.Errorf("writes %q, want %q", got, writes)
	}
	if got := n.sentSince(start, true); len(got) != 7 || got[0] != "GET http://shop.test/x" {
		t.Errorf("all sent %q", got)
	}
	if got := n.sentSince(time.Now().Add(time.Minute), true); got != nil {
		t.Errorf("sent in the future: %q", got)
	}
	for i := range 2 * maxSent {
		n.onEvent(willSend(fmt.Sprint("more", i), "main", "L1", "POST", fmt.Sprint("http://shop.test/", i), network.ResourceTypeFetch))
	}
	got := n.sentSince(start, true)
	if len(got) != maxSent || got[maxSent-1] != fmt.Sprint("POST http://shop.test/", 2*maxSent-1) {
		t.Errorf("%d remembered, the last %q: want the last %d", len(got), got[len(got)-1], maxSent)
	}
}

// TestNetTrackerFollowsTheMainDocument: the main frame loading a
// document is the network's activity until it stops; a new document
// there ends what the old one had in flight, but not its own requests,
// and a frame's document changes nothing of the page's.
func TestNetTrackerFollowsTheMainDocument(t *testing.T) {
	n := newNetTracker()
	n.onEvent(&page.EventFrameStartedLoading{FrameID: "main"})
	if n.state(time.Time{}, time.Time{}, false).loading {
		t.Fatal("loading followed before the main frame is known")
	}
	n.setMain("main")
	n.onEvent(&page.EventFrameStartedLoading{FrameID: "ad-frame"})
	if n.state(time.Time{}, time.Time{}, false).loading {
		t.Fatal("a frame's load taken for the page's")
	}
	n.onEvent(&page.EventFrameStartedLoading{FrameID: "main"})
	if st := n.state(time.Time{}, time.Time{}, false); !st.loading || !st.busy() {
		t.Fatal("the main frame's load is not followed")
	}
	n.onEvent(&page.EventFrameStoppedLoading{FrameID: "main"})
	if n.state(time.Time{}, time.Time{}, false).busy() {
		t.Fatal("still loading after the load stopped")
	}

	n.onEvent(willSend("poll", "main", "L1", "GET", "http://shop.test/poll", network.ResourceTypeXHR))
	n.onEvent(willSend("doc", "main", "L2", "GET", "http://shop.test/next", network.ResourceTypeDocument))
	n.onEvent(&network.EventWebSocketCreated{RequestID: "ws", URL: "ws://shop.test/live"})
	for _, other := range []*cdp.Frame{{ID: "ad-frame", ParentID: "main", LoaderID: "L9"}, {ID: "popup", LoaderID: "L9"}} {
		n.onEvent(&page.EventFrameNavigated{Frame: other})
		if st := n.state(time.Time{}, time.Time{}, false); st.pending != 2 || len(n.streams) != 1 {
			t.Fatalf("%s navigated: %d pending %q, %d streams", other.ID, st.pending, st.awaited, len(n.streams))
		}
	}
	n.onEvent(&page.EventFrameNavigated{Frame: &cdp.Frame{ID: "main", LoaderID: "L2"}})
	if st := n.state(time.Time{}, time.Time{}, false); !slices.Equal(st.awaited, []string{"GET http://shop.test/next"}) || len(n.streams) != 0 {
		t.Errorf("after the main frame's new document: awaited %q, %d streams; want its own document only", st.awaited, len(n.streams))
	}
}

// TestNetTrackerHandsFramesAndWorkersOver: a frame with a target of its
// own counts its requests there, not on the page, and a worker's script
// finishes on the worker's target.
func TestNetTrackerHandsFramesAndWorkersOver(t *testing.T) {
	n := newNetTracker()
	onPage, inFrame := n.from(""), n.from("f1")
	onPage(willSend("doc", "f1", "L1", "GET", "http://ads.test/frame", network.ResourceTypeDocument))
	onPage(willSend("w", "main", "L1", "GET", "http://shop.test/worker.js", network.ResourceTypeOther))
	onPage(willSend("page", "main", "L1", "GET", "http://shop.test/worker.js", network.ResourceTypeDocument))
	if got := n.state(time.Time{}, time.Time{}, false).pending; got != 3 {
		t.Fatalf("%d pending, want 3", got)
	}
	n.dropFrame("f1")
	n.dropWorker("http://shop.test/worker.js")
	if st := n.state(time.Time{}, time.Time{}, false); !slices.Equal(st.awaited, []string{"GET http://shop.test/worker.js"}) {
		t.Fatalf("after the hand-over: awaited %q, want the document of that address only", st.awaited)
	}
	onPage(willSend("img", "f1", "L1", "GET", "http://ads.test/pixel.gif", network.ResourceTypeImage))
	if got := n.state(time.Time{}, time.Time{}, false).pending; got != 1 {
		t.Errorf("the page counted a request of a frame that reports its own: %d pending", got)
	}
	inFrame(willSend("img", "f1", "L1", "GET", "http://ads.test/pixel.gif", network.ResourceTypeImage))
	if got := n.state(time.Time{}, time.Time{}, false).pending; got != 2 {
		t.Errorf("the frame's own request was not counted: %d pending", got)
	}
}

// TestNetTrackerCountsSlowBodiesAsTheActionsOnly: an answered request
// whose body is still to come counts only when the last action started
// it and only until nothing arrived for the wait; an answered document
// always counts until it ends.
func TestNetTrackerCountsSlowBodiesAsTheActionsOnly(t *testing.T) {
	n := newNetTracker()
	n.setMain("main")
	began := time.Now()
	n.onEvent(willSend("1", "main", "L1", "GET", "http://shop.test/export.csv", network.ResourceTypeFetch))
	n.onEvent(answered("1", "main", nil))
	acted := time.Now()
	cases := []struct {
		name          string
		began, acted  time.Time
		onPage        bool
		lastArrival   time.Time
		pending       int
		unreadPending bool
	}{
		{"the action's", began, acted, true, time.Now(), 1, true},
		{"no action yet", began, time.Time{}, true, time.Now(), 0, false},
		{"started before the action", acted.Add(time.Millisecond), acted.Add(time.Millisecond), true, time.Now(), 0, false},
		{"nothing arrived for the wait", began, acted, true, time.Now().Add(-streamWait - time.Second), 0, false},
		{"after a navigation, a shorter wait", began, acted, false, time.Now().Add(-streamIdle - time.Second), 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n.pending["1"].last = c.lastArrival
			st := n.state(c.began, c.acted, c.onPage)
			if st.pending != c.pending || !st.unread.IsZero() != c.unreadPending {
				t.Errorf("pending %d (until %v), want %d", st.pending, st.unread, c.pending)
			}
		})
	}
	n.onEvent(willSend("doc", "main", "L2", "GET", "http://shop.test/next", network.ResourceTypeDocument))
	n.onEvent(answered("doc", "main", nil))
	if st := n.state(time.Time{}, time.Time{}, false); !slices.Equal(st.awaited, []string{"GET http://shop.test/next"}) {
		t.Errorf("an answered document: awaited %q", st.awaited)
	}
}

// TestNetTrackerCountsStreamsWhileAnAnswerIsAwaited: a WebSocket or an
// EventSource counts from its opening to its first message, and from a
// frame the page sends to the next it receives, as the action's
// consequence; closed, it counts no more.
func TestNetTrackerCountsStreamsWhileAnAnswerIsAwaited(t *testing.T) {
	n := newNetTracker()
	began := time.Now()
	n.onEvent(&network.EventWebSocketCreated{RequestID: "ws", URL: "ws://shop.test/live"})
	n.onEvent(willSend("es", "main", "L1", "GET", "http://shop.test/events", network.ResourceTypeEventSource))
	look := func(want ...string) {
		t.Helper()
		st := n.state(began, time.Now(), true)
		if st.pending != len(want) || !slices.Equal(st.awaited, want) {
			t.Errorf("pending %d, awaited %q; want %q", st.pending, st.awaited, want)
		}
	}
	if st := n.state(began, time.Time{}, true); st.pending != 0 {
		t.Errorf("streams opened before any action are awaited: %q", st.awaited)
	}
	look("EventSource http://shop.test/events", "WebSocket ws://shop.test/live")
	n.onEvent(&network.EventWebSocketFrameReceived{RequestID: "ws"})
	n.onEvent(&network.EventEventSourceMessageReceived{RequestID: "es"})
	look()
	n.onEvent(&network.EventWebSocketFrameSent{RequestID: "ws"})
	look("WebSocket ws://shop.test/live")
	n.onEvent(&network.EventWebSocketClosed{RequestID: "ws"})
	n.onEvent(finished("es"))
	look()
	if len(n.streams) != 0 || len(n.pending) != 0 {
		t.Errorf("left %d streams and %d requests", len(n.streams), len(n.pending))
	}
}

// TestRefreshAfter reads a Refresh header as the page's scheduled reload.
func TestRefreshAfter(t *testing.T) {
	cases := []struct {
		headers network.Headers
		want    time.Duration
	}{
		{network.Headers{"Refresh": "2"}, 2 * time.Second},
		{network.Headers{"refresh": "2; url=/next"}, 2 * time.Second},
		{network.Headers{"REFRESH": " 1.5 ,url=/next"}, 1500 * time.Millisecond},
		{network.Headers{"Refresh": "0"}, time.Millisecond},
		{network.Headers{"Refresh": "-1"}, 0},
		{network.Headers{"Refresh": "3600"}, 0},
		{network.Headers{"Refresh": "soon"}, 0},
		{network.Headers{"Refresh": 2}, 0},
		{network.Headers{"Content-Type": "text/html"}, 0},
		{nil, 0},
	}
	for _, c := range cases {
		if got := refreshAfter(c.headers); got != c.want {
			t.Errorf("%v: %v, want %v", c.headers, got, c.want)
		}
	}
}

// TestNetTrackerAwaitsADueRefresh: a refresh the main document's header
// schedules counts once its load ended, when it is due within the
// horizon, until a new document replaces the page.
func TestNetTrackerAwaitsADueRefresh(t *testing.T) {
	for _, c := range []struct {
		refresh string
		awaited bool
	}{
		{"2; url=/next", true},
		{"30", false},
	} {
		t.Run(c.refresh, func(t *testing.T) {
			n := newNetTracker()
			n.setMain("main")
			n.onEvent(willSend("doc", "main", "L1", "GET", "http://shop.test/wait", network.ResourceTypeDocument))
			n.onEvent(answered("doc", "main", network.Headers{"Refresh": c.refresh}))
			n.onEvent(finished("doc"))
			if st := n.state(time.Time{}, time.Time{}, false); st.busy() {
				t.Fatalf("a refresh awaited before the load ended: %q", st.awaited)
			}
			n.onEvent(&page.EventFrameStoppedLoading{FrameID: "main"})
			st := n.state(time.Time{}, time.Time{}, false)
			if got := slices.Equal(st.awaited, []string{"the refresh its Refresh header set"}); got != c.awaited || (c.awaited && !st.unread.Equal(n.refreshAt)) {
				t.Fatalf("awaited %q until %v", st.awaited, st.unread)
			}
			n.onEvent(&page.EventFrameNavigated{Frame: &cdp.Frame{ID: "main", LoaderID: "L2"}})
			if st := n.state(time.Time{}, time.Time{}, false); st.busy() {
				t.Errorf("the old document's refresh awaited after a new one: %q", st.awaited)
			}
		})
	}
}
