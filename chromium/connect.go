package chromium

import (
	"context"
	"strings"
	"sync"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

// Connect is a chromedp allocator context on the browser at endpoint,
// for a service that reads and drives pages another service opened
// (perception): a browser of this process is reached directly, one
// another process shares through its relay, one a user started by its
// DevTools address. It holds none of the browser's policies: the process
// that owns the browser does. cancel closes the connection. Errors wrap
// ErrUnreachable.
func Connect(parent context.Context, endpoint string) (context.Context, context.CancelFunc, error) {
	if p := lookup(endpoint); p != nil {
		ctx, cancel := p.Allocator(parent)
		return ctx, cancel, nil
	}
	if strings.HasPrefix(endpoint, "ws://") || strings.HasPrefix(endpoint, "wss://") {
		ctx, cancel := remote.NewAllocator(parent, endpoint)
		return ctx, cancel, nil
	}
	p, err := attach(parent, endpoint, false)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := p.Allocator(parent)
	return ctx, func() { cancel(); p.Kill() }, nil
}

// registry holds this process's browsers by the endpoints that name them.
var registry sync.Map // string -> *Process

func register(endpoint string, p *Process) { registry.Store(endpoint, p) }

func lookup(endpoint string) *Process {
	if p, ok := registry.Load(endpoint); ok {
		return p.(*Process)
	}
	return nil
}

// unregister forgets every endpoint of p.
func unregister(p *Process) {
	registry.Range(func(k, v any) bool {
		if v == p {
			registry.Delete(k)
		}
		return true
	})
}

// allocator is a chromedp Allocator over the mux: every browser it
// allocates is a new connection through it.
type allocator struct {
	dial func(context.Context) (chromedp.Transport, error)
	wg   sync.WaitGroup
}

// Allocate opens a connection and a chromedp Browser on it. When ctx
// ends the browser's pages are closed first, then the connection.
func (a *allocator) Allocate(ctx context.Context, opts ...chromedp.BrowserOption) (*chromedp.Browser, error) {
	if chromedp.FromContext(ctx) == nil {
		return nil, chromedp.ErrInvalidContext
	}
	tr, err := a.dial(ctx)
	if err != nil {
		return nil, err
	}
	// The connection's own context, so that the pages can be closed over
	// it once ctx ends.
	conn, cancel := context.WithCancel(context.Background())
	a.wg.Go(func() {
		<-ctx.Done()
		chromedp.Cancel(ctx)
		cancel()
	})
	return chromedp.NewBrowserTransport(conn, tr, opts...)
}

// Wait waits until every connection is closed.
func (a *allocator) Wait() { a.wg.Wait() }

// Attaches is true: a browser's life is not the allocator's.
func (a *allocator) Attaches() bool { return true }
