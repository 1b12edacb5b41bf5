package lab

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/portal"
)

// Portal is the fixture portal served on loopback behind a switch of
// variants: a reset changes the site under the same address, so the
// environment (and its fingerprint) stays the one a playbook was learned
// on.
type Portal struct {
	p   atomic.Pointer[portal.Portal]
	url string
	srv *http.Server
}

// ServePortal serves the portal in variant on a free loopback port.
// portal.ErrUnknownVariant for a variant it does not have.
func ServePortal(variant string) (*Portal, error) {
	p := &Portal{}
	if err := p.Reset(context.Background(), variant); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p.url = "http://" + ln.Addr().String()
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.p.Load().ServeHTTP(w, r) }), ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

// Base is the portal's address.
func (p *Portal) Base() string { return p.url }

// Reset serves a fresh portal in variant from now on; variants
// suite.NewerReport and suite.NewCategory are the baseline with a report
// published after the seeded ones, or a vendor category added.
func (p *Portal) Reset(_ context.Context, variant string) error {
	markup := variant
	if variant == suite.NewerReport || variant == suite.NewCategory {
		markup = ""
	}
	fresh, err := portal.New(portal.Config{Variant: markup})
	if err != nil {
		return err
	}
	switch variant {
	case suite.NewerReport:
		fresh.PublishReport()
	case suite.NewCategory:
		fresh.AddCategory(suite.AddedCategory)
	}
	p.p.Store(fresh)
	return nil
}

// State is the server-side state of the portal of the moment.
func (p *Portal) State() portal.State { return p.p.Load().State() }

// Check is t's verifier over the portal's state.
func (p *Portal) Check(_ context.Context, t *suite.Task, params map[string]string, answer string) error {
	return t.Check(p.State(), params, answer)
}

// Describe names the site.
func (p *Portal) Describe() string { return "the fixture portal" }

// Close stops serving the portal.
func (p *Portal) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p.srv.Shutdown(ctx)
}
