package lab

import (
	"context"

	"github.com/rote-agent/rote/bench/suite"
)

// Site is the site a suite's tasks run on: reset to a known state before
// every run, and read by the independent verifier after it.
type Site interface {
	// Base is the site's address.
	Base() string
	// Reset gives the next run a fresh site, in variant ("" the
	// baseline).
	Reset(ctx context.Context, variant string) error
	// Check is the independent verifier of task t with params, given the
	// run's answer; nil when the site's server-side state agrees.
	Check(ctx context.Context, t *suite.Task, params map[string]string, answer string) error
	// Describe names the site for people.
	Describe() string
	// Close stops serving a site this process serves.
	Close()
}
