// Package bustest starts real NATS JetStream servers for tests: one fresh
// server per test, its store in the test's temporary directory, shut down
// when the test ends. There are no mocks of NATS.
package bustest

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
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

// StartServer runs a standalone nats-server with JetStream, its store in
// storeDir, listening on 127.0.0.1:port (0 picks a free port), as an
// external cluster would be: the bus reaches it by URL. Starting it again
// with the same directory and port is a restart. It is shut down when the
// test ends.
func StartServer(t testing.TB, storeDir string, port int) *server.Server {
	t.Helper()
	if port == 0 {
		port = server.RANDOM_PORT
	}
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: storeDir, NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatalf("bustest: %v", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("bustest: server did not start within 10s")
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return srv
}
