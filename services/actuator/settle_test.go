package actuator

import (
	"slices"
	"testing"
	"time"

	"github.com/rote-agent/rote/schema"
)

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

// TestSettleConfigDefaults: a field left zero or negative takes
// DefaultSettle's; one set is kept.
func TestSettleConfigDefaults(t *testing.T) {
	if got := (SettleConfig{}).orDefault(); got != DefaultSettle {
		t.Errorf("zero config: %+v, want %+v", got, DefaultSettle)
	}
	got := SettleConfig{Quiet: 80 * time.Millisecond, Cap: -time.Second, SendGrace: time.Second}.orDefault()
	want := DefaultSettle
	want.Quiet, want.SendGrace = 80*time.Millisecond, time.Second
	if got != want {
		t.Errorf("partial config: %+v, want %+v", got, want)
	}
}

// TestSettleGrace: only a click, a key or a drag sets off what shows
// after the action returns; the others have no grace.
func TestSettleGrace(t *testing.T) {
	cfg := SettleConfig{ActionGrace: 40 * time.Millisecond}.orDefault()
	for _, k := range []schema.ActionKind{schema.ActClick, schema.ActPress, schema.ActDrag} {
		if got := cfg.grace(k); got != 40*time.Millisecond {
			t.Errorf("%s: grace %v, want the action grace", k, got)
		}
	}
	for _, k := range []schema.ActionKind{schema.ActFill, schema.ActSelect, schema.ActCheck, schema.ActHover, schema.ActSetValue,
		schema.ActNavigate, schema.ActExtract, schema.ActDone, schema.ActFail} {
		if got := cfg.grace(k); got != 0 {
			t.Errorf("%s: grace %v, want none", k, got)
		}
	}
}

// TestChangedSince says what shows an action did something: a new
// document, a DOM mutation, a page that could not be watched, and the
// requests it started.
func TestChangedSince(t *testing.T) {
	before := settleProbe{Watch: true, Doc: "d1", Changes: 4}
	cases := []struct {
		name     string
		before   settleProbe
		after    settleProbe
		requests []string
		want     []string
	}{
		{"nothing", before, before, nil, nil},
		{"a mutation", before, settleProbe{Watch: true, Doc: "d1", Changes: 5}, nil, []string{"its DOM"}},
		{"a new document", before, settleProbe{Watch: true, Doc: "d2", Changes: 4}, nil, []string{"a new document"}},
		{"unwatched before", settleProbe{}, before, nil, []string{"the page, unwatched"}},
		{"unwatched after", before, settleProbe{Doc: "d1", Changes: 4}, nil, []string{"the page, unwatched"}},
		{"a request only", before, before, []string{"GET http://x/api"}, []string{"GET http://x/api"}},
		{"a mutation and a request", before, settleProbe{Watch: true, Doc: "d1", Changes: 9}, []string{"POST http://x/save"}, []string{"its DOM", "POST http://x/save"}},
	}
	for _, c := range cases {
		if got := c.after.changedSince(c.before, c.requests); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestWroteSince keeps the page's own sends (a beacon) from t on.
func TestWroteSince(t *testing.T) {
	t0 := time.UnixMilli(1_700_000_000_000)
	var p settleProbe
	for _, w := range []struct {
		at   int64
		what string
	}{{t0.UnixMilli() - 1, "beacon /early"}, {t0.UnixMilli(), "beacon /at"}, {t0.UnixMilli() + 5, "worker message"}} {
		p.Writes = append(p.Writes, struct {
			At   int64  `json:"at"`
			What string `json:"what"`
		}{w.at, w.what})
	}
	if got := p.wroteSince(t0); !slices.Equal(got, []string{"beacon /at", "worker message"}) {
		t.Errorf("wrote %q", got)
	}
	if unixMS(time.Time{}) != 0 || unixMS(t0) != t0.UnixMilli() {
		t.Error("unixMS")
	}
}
