package bus

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/schema"
)

// ErrRunNotFound means a run has no events in ROTE_RUNS.
var ErrRunNotFound = errors.New("bus: run not found")

// Envelope is one stored event with its place in the stream.
type Envelope struct {
	Seq     uint64 // stream sequence
	Subject string
	Time    time.Time // when the server stored it
	Event   schema.Event
}

// Decode turns a stored message into an Envelope. A message without the
// event type header, or whose payload does not decode and validate as
// that type, is a *schema.Error with CodeInvalid.
func Decode(msg jetstream.Msg) (Envelope, error) {
	typ := msg.Headers().Get(HeaderEventType)
	if typ == "" {
		return Envelope{}, schema.Errorf(schema.CodeInvalid, "message on %s has no %s header", msg.Subject(), HeaderEventType)
	}
	ev, err := schema.Unmarshal(typ, msg.Data())
	if err != nil {
		return Envelope{}, err
	}
	// The subject says whose event it is (the run, and the kind a role
	// may write, which the signature covers): an event stored elsewhere
	// than its own subject (a run.finished on an .observed subject, an
	// event of another run) is refused.
	if want := ev.Subject(); want != msg.Subject() {
		return Envelope{}, schema.Errorf(schema.CodeInvalid, "a %s stored on %s, where its run and type put it on %s", typ, msg.Subject(), want)
	}
	env := Envelope{Subject: msg.Subject(), Event: ev}
	if md, err := msg.Metadata(); err == nil {
		env.Seq, env.Time = md.Sequence.Stream, md.Timestamp
	}
	return env, nil
}

// Undecodable is a message in the run log that is no valid event, or
// whose signature does not hold (see HeaderSignature): one that a client
// without Rote's permissions or key could never have written, or a bug.
// Readers skip it and say so; an audit of its run disagrees.
type Undecodable struct {
	Subject string
	Seq     uint64
	Err     error
}

// Read returns every event in ROTE_RUNS whose subject matches one of the
// filters, in stream order: everything stored when the call began, and
// possibly events stored while it reads. A message that does not decode,
// or whose signature does not hold, is skipped with a warning naming its
// subject and sequence, so that one bad message cannot make every run
// unreadable; ReadChecked returns them.
func (l *RunLog) Read(ctx context.Context, filters ...string) ([]Envelope, error) {
	envs, bad, err := l.ReadChecked(ctx, filters...)
	for _, u := range bad {
		l.log.Warn("an undecodable message in the run log was skipped", "subject", u.Subject, "seq", u.Seq, "err", u.Err)
	}
	return envs, err
}

// readIdle is how long a read's consumer outlives a reader that died
// mid-read.
const readIdle = time.Minute

// ReadChecked is Read, returning the messages that did not decode
// instead of logging them.
func (l *RunLog) ReadChecked(ctx context.Context, filters ...string) ([]Envelope, []Undecodable, error) {
	var cons jetstream.Consumer
	var info *jetstream.ConsumerInfo
	err := l.patience.retry(ctx, func(ctx context.Context) error {
		var err error
		cons, err = l.js.OrderedConsumer(ctx, StreamRuns, jetstream.OrderedConsumerConfig{
			FilterSubjects:    filters,
			DeliverPolicy:     jetstream.DeliverAllPolicy,
			InactiveThreshold: readIdle,
		})
		if err == nil {
			info, err = cons.Info(ctx)
		}
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("bus: read %v: open a consumer: %w", filters, err)
	}
	// A read's consumer goes with it: a stream holds only so many
	// (consumers.go), and one left idle would count until it expired.
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), consumerCallLimit)
		defer cancel()
		_ = l.js.DeleteConsumer(ctx, StreamRuns, cons.CachedInfo().Name)
	}()
	remaining := info.NumPending
	out := make([]Envelope, 0, remaining)
	var bad []Undecodable
	p := l.patience.backoff()
	for remaining > 0 {
		batch, err := cons.Fetch(int(min(remaining, 512)), jetstream.FetchContext(ctx))
		if err == nil {
			for msg := range batch.Messages() {
				md, err := msg.Metadata()
				if err != nil {
					return nil, nil, fmt.Errorf("bus: read %v: %w", filters, err)
				}
				remaining = md.NumPending
				env, err := Decode(msg)
				if err == nil {
					err = l.keys.check(md.Sequence.Stream, msg)
				}
				if err != nil {
					bad = append(bad, Undecodable{Subject: msg.Subject(), Seq: md.Sequence.Stream, Err: err})
					continue
				}
				out = append(out, env)
			}
			err = batch.Error()
		}
		if err == nil {
			continue
		}
		// Just after a failover the consumer's new home may not be known
		// across the cluster yet: fetch again from where it stands.
		if err := p.again(ctx, err); err != nil {
			return nil, nil, fmt.Errorf("bus: read %v: fetch: %w", filters, err)
		}
	}
	return out, bad, nil
}

// ReadRun returns every event of one run in order, or ErrRunNotFound.
func (l *RunLog) ReadRun(ctx context.Context, runID string) ([]Envelope, error) {
	if err := schema.ValidateRunID(runID); err != nil {
		return nil, err
	}
	envs, err := l.Read(ctx, schema.RunFilter(runID))
	if err != nil {
		return nil, err
	}
	if len(envs) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrRunNotFound, runID)
	}
	return envs, nil
}
