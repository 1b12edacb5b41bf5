package actuator

import (
	"context"
	"time"

	"github.com/chromedp/chromedp"
)

// SettleConfig says when a page counts as settled: no request in flight,
// the document loaded, and no DOM mutation for Quiet, checked every Poll,
// waiting at most Cap.
type SettleConfig struct {
	Quiet time.Duration
	Poll  time.Duration
	Cap   time.Duration
}

// DefaultSettle is 250 ms of quiet, polled every 50 ms, for at most 5 s.
var DefaultSettle = SettleConfig{Quiet: 250 * time.Millisecond, Poll: 50 * time.Millisecond, Cap: 5 * time.Second}

func (c SettleConfig) orDefault() SettleConfig {
	if c.Quiet <= 0 {
		c.Quiet = DefaultSettle.Quiet
	}
	if c.Poll <= 0 {
		c.Poll = DefaultSettle.Poll
	}
	if c.Cap <= 0 {
		c.Cap = DefaultSettle.Cap
	}
	return c
}

type settleProbe struct {
	Ready     string `json:"ready"`
	Mutations int    `json:"mutations"`
}

const settleScript = `({ready: document.readyState, mutations: window.__roteMutations === undefined ? -1 : window.__roteMutations})`

// settle waits until the page is quiet, or Cap has passed. It returns how
// long it waited and whether the page settled; a page that never settles
// is not an error (the caller acts and reports the wait). The error is the
// context's, or the browser's death.
func (s *session) settle(ctx context.Context, cfg SettleConfig) (time.Duration, bool, error) {
	cfg = cfg.orDefault()
	start := time.Now()
	lastChange := start
	lastMutations := -2
	for {
		probe, err := chromedp.Run(s.ctx, chromedp.Evaluate[settleProbe](settleScript))
		now := time.Now()
		switch {
		case err != nil:
			// A navigation replaces the document under the script; that
			// is change, not failure, unless the browser is gone.
			if !s.browser.proc.alive() {
				return now.Sub(start), false, s.fail(err)
			}
			lastChange = now
		case probe.Ready != "complete" || probe.Mutations < 0 || probe.Mutations != lastMutations || s.net.inFlight() > 0:
			lastChange = now
			lastMutations = probe.Mutations
		case now.Sub(lastChange) >= cfg.Quiet:
			return now.Sub(start), true, nil
		}
		if now.Sub(start) >= cfg.Cap {
			return now.Sub(start), false, nil
		}
		select {
		case <-ctx.Done():
			return time.Since(start), false, ctx.Err()
		case <-time.After(cfg.Poll):
		}
	}
}
