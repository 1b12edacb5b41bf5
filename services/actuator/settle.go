package actuator

import (
	"context"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/rote-agent/rote/schema"
)

// SettleConfig says when a page counts as settled: no request in flight,
// the document loaded, and no DOM mutation for Quiet, checked every Poll,
// waiting at most Cap. The last action counts as a change too: a click,
// press, drag or navigate for Quiet, since what it sets off (a submit, a
// fetch) may start late; a fill, select, set_value, check or hover, whose page handlers run
// as the input events are dispatched, for InputGrace.
type SettleConfig struct {
	Quiet      time.Duration
	InputGrace time.Duration
	Poll       time.Duration
	Cap        time.Duration
}

// DefaultSettle is 250 ms of quiet (50 ms after an input), polled every
// 50 ms, for at most 5 s.
var DefaultSettle = SettleConfig{Quiet: 250 * time.Millisecond, InputGrace: 50 * time.Millisecond, Poll: 50 * time.Millisecond, Cap: 5 * time.Second}

func (c SettleConfig) orDefault() SettleConfig {
	if c.Quiet <= 0 {
		c.Quiet = DefaultSettle.Quiet
	}
	if c.InputGrace <= 0 {
		c.InputGrace = DefaultSettle.InputGrace
	}
	if c.Poll <= 0 {
		c.Poll = DefaultSettle.Poll
	}
	if c.Cap <= 0 {
		c.Cap = DefaultSettle.Cap
	}
	return c
}

// actionWindow is how long an action of kind counts as a change.
func (c SettleConfig) actionWindow(kind schema.ActionKind) time.Duration {
	switch kind {
	case schema.ActFill, schema.ActSelect, schema.ActCheck, schema.ActHover, schema.ActSetValue:
		return c.InputGrace
	}
	return c.Quiet
}

// settleProbe is what the page says about its own quiet: whether it has
// loaded, and how long ago (ms) its DOM last changed or it finished loading.
type settleProbe struct {
	Ready  string  `json:"ready"`
	IdleMS float64 `json:"idle_ms"` // negative: the page has no mutation watch yet
	Blank  bool    `json:"blank"`   // the empty page a new session starts on
}

const settleScript = `(() => {
  if (location.href === 'about:blank') return {ready: document.readyState, idle_ms: -1, blank: true};
  if (window.__roteLastChange === undefined) return {ready: document.readyState, idle_ms: -1};
  const nav = performance.getEntriesByType('navigation')[0];
  const last = Math.max(window.__roteLastChange, nav ? nav.loadEventEnd : 0);
  return {ready: document.readyState, idle_ms: performance.now() - last};
})()`

// settle waits until the page is quiet: loaded, no request in flight, and
// neither the DOM nor the network changed for Quiet. The page tells how
// long its DOM has been unchanged, so a page that has been quiet for a
// while is settled at the first look; otherwise it is polled every Poll,
// for at most Cap. It returns how long it waited and whether the page
// settled; a page that never settles is not an error (the caller acts and
// reports the wait). The error is the context's, or the browser's death.
func (s *session) settle(ctx context.Context, cfg SettleConfig) (time.Duration, bool, error) {
	cfg = cfg.orDefault()
	start := time.Now()
	for {
		probe, err := chromedp.Run(s.ctx, chromedp.Evaluate[settleProbe](settleScript))
		now := time.Now()
		if err != nil && !s.browser.proc.Alive() {
			return now.Sub(start), false, s.fail(err)
		}
		// An error here is a navigation replacing the document under the
		// script: change, not failure.
		pending, netActive := s.net.state()
		idle := time.Duration(probe.IdleMS * float64(time.Millisecond))
		if since := now.Sub(netActive); !netActive.IsZero() && since < idle {
			idle = since
		}
		// What an action set off may not show yet: the last action counts
		// as a change too, for as long as its kind needs.
		if since := now.Sub(s.acted); !s.acted.IsZero() && since < cfg.actionWindow(s.actedKind) {
			idle = min(idle, since-cfg.actionWindow(s.actedKind)+cfg.Quiet)
		}
		if err == nil && probe.Blank && s.acted.IsZero() {
			return now.Sub(start), true, nil // nothing loaded, nothing to wait for
		}
		if err == nil && probe.Ready == "complete" && probe.IdleMS >= 0 && pending == 0 && idle >= cfg.Quiet {
			return now.Sub(start), true, nil
		}
		if now.Sub(start) >= cfg.Cap {
			return now.Sub(start), false, nil
		}
		wait := cfg.Poll
		if left := cfg.Quiet - idle; err == nil && pending == 0 && probe.IdleMS >= 0 && left > 0 && left < wait {
			wait = left
		}
		select {
		case <-ctx.Done():
			return time.Since(start), false, ctx.Err()
		case <-time.After(wait):
		}
	}
}
