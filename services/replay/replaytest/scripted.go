package replaytest

import (
	"context"
	"maps"
	"sync"

	"github.com/rote-agent/rote/schema"
)

// Outcome is what one dispatched step does: leaves World, or fails with
// Err (a *schema.Error such as CodeNotFound). Later, when set, is the
// world a look after the action sees (the page showed the action's effect
// late); Sent is what the action sent that may have changed something
// (replay.Writer).
type Outcome struct {
	World schema.World
	Err   error
	Later *schema.World
	Sent  []string
}

// Call is one step a Scripted dispatcher was asked to run.
type Call struct {
	StepID string
	Tool   string
	Args   map[string]any
	Target *schema.Target
}

// Scripted is an in-memory replay.Dispatcher whose environment is a
// script: each step id answers with its outcomes in order, the last one
// again once they run out; a step without a script succeeds and leaves
// the world as it was. It records every call, for tests of the executor
// that need a failure at an exact step and attempt.
type Scripted struct {
	// FP is the environment's fingerprint.
	FP string
	// Steps are the outcomes of each step id's calls, in order.
	Steps map[string][]Outcome
	// Resolves, when set, is the control every action says it resolved
	// its target to (replay.Resolver).
	Resolves *schema.Target

	mu     sync.Mutex
	calls  []Call
	used   map[string]int
	world  schema.World
	sent   []string
	closed bool
}

// Fingerprint returns FP.
func (s *Scripted) Fingerprint(context.Context) (string, error) { return s.FP, nil }

// Dispatch answers with the next outcome of stepID's script.
func (s *Scripted) Dispatch(_ context.Context, stepID, tool string, args map[string]any, target *schema.Target) (schema.World, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return schema.World{}, schema.Errorf(schema.CodeNoSession, "the scripted dispatcher is closed")
	}
	s.calls = append(s.calls, Call{StepID: stepID, Tool: tool, Args: maps.Clone(args), Target: target})
	s.sent = nil
	script := s.Steps[stepID]
	if len(script) == 0 {
		return s.world, nil
	}
	if s.used == nil {
		s.used = map[string]int{}
	}
	o := script[min(s.used[stepID], len(script)-1)]
	s.used[stepID]++
	if o.Err != nil {
		return schema.World{}, o.Err
	}
	s.world, s.sent = o.World, o.Sent
	if o.Later != nil {
		s.world = *o.Later
	}
	return o.World, nil
}

// World returns what the last successful step left (its Later, when it
// has one).
func (s *Scripted) World(context.Context) (schema.World, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.world, nil
}

// Wrote is the last action's Sent.
func (s *Scripted) Wrote() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sent
}

// Resolved is Resolves.
func (s *Scripted) Resolved() *schema.Target { return s.Resolves }

// Close ends the session; later steps fail with CodeNoSession.
func (s *Scripted) Close(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// Calls returns every call so far, in order.
func (s *Scripted) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Closed reports whether the executor closed the dispatcher.
func (s *Scripted) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
