package lab

import (
	"context"
	"fmt"

	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bench/wordpress"
)

// WordPress is the WordPress scripts/wordpress set up, restored from its
// seeded snapshot before every run.
type WordPress struct{ site *wordpress.Site }

// OpenWordPress reaches the WordPress scripts/wordpress set up.
func OpenWordPress(ctx context.Context) (*WordPress, error) {
	s, err := wordpress.Open(ctx)
	if err != nil {
		return nil, err
	}
	return &WordPress{site: s}, nil
}

// Base is the site's address.
func (w *WordPress) Base() string { return w.site.URL }

// Reset restores the seeded state; WordPress has no variants.
func (w *WordPress) Reset(ctx context.Context, variant string) error {
	if variant != "" {
		return fmt.Errorf("WordPress has no variant %q: variants are the fixture portal's", variant)
	}
	return w.site.Reset(ctx)
}

// Check is t's verifier: SQL against WordPress's database.
func (w *WordPress) Check(ctx context.Context, t *suite.Task, params map[string]string, answer string) error {
	if t.CheckSQL == nil {
		return fmt.Errorf("task %s is not a WordPress task", t.ID)
	}
	return t.CheckSQL(ctx, w.site, params, answer)
}

// Describe names the site.
func (w *WordPress) Describe() string { return "WordPress (Debian's package, seeded)" }

// Close does nothing: the site is not this process's.
func (w *WordPress) Close() {}
