package e2e

import (
	"context"
	"testing"

	"github.com/rote-agent/rote/bench/scripted"
	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/cmd/rote/lab"
	"github.com/rote-agent/rote/cmd/rote/node"
)

// sharedBrowser is the relay endpoint of the one Chromium this
// package's nodes open their sessions in (a browser context each),
// started by TestMain. Measured: four browsers for four tests at once
// were no faster than one.
var sharedBrowser string

// start runs a node of roles, wired as rote wires it, on a fresh bus of
// the test's own: its actuator opens sessions in the package's browser,
// and its planner, if it runs one, asks the scripted model answering
// with oracle (the suite's when nil). Everything stops when the test
// ends.
func start(t testing.TB, oracle scripted.Oracle, roles ...string) *node.Node {
	t.Helper()
	return startOn(t, bustest.Start(t), oracle, roles...)
}

// startOn runs a node of roles on b, as start does.
func startOn(t testing.TB, b *bus.Bus, oracle scripted.Oracle, roles ...string) *node.Node {
	t.Helper()
	return startWith(t, b, node.Config{Roles: roles, Browser: sharedBrowser}, oracle)
}

// startWith runs a node of cfg on b, its planner asking the scripted
// model answering with oracle (the suite's when nil).
func startWith(t testing.TB, b *bus.Bus, cfg node.Config, oracle scripted.Oracle) *node.Node {
	t.Helper()
	if oracle == nil {
		oracle = suite.Oracle()
	}
	cfg.Offline = lab.OracleModel(oracle, scripted.Latency{})
	cfg.SecretKey = []byte("test-key")
	cfg.Suites = lab.Expand
	n, err := node.New(cfg, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// planes runs perception and an actuator on a fresh bus and returns it:
// browser sessions, as rote serve offers them.
func planes(t testing.TB) *bus.Bus { return start(t, nil, node.Browser...).Bus() }
