package main

import (
	"context"
	"fmt"

	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bench/wordpress"
)

// target is the site a suite's tasks run on: reset to a known state
// before every run, and read by the independent verifier after it.
type target interface {
	// base is the site's address.
	base() string
	// reset gives the next run a fresh site, in variant ("" the baseline).
	reset(ctx context.Context, variant string) error
	// check is the independent verifier of task t with params, given the
	// run's answer; nil when the site's server-side state agrees.
	check(ctx context.Context, t *suite.Task, params map[string]string, answer string) error
	// describe names the site for people.
	describe() string
}

// portalTarget is the fixture portal behind a switch of variants.
type portalTarget struct {
	site *switchable
	url  string
}

func (p *portalTarget) base() string { return p.url }
func (p *portalTarget) reset(_ context.Context, variant string) error {
	return p.site.set(variant)
}
func (p *portalTarget) check(_ context.Context, t *suite.Task, params map[string]string, answer string) error {
	return t.Check(p.site.p.Load().State(), params, answer)
}
func (p *portalTarget) describe() string { return "the fixture portal" }

// wordpressTarget is the WordPress scripts/wordpress set up, restored
// from its seeded snapshot before every run.
type wordpressTarget struct{ site *wordpress.Site }

func openWordPress(ctx context.Context) (*wordpressTarget, error) {
	s, err := wordpress.Open(ctx)
	if err != nil {
		return nil, err
	}
	return &wordpressTarget{site: s}, nil
}

func (w *wordpressTarget) base() string { return w.site.URL }
func (w *wordpressTarget) reset(ctx context.Context, variant string) error {
	if variant != "" {
		return usageError("WordPress has no variant %q: variants are the fixture portal's", variant)
	}
	return w.site.Reset(ctx)
}
func (w *wordpressTarget) check(ctx context.Context, t *suite.Task, params map[string]string, answer string) error {
	if t.CheckSQL == nil {
		return fmt.Errorf("task %s is not a WordPress task", t.ID)
	}
	return t.CheckSQL(ctx, w.site, params, answer)
}
func (w *wordpressTarget) describe() string { return "WordPress (Debian's package, seeded)" }
