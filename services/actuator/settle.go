package actuator

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/rote-agent/rote/schema"
)

// SettleConfig says when a page counts as settled: its document loaded,
// no request in flight and no document loading, no timer pending that
// the page set to go off soon, and neither its DOM nor its network
// changed for Quiet. Every one of these is evidence the page or the
// browser reports as it happens; the settle waits on it, not on a clock:
// a fill that sets nothing off is settled as soon as the page has run
// what the input events queued, and a click that navigates waits for
// the new document.
//
// A click, press or drag also counts as a change for ActionGrace: what
// it sets off in the browser (a form's navigation) shows after the action
// returns. A control recorded to send is expected
// to: the page after it is not looked at until the network shows a
// request or a load, or SendGrace passes, so that its send guard judges
// the sending however late it starts.
//
// Work the page scheduled counts when it is due within TimerHorizon of
// the last action or of the document's load, whichever is later: a
// debounced search, a request or a redirect a timer starts (through a
// timer of its own too), a meta refresh, an animation that ends, a
// message on its way through a MessageChannel, a worker's answer.
// Work that keeps scheduling itself (four generations deep: a clock, a
// poll, an interval's ticks, an animation-frame or message loop) counts
// within RepeatHorizon only. A WebSocket or an EventSource counts while
// an answer is awaited on it (see stream). Cap bounds the whole wait.
type SettleConfig struct {
	Quiet         time.Duration
	ActionGrace   time.Duration
	SendGrace     time.Duration
	TimerHorizon  time.Duration
	RepeatHorizon time.Duration
	Cap           time.Duration
}

// DefaultSettle is 30 ms of quiet, 30 ms of grace after a click (250 ms
// for a send to show), scheduled work due within 3 s (repeating work
// within 1 s), for at most 5 s.
var DefaultSettle = SettleConfig{Quiet: 30 * time.Millisecond, ActionGrace: 30 * time.Millisecond, SendGrace: 250 * time.Millisecond,
	TimerHorizon: 3 * time.Second, RepeatHorizon: time.Second, Cap: 5 * time.Second}

func (c SettleConfig) orDefault() SettleConfig {
	if c.Quiet <= 0 {
		c.Quiet = DefaultSettle.Quiet
	}
	if c.ActionGrace <= 0 {
		c.ActionGrace = DefaultSettle.ActionGrace
	}
	if c.SendGrace <= 0 {
		c.SendGrace = DefaultSettle.SendGrace
	}
	if c.TimerHorizon <= 0 {
		c.TimerHorizon = DefaultSettle.TimerHorizon
	}
	if c.RepeatHorizon <= 0 {
		c.RepeatHorizon = DefaultSettle.RepeatHorizon
	}
	if c.Cap <= 0 {
		c.Cap = DefaultSettle.Cap
	}
	return c
}

// grace is how long an action of kind counts as a change after it was
// dispatched. A fill, select, set_value, check or hover has none: its
// page handlers ran as its input events were dispatched, and what they
// queued is run before the page is looked at. A navigate has waited for
// its page's load, after which the watch sees what the page does. An
// extract, done or fail changes nothing.
func (c SettleConfig) grace(kind schema.ActionKind) time.Duration {
	switch kind {
	case schema.ActFill, schema.ActSelect, schema.ActCheck, schema.ActHover, schema.ActSetValue,
		schema.ActNavigate, schema.ActExtract, schema.ActDone, schema.ActFail:
		return 0
	}
	return c.ActionGrace
}

// settleWatchScript runs in every document the page loads, before the
// page's own scripts: it records when the DOM last changed and follows
// the work the page schedules, and its __roteSettle answers once the page
// is quiet (see the script's own comment).
//
//go:embed settlewatch.js
var settleWatchScript string

// settleProbe is what the page said when its watch resolved.
type settleProbe struct {
	Ready  string  `json:"ready"`
	IdleMS float64 `json:"idle_ms"` // since the DOM, a load or the caller's last change
	Timer  bool    `json:"timer"`   // a followed timer is still due
	Blank  bool    `json:"blank"`   // the empty page a new session starts on
	Watch  bool    `json:"watch"`   // the document runs the watch
	// Doc names the document (a new one for every load), Changes counts
	// its DOM mutations, and Frames its embedded documents: what says
	// whether a capture taken at this look still shows the page.
	Doc     string `json:"doc"`
	Changes int64  `json:"changes"`
	Frames  int    `json:"frames"`
	// Writes are the page's last sends the network does not show (a
	// beacon, a message to a worker), with when (Unix ms).
	Writes []struct {
		At   int64  `json:"at"`
		What string `json:"what"`
	} `json:"writes"`
}

// wroteSince is what the page sent since t that its watch saw.
func (p settleProbe) wroteSince(t time.Time) []string {
	var out []string
	for _, w := range p.Writes {
		if w.At >= t.UnixMilli() {
			out = append(out, w.What)
		}
	}
	return out
}

// changedSince says how the page changed between before (a look before
// an action) and p (a look after it), and which requests it started
// since the action began: what shows that the action did something.
func (p settleProbe) changedSince(before settleProbe, requests []string) []string {
	var out []string
	switch {
	case !before.Watch || !p.Watch:
		out = append(out, "the page, unwatched")
	case p.Doc != before.Doc:
		out = append(out, "a new document")
	case p.Changes != before.Changes:
		out = append(out, "its DOM")
	}
	return append(out, requests...)
}

// settleScript calls the watch; %d are quiet, since, base, horizon,
// repeat and cap in ms.
const settleScript = `(() => {
  if (location.href === 'about:blank') return {ready: document.readyState, blank: true, watch: true};
  if (window.__roteSettle === undefined) return {ready: document.readyState, watch: false};
  return window.__roteSettle(%d, %d, %d, %d, %d, %d).then(s => Object.assign(s, {watch: true}));
})()`

// settle waits until the page is settled (see SettleConfig). The page
// watches its own DOM and timers and answers once they are quiet; the
// network is followed by its events, and a wait on it ends at its next
// event. It returns how long it waited and, when it gave up at its cap,
// what held the page (heldBy); a page that never settles is not an error
// (the caller acts and reports the wait). The error is the context's, or
// the browser's death.
func (s *session) settle(ctx context.Context, cfg SettleConfig) (time.Duration, string, error) {
	cfg = cfg.orDefault()
	start := time.Now()
	deadline := start.Add(cfg.Cap)
	s.watched = settleProbe{} // known only once settled
	for {
		net := s.net.state(s.began, s.acted, s.actedKind != schema.ActNavigate)
		// What the browser has not reported yet counts as a change: the
		// network's last activity, and an action for its grace.
		since := net.lastActive
		if g := cfg.grace(s.actedKind); !s.acted.IsZero() && s.acted.Add(g-cfg.Quiet).After(since) {
			since = s.acted.Add(g - cfg.Quiet)
		}
		var probe settleProbe
		var err error
		if !net.busy() {
			probe, err = s.watchPage(ctx, cfg, since, s.acted, deadline)
			if err != nil && !s.browser.proc.Alive() {
				return time.Since(start), "", s.fail(err)
			}
			if ctx.Err() != nil {
				return time.Since(start), "", ctx.Err()
			}
		}
		now := time.Now()
		if probe.Blank && !net.busy() {
			return now.Sub(start), "", nil // nothing loaded, nothing to wait for
		}
		// An error is a navigation replacing the document under the
		// script: change, not failure.
		after := s.net.state(s.began, s.acted, s.actedKind != schema.ActNavigate)
		quietNet := !after.busy() && now.Sub(after.lastActive) >= cfg.Quiet
		if err == nil && !net.busy() && probe.Watch && probe.Ready == "complete" && !probe.Timer &&
			time.Duration(probe.IdleMS*float64(time.Millisecond)) >= cfg.Quiet && quietNet {
			s.watched = probe
			return now.Sub(start), "", nil
		}
		if !now.Before(deadline) {
			return now.Sub(start), heldBy(after, probe, err == nil && !net.busy()), nil
		}
		// Wait for the network's next change when it is busy; otherwise
		// look again after what is left of its quiet, or shortly when the
		// document had no watch yet.
		var wake <-chan time.Time
		switch {
		case after.busy() && !after.unread.IsZero():
			wake = time.After(time.Until(after.unread))
		case after.busy():
		case err != nil || !probe.Watch:
			wake = time.After(10 * time.Millisecond)
		case !quietNet:
			wake = time.After(cfg.Quiet - now.Sub(after.lastActive))
		default:
			wake = time.After(5 * time.Millisecond)
		}
		select {
		case <-ctx.Done():
			return time.Since(start), "", ctx.Err()
		case <-after.changed:
		case <-wake:
		case <-time.After(time.Until(deadline)):
		}
	}
}

// heldBy says what held a page that did not settle by the cap: the
// network, or, when the page's watch answered (looked), the page itself.
func heldBy(net netState, probe settleProbe, looked bool) string {
	switch {
	case net.loading:
		return "its document still loading"
	case net.busy():
		return "awaiting " + schema.ClipList(net.awaited, 2)
	case !looked || !probe.Watch:
		return "its watch not answering"
	case probe.Ready != "complete":
		return "its document not complete"
	case probe.Timer:
		return "work it scheduled still due"
	}
	return "its DOM still changing"
}

// awaitSend waits, after a control that sends was used, until the
// network shows something started since (a request, a document load) or
// cfg.SendGrace passes.
func (s *session) awaitSend(ctx context.Context, cfg SettleConfig) error {
	cfg = cfg.orDefault()
	timeout := time.After(time.Until(s.acted.Add(cfg.SendGrace)))
	for {
		net := s.net.state(s.began, s.acted, s.actedKind != schema.ActNavigate)
		if net.busy() || net.lastActive.After(s.acted) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timeout:
			return nil
		case <-net.changed:
		}
	}
}

// downloads reports whether el is (in) a link that downloads what it
// points at: the browser fetches it outside the page, whose network shows
// nothing of it, so there is no sending to wait for.
func (s *session) downloads(el *element) bool {
	var yes bool
	return el != nil && s.call(el, `function () { return this.closest('a[download]') !== null; }`, &yes) == nil && yes
}

// watchPage asks the page's watch to answer once it is quiet (see
// settleWatchScript), waiting no later than deadline.
func (s *session) watchPage(ctx context.Context, cfg SettleConfig, since, base, deadline time.Time) (settleProbe, error) {
	script := fmt.Sprintf(settleScript, cfg.Quiet.Milliseconds(), unixMS(since), unixMS(base), cfg.TimerHorizon.Milliseconds(), cfg.RepeatHorizon.Milliseconds(),
		time.Until(deadline).Milliseconds())
	// The page answers by its cap; the browser's own deadline is a
	// little later, for a page too busy to run the watch at all.
	evalCtx, cancel := context.WithDeadline(s.ctx, deadline.Add(time.Second))
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	return chromedp.Run(evalCtx, chromedp.Evaluate[settleProbe](script, chromedp.EvalAwaitPromise))
}

// unixMS is t in Unix milliseconds; 0 for the zero time.
func unixMS(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}
