package actuator

import "testing"

// TestHeldBy: a settle that gave up names the network's wait first, then
// what the page's watch said.
func TestHeldBy(t *testing.T) {
	busy := netState{pending: 2, awaited: []string{"GET http://x/poll", "WebSocket ws://x/live", "GET http://x/more"}}
	cases := []struct {
		net    netState
		probe  settleProbe
		looked bool
		want   string
	}{
		{netState{loading: true}, settleProbe{}, false, "its document still loading"},
		{busy, settleProbe{}, false, "awaiting GET http://x/poll, WebSocket ws://x/live and 1 more"},
		{netState{}, settleProbe{}, false, "its watch not answering"},
		{netState{}, settleProbe{Watch: true, Ready: "interactive"}, true, "its document not complete"},
		{netState{}, settleProbe{Watch: true, Ready: "complete", Timer: true}, true, "work it scheduled still due"},
		{netState{}, settleProbe{Watch: true, Ready: "complete"}, true, "its DOM still changing"},
	}
	for _, c := range cases {
		if got := heldBy(c.net, c.probe, c.looked); got != c.want {
			t.Errorf("%+v %+v: %q, want %q", c.net, c.probe, got, c.want)
		}
	}
}
