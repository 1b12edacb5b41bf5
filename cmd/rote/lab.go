package main

import (
	"context"
	"net/http"
	"sync/atomic"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/portal"
)

// switchable serves the portal of the moment: the demo changes the site's
// variant under the same address, so the environment (and its
// fingerprint) stays the one the playbook was learned on.
type switchable struct{ p atomic.Pointer[portal.Portal] }

func (s *switchable) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.p.Load().ServeHTTP(w, r) }

func (s *switchable) set(variant string) error {
	p, err := portal.New(portal.Config{Variant: variant})
	if err != nil {
		return err
	}
	s.p.Store(p)
	return nil
}

// lab is the fixture portal on loopback, behind a switch of variants, and
// a stack to do its tasks: what rote demo and rote bench run on.
type lab struct {
	b    *bus.Bus
	site *switchable
	base string
	st   *stack
	stop func()
}

func openLab(ctx context.Context, app *App) (*lab, error) {
	b, err := app.Bus(ctx)
	if err != nil {
		return nil, err
	}
	site := &switchable{}
	if err := site.set(""); err != nil {
		return nil, err
	}
	base, stopSite, err := serveLoopback(site)
	if err != nil {
		return nil, err
	}
	st, err := startStack(ctx, app, b)
	if err != nil {
		stopSite()
		return nil, err
	}
	return &lab{b: b, site: site, base: base, st: st, stop: func() { st.stop(); stopSite() }}, nil
}
