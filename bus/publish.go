package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/schema"
)

// HeaderEventType carries an event's versioned type name.
const HeaderEventType = "Rote-Event-Type"

// ErrTooLarge means an encoded event exceeds the server's max payload.
// Large payloads belong in the blob store, referenced by digest.
var ErrTooLarge = errors.New("bus: event larger than the server's max payload")

// publisher writes typed events to their streams: the run log and the
// task queue share it.
type publisher struct {
	conn     *nats.Conn
	js       jetstream.JetStream
	patience patience
	log      *slog.Logger
	signer   *signer // signs every event (HeaderSignature); nil signs none
	via      string  // a role's events go through the gate: APIPrefix(role)
}

// message validates and encodes ev as a NATS message on its subject.
func (p *publisher) message(ev schema.Event) (*nats.Msg, error) {
	data, err := schema.Marshal(ev)
	if err != nil {
		return nil, err
	}
	if max := p.conn.MaxPayload(); int64(len(data)) > max {
		return nil, fmt.Errorf("%w: %s %s is %d bytes, limit %d", ErrTooLarge, ev.EventType(), ev.EventID(), len(data), max)
	}
	msg := nats.NewMsg(p.via + ev.Subject())
	msg.Data = data
	msg.Header.Set(HeaderEventType, ev.EventType())
	if p.signer != nil {
		msg.Header.Set(HeaderSignature, p.signer.sign(ev.Subject(), ev.EventType(), data))
	}
	return msg, nil
}

// msgID is the Nats-Msg-Id the stream deduplicates msg by: the event's
// id, and when it is signed, the start of its signature. The same event
// published again (a retry, a spool flushed twice) has the same id; but a
// process without the key cannot predict it, so it cannot publish a
// message under an event's id first and have the real event dropped as
// its duplicate.
func msgID(msg *nats.Msg, ev schema.Event) string {
	if _, sig, _ := strings.Cut(msg.Header.Get(HeaderSignature), ":"); sig != "" {
		return ev.EventID() + "." + sig[:16]
	}
	return ev.EventID()
}

// publish validates ev, writes it to its stream and waits for the
// server's acknowledgement, retrying through a failover (see
// RunLog.Publish).
func (p *publisher) publish(ctx context.Context, ev schema.Event, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
	msg, err := p.message(ev)
	if err != nil {
		return nil, err
	}
	opts = append(opts, jetstream.WithMsgID(msgID(msg, ev)))
	var ack *jetstream.PubAck
	tries := 0
	err = p.patience.retry(ctx, func(ctx context.Context) error {
		var err error
		tries++
		if ack, err = p.js.PublishMsg(ctx, msg, opts...); err != nil && tries == 1 {
			p.log.Debug("publish not acknowledged, trying again", "type", ev.EventType(), "id", ev.EventID(), "err", err)
		}
		return err
	})
	if storeFull(err) {
		return nil, fmt.Errorf("%w: %s refused %s %s: %v (its owner raises the limit or archives old runs)", ErrStoreFull, streamOf(msg.Subject), ev.EventType(), ev.EventID(), err)
	}
	if err != nil {
		return nil, fmt.Errorf("bus: publish %s %s: %w", ev.EventType(), ev.EventID(), err)
	}
	if tries > 1 {
		p.log.Info("publish acknowledged after a retry", "type", ev.EventType(), "id", ev.EventID(), "tries", tries, "duplicate", ack.Duplicate)
	}
	return ack, nil
}

// streamOf names the stream that keeps subject.
func streamOf(subject string) string {
	if strings.HasSuffix(subject, schema.SubjectTasks) {
		return StreamTasks
	}
	return StreamRuns
}
