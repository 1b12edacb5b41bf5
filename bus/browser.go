package bus

import (
	"context"
	"errors"
	"time"

	"github.com/rote-agent/rote/schema"
)

// SessionCallTimeout bounds one call to the actuator holding a session
// when the caller sets no deadline: an action settles for at most 5 s and
// an observation takes at most 30 s, so an actuator silent for longer is
// gone (killed, or cut off from NATS).
const SessionCallTimeout = 60 * time.Second

// Browsers claims browser sessions from the actuators on the bus.
type Browsers struct {
	rpc *RPC
}

// BrowserSession is a run's browser session, pinned to the actuator
// instance that claimed it. Every call goes to that instance.
type BrowserSession struct {
	rpc      *RPC
	RunID    string
	Instance string
	Browser  schema.BrowserRef
	// Secrets (name to value) are typed when an action says so but
	// recorded as {{name}}; see schema.ActRequest.
	Secrets map[string]string
}

// openAttempt bounds one request for a session. An actuator that died
// without closing its connection (its host or pod gone) stays in the
// queue group until the server notices, and a request NATS hands it is
// lost; the next attempt goes to another member.
const openAttempt = 15 * time.Second

// Open asks any actuator for a session for runID, confined to origins
// (see schema.OpenSessionRequest; none: any http or https page), trying
// again while attempts go unanswered, for up to SessionCallTimeout.
// Errors: a *schema.Error from the actuator, or ErrNoService when none
// runs.
func (c *Browsers) Open(ctx context.Context, runID string, origins ...string) (*BrowserSession, error) {
	var rep schema.OpenSessionReply
	giveUp := time.Now().Add(SessionCallTimeout)
	for {
		actx, cancel := context.WithTimeout(ctx, openAttempt)
		err := c.rpc.Call(actx, schema.SubjectOpenSession, &schema.OpenSessionRequest{RunID: runID, Origins: origins}, &rep)
		timedOut := err != nil && actx.Err() != nil && ctx.Err() == nil
		cancel()
		switch {
		case err == nil:
			return &BrowserSession{rpc: c.rpc, RunID: runID, Instance: rep.Instance, Browser: rep.Browser}, nil
		case !timedOut || time.Now().After(giveUp):
			return nil, err
		}
	}
}

// Adopt hands the session, as it is, to run to, on the instance that
// holds it. The returned session is run to's; s is no longer usable.
func (s *BrowserSession) Adopt(ctx context.Context, to string) (*BrowserSession, error) {
	var rep schema.OpenSessionReply
	if err := s.call(ctx, schema.EndpointAdopt, &schema.AdoptSessionRequest{From: s.RunID, To: to}, &rep); err != nil {
		return nil, err
	}
	return &BrowserSession{rpc: s.rpc, RunID: to, Instance: rep.Instance, Browser: rep.Browser, Secrets: s.Secrets}, nil
}

// Act performs one action. A refused or failed action is not an error
// here: the returned event's Error says why. The error is for a request
// that could not be made (no session, no actuator).
func (s *BrowserSession) Act(ctx context.Context, stepID string, a schema.Action) (*schema.BrowserAction, error) {
	var rep schema.ActReply
	err := s.call(ctx, schema.EndpointAct, &schema.ActRequest{RunID: s.RunID, StepID: stepID, Action: a, Secrets: s.Secrets}, &rep)
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
	if err := s.call(ctx, schema.EndpointObserve, req, &rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

// Close ends the session and its browser context.
func (s *BrowserSession) Close(ctx context.Context) error {
	var rep struct{}
	return s.call(ctx, schema.EndpointClose, &schema.CloseSessionRequest{RunID: s.RunID}, &rep)
}

// aliveEvery is how often a call waiting on the actuator holding a
// session asks whether that instance still runs.
const aliveEvery = 2 * time.Second

// call sends a request to the instance holding the session, once: a
// copy lost while NATS fails over is sent again (RPC.CallOnce). That
// instance no longer answering (gone from NATS, or silent for
// SessionCallTimeout) is a *schema.Error with CodeNoSession: the session
// is lost with it, and the run may be tried again elsewhere. While it
// waits, the call asks the instance's alive endpoint every aliveEvery: an
// instance that died in the middle of the request (its process killed)
// has no responder there, and the call ends at once instead of waiting
// out SessionCallTimeout.
func (s *BrowserSession) call(ctx context.Context, endpoint string, req, rep any) error {
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if _, ok := ctx.Deadline(); !ok {
		cctx, cancel = context.WithTimeout(ctx, SessionCallTimeout)
	}
	defer cancel()
	cctx, gone := context.WithCancelCause(cctx)
	defer gone(nil)
	go s.watch(cctx, gone)
	err := s.rpc.CallOnce(cctx, schema.ActuatorSubject(s.Instance, endpoint), req, rep)
	switch {
	case errors.Is(err, ErrNoService):
		return schema.Errorf(schema.CodeNoSession, "the actuator %s holding run %s's browser session is gone: %v", s.Instance, s.RunID, err)
	case err != nil && errors.Is(context.Cause(cctx), errInstanceGone):
		return schema.Errorf(schema.CodeNoSession, "the actuator %s holding run %s's browser session went away during %s", s.Instance, s.RunID, endpoint)
	case err != nil && ctx.Err() == nil && cctx.Err() != nil:
		return schema.Errorf(schema.CodeNoSession, "the actuator %s holding run %s's browser session did not answer %s within %s", s.Instance, s.RunID, endpoint, SessionCallTimeout)
	}
	return err
}

// errInstanceGone ends a call whose actuator no longer runs.
var errInstanceGone = errors.New("bus: the actuator instance is gone")

// watch asks the session's instance whether it runs, every aliveEvery
// until ctx ends, and ends ctx with errInstanceGone when nobody answers
// twice in a row: once may be the moment the instance's connection moves
// to another server of a cluster.
func (s *BrowserSession) watch(ctx context.Context, gone context.CancelCauseFunc) {
	tick := time.NewTicker(aliveEvery)
	defer tick.Stop()
	missed := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		pctx, cancel := context.WithTimeout(ctx, aliveEvery)
		var rep struct{}
		err := s.rpc.Call(pctx, schema.ActuatorSubject(s.Instance, schema.EndpointAlive), &struct{}{}, &rep)
		cancel()
		switch {
		case !errors.Is(err, ErrNoService):
			missed = 0
		case missed > 0:
			gone(errInstanceGone)
			return
		default:
			missed++
		}
	}
}
