// Package bustest starts real embedded NATS JetStream servers for tests:
// one fresh server per test, its store in the test's temporary directory,
// shut down when the test ends. There are no mocks of NATS.
package bustest

import (
	"context"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
)

// Start opens a bus on a new embedded server in t.TempDir() and closes it
// when the test ends.
func Start(t testing.TB) *bus.Bus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := bus.Open(ctx, bus.Config{DataDir: t.TempDir(), Name: t.Name()})
	if err != nil {
		t.Fatalf("bustest: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}
