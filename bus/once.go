package bus

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/vmihailenco/msgpack/v5"
)

// headerCall carries the id of one logical call whose request may reach
// its service more than once (see RPC.CallOnce).
const headerCall = "Rote-Call"

// resendEvery is how long CallOnce waits for a reply before it sends its
// request again.
const resendEvery = 5 * time.Second

// CallOnce is Call for a request that must be served at most once but
// may be lost on the way: a NATS server that dies drops the messages in
// flight to and from the clients it held, and a client reconnecting
// elsewhere has no subscriptions for a moment. CallOnce sends req under
// a call id and sends it again, with the same id and to the same reply
// inbox, every resendEvery until a reply comes or ctx ends. The service
// runs the handler once per id and answers every copy with that one
// reply (see calls). Errors are Call's. A queue group's copies may reach
// different members, so a call there is served once per member that gets
// a copy: fit for reads, not for work that costs (a model call).
func (r *RPC) CallOnce(ctx context.Context, subject string, req, rep any) error {
	data, err := msgpack.Marshal(req)
	if err != nil {
		return fmt.Errorf("bus: encode request to %s: %w", subject, err)
	}
	inbox := r.conn.NewInbox()
	sub, err := r.conn.SubscribeSync(inbox)
	if err != nil {
		return fmt.Errorf("bus: request %s: %w", subject, err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	msg := &nats.Msg{Subject: subject, Reply: inbox, Data: data, Header: nats.Header{}}
	msg.Header.Set(headerCall, NewID())
	for {
		// A copy that cannot leave now (the connection is between
		// servers) is sent again at the next turn.
		if err := r.conn.PublishMsg(msg); errors.Is(err, nats.ErrConnectionClosed) {
			return fmt.Errorf("bus: request %s: %w", subject, err)
		}
		wctx, cancel := context.WithTimeout(ctx, resendEvery)
		got, err := sub.NextMsgWithContext(wctx)
		cancel()
		switch {
		case errors.Is(err, nats.ErrNoResponders):
			return fmt.Errorf("%w on %s", ErrNoService, subject)
		case err == nil:
			return decodeReply(subject, got, rep)
		case ctx.Err() != nil:
			return fmt.Errorf("bus: request %s: %w", subject, ctx.Err())
		case !errors.Is(err, context.DeadlineExceeded):
			return fmt.Errorf("bus: request %s: %w", subject, err)
		}
	}
}

// reply is an endpoint's answer to one request, as it goes on the wire.
type reply struct {
	data    []byte
	headers micro.Headers
}

// keepCalls bounds how many served calls a service remembers, and
// keepCallsFor how long: a copy of a request arrives at most
// SessionCallTimeout after its first.
const (
	keepCalls    = 128
	keepCallsFor = 2 * SessionCallTimeout
)

// calls remembers the calls a service served by their id, so that a
// copy of a request is answered with the first one's reply instead of
// being served again: an action clicked twice because its reply was lost
// would act twice.
type calls struct {
	mu    sync.Mutex
	byID  map[string]*call
	order []string // ids, oldest first
}

type call struct {
	done  chan struct{}
	reply reply
	ended time.Time // zero while serving
}

// once returns the reply to call id: serve's, run now if id is new, or
// the first copy's, waited for if that is still being served.
func (c *calls) once(ctx context.Context, id string, serve func() reply) (reply, bool) {
	c.mu.Lock()
	if c.byID == nil {
		c.byID = map[string]*call{}
	}
	if e, ok := c.byID[id]; ok {
		c.mu.Unlock()
		select {
		case <-e.done:
			return e.reply, true
		case <-ctx.Done():
			return reply{}, false
		}
	}
	e := &call{done: make(chan struct{})}
	c.byID[id] = e
	c.order = append(c.order, id)
	c.forgetLocked(time.Now())
	c.mu.Unlock()

	rep := serve()
	c.mu.Lock()
	e.reply, e.ended = rep, time.Now()
	c.mu.Unlock()
	close(e.done)
	return rep, true
}

// forgetLocked drops the oldest calls past keepCalls, and ended calls
// older than keepCallsFor.
func (c *calls) forgetLocked(now time.Time) {
	n := 0
	for _, id := range c.order {
		e := c.byID[id]
		stale := !e.ended.IsZero() && now.Sub(e.ended) > keepCallsFor
		if len(c.order)-n <= keepCalls && !stale {
			break
		}
		delete(c.byID, id)
		n++
	}
	c.order = c.order[n:]
}
