package bus

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/schema"
)

// HeaderEventType carries an event's versioned type name.
const HeaderEventType = "Rote-Event-Type"

// ErrTooLarge means an encoded event exceeds the server's max payload.
// Large payloads belong in the blob store, referenced by digest.
var ErrTooLarge = errors.New("bus: event larger than the server's max payload")

// message validates and encodes ev as a NATS message on its subject.
func (b *Bus) message(ev schema.Event) (*nats.Msg, error) {
	data, err := schema.Marshal(ev)
	if err != nil {
		return nil, err
	}
	if max := b.conn.MaxPayload(); int64(len(data)) > max {
		return nil, fmt.Errorf("%w: %s %s is %d bytes, limit %d", ErrTooLarge, ev.EventType(), ev.EventID(), len(data), max)
	}
	msg := nats.NewMsg(ev.Subject())
	msg.Data = data
	msg.Header.Set(HeaderEventType, ev.EventType())
	return msg, nil
}

// publishAttempt bounds one try of a publish or of opening a read: a
// stream whose leader is gone answers nothing, and a new leader is
// usually elected within it.
const publishAttempt = 2 * time.Second

// Publish validates ev, writes it to its stream and waits for the
// server's acknowledgement. The event id is the Nats-Msg-Id, so publishing
// the same event twice within DedupWindow stores it once (the second ack
// has Duplicate set). A publish the cluster could not take for a moment
// (no stream leader during a failover, the connection moving to another
// node) is tried again, with backoff, for Config.PublishPatience: the
// event id makes a retry of one the server did store a duplicate it
// drops. Errors: *schema.Error for an invalid event, ErrTooLarge, or the
// JetStream error (context deadline, no responders).
func (b *Bus) Publish(ctx context.Context, ev schema.Event, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
	msg, err := b.message(ev)
	if err != nil {
		return nil, err
	}
	opts = append(opts, jetstream.WithMsgID(ev.EventID()))
	var ack *jetstream.PubAck
	err = b.retry(ctx, func(ctx context.Context) error {
		var err error
		ack, err = b.js.PublishMsg(ctx, msg, opts...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("bus: publish %s %s: %w", ev.EventType(), ev.EventID(), err)
	}
	return ack, nil
}

// retry runs try, each time bounded by publishAttempt, until it succeeds,
// fails for good, or the bus's patience or ctx runs out.
func (b *Bus) retry(ctx context.Context, try func(context.Context) error) error {
	p := b.backoff()
	for {
		actx, cancel := context.WithTimeout(ctx, publishAttempt)
		err := try(actx)
		cancel()
		if err == nil {
			return nil
		}
		if err = p.again(ctx, err); err != nil {
			return err
		}
	}
}

// backoff paces the tries of something a failover may interrupt: after a
// transient failure it waits 50 ms, doubling up to 1 s, until the bus's
// patience runs out.
type backoff struct {
	giveUp time.Time
	wait   time.Duration
}

func (b *Bus) backoff() *backoff {
	return &backoff{giveUp: time.Now().Add(b.patience), wait: 50 * time.Millisecond}
}

// again waits before another try after err and returns nil, or returns
// the error to give up with: err itself when it is not transient or
// patience is spent, ctx's when ctx ends.
func (p *backoff) again(ctx context.Context, err error) error {
	if ctx.Err() != nil || !transient(err) || time.Now().Add(p.wait).After(p.giveUp) {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(p.wait):
	}
	p.wait = min(2*p.wait, time.Second)
	return nil
}

// transient errors of a publish or a read may clear once the cluster has failed
// over: no stream leader answered, the try timed out, or the connection
// was between servers.
func transient(err error) bool {
	return errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrReconnectBufExceeded) || errors.Is(err, nats.ErrConnectionReconnecting) ||
		errors.Is(err, nats.ErrDisconnected)
}

// PublishAsync validates ev and starts writing it without waiting; the
// future resolves to the acknowledgement. Use PublishAsyncComplete to wait
// for all outstanding publishes.
func (b *Bus) PublishAsync(ev schema.Event, opts ...jetstream.PublishOpt) (jetstream.PubAckFuture, error) {
	msg, err := b.message(ev)
	if err != nil {
		return nil, err
	}
	f, err := b.js.PublishMsgAsync(msg, append(opts, jetstream.WithMsgID(ev.EventID()))...)
	if err != nil {
		return nil, fmt.Errorf("bus: publish %s %s: %w", ev.EventType(), ev.EventID(), err)
	}
	return f, nil
}

// PublishAsyncComplete returns a channel closed when every asynchronous
// publish has been acknowledged or has failed.
func (b *Bus) PublishAsyncComplete() <-chan struct{} { return b.js.PublishAsyncComplete() }

// PutBlob stores b in ROTE_BLOBS under its digest, unless it is there
// already (blobs are content-addressed, so it is the same bytes).
func (b *Bus) PutBlob(ctx context.Context, blob schema.Blob) error {
	if _, err := b.blobs.GetInfo(ctx, blob.Digest); err == nil {
		return nil
	}
	if _, err := b.blobs.PutBytes(ctx, blob.Digest, blob.Data); err != nil {
		return fmt.Errorf("bus: put blob %s: %w", blob.Digest, err)
	}
	return nil
}

// PublishSpilled moves ev's large payloads to ROTE_BLOBS (schema.Spill)
// and publishes it.
func (b *Bus) PublishSpilled(ctx context.Context, ev schema.Event) error {
	for _, blob := range schema.Spill(ev) {
		if err := b.PutBlob(ctx, blob); err != nil {
			return err
		}
	}
	_, err := b.Publish(ctx, ev)
	return err
}
