package bus_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
)

// TestCallOnceSurvivesALostMessage: a request copy lost on its way to the
// service, or a reply lost on its way back (a NATS server failing over
// drops both), is made good by the next copy, and the service's handler
// runs once whichever was lost: an action is not clicked twice.
func TestCallOnceSurvivesALostMessage(t *testing.T) {
	for _, lost := range []string{"request", "reply"} {
		t.Run("the first "+lost+" lost", func(t *testing.T) {
			b := bustest.Start(t)
			svc, err := b.RPC().NewService("once", "0.0.1", "a test's service")
			if err != nil {
				t.Fatal(err)
			}
			defer svc.Stop()
			var served atomic.Int32
			h := func(_ context.Context, n *int) (*int, error) {
				served.Add(1)
				out := *n * 2
				return &out, nil
			}
			if err := bus.AddEndpoint(context.Background(), svc, "double", "rote.test.double", false, h); err != nil {
				t.Fatal(err)
			}
			// A relay in front of the endpoint that loses the first copy,
			// or the first copy's reply.
			var copies atomic.Int32
			relay, err := b.Conn().Subscribe("rote.test.front", func(m *nats.Msg) {
				nth := copies.Add(1)
				if lost == "request" && nth == 1 {
					return
				}
				fwd := &nats.Msg{Subject: "rote.test.double", Data: m.Data, Header: m.Header}
				rep, err := b.Conn().RequestMsg(fwd, bus.SessionCallTimeout)
				if err != nil {
					t.Errorf("relay: %v", err)
					return
				}
				if lost == "reply" && nth == 1 {
					return
				}
				_ = m.RespondMsg(&nats.Msg{Data: rep.Data, Header: rep.Header})
			})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = relay.Unsubscribe() }()

			in, out := 21, 0
			if err := b.RPC().CallOnce(ctx(t), "rote.test.front", &in, &out); err != nil {
				t.Fatal(err)
			}
			if out != 42 {
				t.Fatalf("answered %d, want 42", out)
			}
			if c := copies.Load(); c != 2 {
				t.Fatalf("%d copies sent, want 2 (one lost, one answered)", c)
			}
			if n := served.Load(); n != 1 {
				t.Fatalf("the handler ran %d times for one call", n)
			}
		})
	}
}

// TestCallOnceNoService: a call nobody serves ends at once with
// ErrNoService, as Call's does.
func TestCallOnceNoService(t *testing.T) {
	b := bustest.Start(t)
	var out int
	err := b.RPC().CallOnce(ctx(t), "rote.test.nobody", 1, &out)
	if !errors.Is(err, bus.ErrNoService) {
		t.Fatalf("got %v, want ErrNoService", err)
	}
}
