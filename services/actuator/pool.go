package actuator

import (
	"context"
	"fmt"
	"sync"

	"github.com/rote-agent/rote/chromium"
)

// pool keeps up to size Chromium processes and hands out the least busy
// live one. A browser that died is dropped at the next acquire and a new
// one is launched in its place. With attach set it launches none: every
// session opens in the browser at that endpoint (chromium.Attach). With
// share set, each browser it launches is shared with this user's other
// processes (a perception running as a process of its own).
type pool struct {
	parent context.Context
	path   string
	size   int
	attach string
	share  bool

	mu       sync.Mutex
	browsers []*browser
}

// browser is a pooled Chromium with a DevTools connection.
type browser struct {
	proc     *chromium.Process
	alloc    context.Context
	cancel   context.CancelFunc
	sessions int
}

func newPool(parent context.Context, path string, size int, attach string, share bool) *pool {
	return &pool{parent: parent, path: path, size: size, attach: attach, share: share}
}

// acquire returns a live browser for a new session, launching one when
// none is live or all are busy and the pool has room. Errors wrap
// chromium.ErrLaunch.
func (p *pool) acquire(ctx context.Context) (*browser, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	live := p.browsers[:0]
	for _, b := range p.browsers {
		if b.proc.Alive() {
			live = append(live, b)
		} else {
			b.cancel()
			b.proc.Kill()
		}
	}
	p.browsers = live
	var best *browser
	for _, b := range p.browsers {
		if best == nil || b.sessions < best.sessions {
			best = b
		}
	}
	if best == nil || (best.sessions > 0 && len(p.browsers) < p.size && p.attach == "") {
		proc, err := p.start(ctx)
		if err != nil {
			return nil, err
		}
		alloc, cancel := proc.Allocator(p.parent)
		best = &browser{proc: proc, alloc: alloc, cancel: cancel}
		p.browsers = append(p.browsers, best)
	}
	best.sessions++
	return best, nil
}

// release returns a session's slot.
func (p *pool) release(b *browser) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if b.sessions > 0 {
		b.sessions--
	}
}

// close stops every browser.
func (p *pool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range p.browsers {
		b.cancel()
		b.proc.Kill()
	}
	p.browsers = nil
}

// start launches a browser (shared when p.share says so), or attaches to
// the one at p.attach.
func (p *pool) start(ctx context.Context) (*chromium.Process, error) {
	if p.attach != "" {
		return chromium.Attach(ctx, p.attach)
	}
	proc, err := chromium.Launch(ctx, p.path)
	if err != nil || !p.share {
		return proc, err
	}
	if _, err := proc.Share(); err != nil {
		proc.Kill()
		return nil, err
	}
	return proc, nil
}

// String describes the pool for logs.
func (p *pool) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("%d/%d browsers", len(p.browsers), p.size)
}
