package bus

import (
	"context"

	"github.com/rote-agent/rote/schema"
)

// BrowserSession is a run's browser session, pinned to the actuator
// instance that claimed it. Every call goes to that instance.
type BrowserSession struct {
	bus      *Bus
	RunID    string
	Instance string
	Browser  schema.BrowserRef
	// Secrets (name to value) are typed when an action says so but
	// recorded as {{name}}; see schema.ActRequest.
	Secrets map[string]string
}

// OpenBrowser asks any actuator for a session for runID. Errors: a
// *schema.Error from the actuator, or ErrNoService when none runs.
func (b *Bus) OpenBrowser(ctx context.Context, runID string) (*BrowserSession, error) {
	var rep schema.OpenSessionReply
	if err := b.Call(ctx, schema.SubjectOpenSession, &schema.OpenSessionRequest{RunID: runID}, &rep); err != nil {
		return nil, err
	}
	return &BrowserSession{bus: b, RunID: runID, Instance: rep.Instance, Browser: rep.Browser}, nil
}

// Adopt hands the session, as it is, to run to, on the instance that
// holds it. The returned session is run to's; s is no longer usable.
func (s *BrowserSession) Adopt(ctx context.Context, to string) (*BrowserSession, error) {
	var rep schema.OpenSessionReply
	if err := s.bus.Call(ctx, schema.ActuatorSubject(s.Instance, schema.EndpointAdopt), &schema.AdoptSessionRequest{From: s.RunID, To: to}, &rep); err != nil {
		return nil, err
	}
	return &BrowserSession{bus: s.bus, RunID: to, Instance: rep.Instance, Browser: rep.Browser, Secrets: s.Secrets}, nil
}

// Act performs one action. A refused or failed action is not an error
// here: the returned event's Error says why. The error is for a request
// that could not be made (no session, no actuator).
func (s *BrowserSession) Act(ctx context.Context, stepID string, a schema.Action) (*schema.BrowserAction, error) {
	var rep schema.ActReply
	err := s.bus.Call(ctx, schema.ActuatorSubject(s.Instance, schema.EndpointAct), &schema.ActRequest{RunID: s.RunID, StepID: stepID, Action: a, Secrets: s.Secrets}, &rep)
	if err != nil {
		return nil, err
	}
	return &rep.Event, nil
}

// Observe settles the page and returns perception's observation of it: a
// diff against the last full observation when diff is set and that is
// smaller. budget 0 takes perception's default.
func (s *BrowserSession) Observe(ctx context.Context, stepID string, diff bool, budget int) (*schema.SessionObserveReply, error) {
	var rep schema.SessionObserveReply
	req := &schema.SessionObserveRequest{RunID: s.RunID, StepID: stepID, Diff: diff, Budget: budget}
	if err := s.bus.Call(ctx, schema.ActuatorSubject(s.Instance, schema.EndpointObserve), req, &rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

// Close ends the session and its browser context.
func (s *BrowserSession) Close(ctx context.Context) error {
	var rep struct{}
	return s.bus.Call(ctx, schema.ActuatorSubject(s.Instance, schema.EndpointClose), &schema.CloseSessionRequest{RunID: s.RunID}, &rep)
}
