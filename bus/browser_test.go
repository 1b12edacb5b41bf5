package bus_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
)

// fakeActuator serves sessions on instance I1 with act as its act
// endpoint, and answers alive.
func fakeActuator(t testing.TB, b *bus.Bus, act func(context.Context, *schema.ActRequest) (*schema.ActReply, error)) *bus.Service {
	t.Helper()
	svc, err := b.RPC().NewService("fake-actuator", "0.0.1", "a test's actuator")
	if err != nil {
		t.Fatal(err)
	}
	c := context.Background()
	open := func(context.Context, *schema.OpenSessionRequest) (*schema.OpenSessionReply, error) {
		return &schema.OpenSessionReply{Instance: "I1"}, nil
	}
	alive := func(context.Context, *struct{}) (*struct{}, error) { return &struct{}{}, nil }
	for _, err := range []error{
		bus.AddEndpoint(c, svc, "open", schema.SubjectOpenSession, true, open),
		bus.AddEndpoint(c, svc, "act", schema.ActuatorSubject("I1", schema.EndpointAct), false, act),
		bus.AddEndpoint(c, svc, "alive", schema.ActuatorSubject("I1", schema.EndpointAlive), false, alive),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return svc
}

// answerAfter is an act endpoint that answers after delay.
func answerAfter(delay time.Duration) func(context.Context, *schema.ActRequest) (*schema.ActReply, error) {
	return func(ctx context.Context, r *schema.ActRequest) (*schema.ActReply, error) {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
		}
		return &schema.ActReply{Event: schema.BrowserAction{RunID: r.RunID, Action: r.Action}}, nil
	}
}

// TestSessionNoticesAGoneActuator: a call the actuator never answers
// because it went away in the middle (its process killed) ends with
// CodeNoSession within a few seconds, not after SessionCallTimeout; a
// slow actuator that still runs is waited for.
func TestSessionNoticesAGoneActuator(t *testing.T) {
	b := bustest.Start(t)
	slow := fakeActuator(t, b, answerAfter(3*time.Second))
	s, err := b.Browsers().Open(ctx(t), "R1")
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if _, err := s.Act(ctx(t), "", schema.Action{Kind: schema.ActNavigate, URL: "http://x/"}); err != nil {
		t.Fatalf("a slow actuator that runs: %v", err)
	}
	if took := time.Since(began); took < 3*time.Second {
		t.Fatalf("answered after %s: the fake did not wait", took)
	}
	slow.Stop()

	stuck := fakeActuator(t, b, answerAfter(time.Hour))
	go func() { time.Sleep(500 * time.Millisecond); stuck.Stop() }() // dies mid-request
	began = time.Now()
	_, err = s.Act(ctx(t), "", schema.Action{Kind: schema.ActNavigate, URL: "http://x/"})
	if !errors.Is(err, schema.ErrNoSession) || !strings.Contains(err.Error(), "went away during act") {
		t.Fatalf("a call to an actuator that died: %v", err)
	}
	if took := time.Since(began); took > 10*time.Second {
		t.Fatalf("noticed after %s", took)
	}
}
