package bus

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/schema"
)

// RunLog is the run log: ROTE_RUNS, every event of every run in order,
// and ROTE_BLOBS, the payloads its events refer to by digest. Recorders,
// services and the executor write to it; audit, the distiller and the
// benchmark read it.
type RunLog struct {
	*publisher
	blobs jetstream.ObjectStore
	keys  *keyring
	live  *liveness
}

// Signed reports whether this client signs the events it publishes and
// checks those it reads (see HeaderSignature).
func (l *RunLog) Signed() bool { return l.keys.keys != nil }

// Publish validates ev, writes it to its stream and waits for the
// server's acknowledgement. The event id (with, on a signing bus, the
// start of its signature) is the Nats-Msg-Id, so publishing the same
// event twice within DedupWindow stores it once (the second ack
// has Duplicate set). A publish the cluster could not take for a moment
// (no stream leader during a failover, the connection moving to another
// node) is tried again, with backoff, for Config.PublishPatience: the
// event id makes a retry of one the server did store a duplicate it
// drops. Errors: *schema.Error for an invalid event, ErrTooLarge, or the
// JetStream error (context deadline, no responders).
func (l *RunLog) Publish(ctx context.Context, ev schema.Event, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error) {
	l.live.publishing(ev)
	ack, err := l.publish(ctx, ev, opts...)
	l.live.published(ev, err)
	return ack, err
}

// PublishAsync validates ev and starts writing it without waiting; the
// future resolves to the acknowledgement. Use PublishAsyncComplete to wait
// for all outstanding publishes.
func (l *RunLog) PublishAsync(ev schema.Event, opts ...jetstream.PublishOpt) (jetstream.PubAckFuture, error) {
	msg, err := l.message(ev)
	if err != nil {
		return nil, err
	}
	l.live.publishing(ev)
	f, err := l.js.PublishMsgAsync(msg, append(opts, jetstream.WithMsgID(msgID(msg, ev)))...)
	l.live.published(ev, err)
	if err != nil {
		return nil, fmt.Errorf("bus: publish %s %s: %w", ev.EventType(), ev.EventID(), err)
	}
	return f, nil
}

// PublishAsyncComplete returns a channel closed when every asynchronous
// publish has been acknowledged or has failed.
func (l *RunLog) PublishAsyncComplete() <-chan struct{} { return l.js.PublishAsyncComplete() }

// PutBlob stores blob in ROTE_BLOBS under its digest, unless it is there
// already (blobs are content-addressed, so it is the same bytes).
func (l *RunLog) PutBlob(ctx context.Context, blob schema.Blob) error {
	if _, err := l.blobs.GetInfo(ctx, blob.Digest); err == nil {
		return nil
	}
	if _, err := l.blobs.PutBytes(ctx, blob.Digest, blob.Data); err != nil {
		return fmt.Errorf("bus: put blob %s: %w", blob.Digest, err)
	}
	return nil
}

// Blob returns the payload stored under digest (sha256:<hex>).
// jetstream.ErrObjectNotFound when there is none.
func (l *RunLog) Blob(ctx context.Context, digest string) ([]byte, error) {
	data, err := l.blobs.GetBytes(ctx, digest)
	if err != nil {
		return nil, fmt.Errorf("bus: blob %s: %w", digest, err)
	}
	return data, nil
}

// PublishSpilled moves ev's large payloads to ROTE_BLOBS (schema.Spill)
// and publishes it.
func (l *RunLog) PublishSpilled(ctx context.Context, ev schema.Event) error {
	for _, blob := range schema.Spill(ev) {
		if err := l.PutBlob(ctx, blob); err != nil {
			return err
		}
	}
	_, err := l.Publish(ctx, ev)
	return err
}

// Counts returns how many events of each kind (schema.KindCalls, ...)
// ROTE_RUNS holds per subject, rote.runs.<run>.<kind>, without reading
// them.
func (l *RunLog) Counts(ctx context.Context, kinds ...string) (map[string]int, error) {
	stream, err := l.js.Stream(ctx, StreamRuns)
	if err != nil {
		return nil, fmt.Errorf("bus: %s: %w", StreamRuns, err)
	}
	counts := map[string]int{}
	for _, kind := range kinds {
		info, err := stream.Info(ctx, jetstream.WithSubjectFilter(schema.RunKindFilter(kind)))
		if err != nil {
			return nil, fmt.Errorf("bus: %s: %w", StreamRuns, err)
		}
		for subject, n := range info.State.Subjects {
			counts[subject] = int(n)
		}
	}
	return counts, nil
}

// MemoryChecks returns every use of site memory the log holds
// (memory.checked.v1), in the order they were recorded.
func (l *RunLog) MemoryChecks(ctx context.Context) ([]*schema.MemoryChecked, error) {
	envs, err := l.Read(ctx, schema.RunKindFilter(schema.KindMemory))
	if err != nil {
		return nil, err
	}
	var out []*schema.MemoryChecked
	for _, env := range envs {
		if c, ok := env.Event.(*schema.MemoryChecked); ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// Fold reads run runID and folds its events (schema.Fold).
// ErrRunNotFound when it has none.
// The messages of the run that are no valid event are in the fold's
// Undecodable, for an audit to report.
func (l *RunLog) Fold(ctx context.Context, runID string) (*schema.RunFold, error) {
	if err := schema.ValidateRunID(runID); err != nil {
		return nil, err
	}
	envs, bad, err := l.ReadChecked(ctx, schema.RunFilter(runID))
	if err != nil {
		return nil, err
	}
	if len(envs) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrRunNotFound, runID)
	}
	events := make([]schema.Event, len(envs))
	for i, e := range envs {
		events[i] = e.Event
	}
	f := schema.Fold(events)
	for _, u := range bad {
		f.Undecodable = append(f.Undecodable, fmt.Sprintf("%s seq %d: %v", u.Subject, u.Seq, u.Err))
	}
	return f, nil
}

// Children returns the ids of the runs whose parent is runID: the runs
// that continue it, such as the agent after a replay fell back.
func (l *RunLog) Children(ctx context.Context, runID string) ([]string, error) {
	envs, err := l.Read(ctx, schema.RunKindFilter(schema.KindStarted))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range envs {
		if s, ok := e.Event.(*schema.RunStarted); ok && s.Parent == runID {
			out = append(out, s.RunID)
		}
	}
	return out, nil
}

// Abort publishes run.finished with outcome aborted and reason why (as
// CodeInternal) for run runID when it started and never finished: its
// time range ends at its last stored event. It reports whether it did.
func (l *RunLog) Abort(ctx context.Context, runID string, now time.Time, why string) (bool, error) {
	envs, err := l.ReadRun(ctx, runID)
	if errors.Is(err, ErrRunNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var started *schema.RunStarted
	var fingerprint string
	last := envs[len(envs)-1].Event.EventTime()
	for _, env := range envs {
		switch e := env.Event.(type) {
		case *schema.RunStarted:
			started = e
		case *schema.RunFinished:
			return false, nil
		case *schema.Inventory:
			fingerprint = e.Fingerprint
		}
		if t := env.Event.EventTime(); t.After(last) {
			last = t
		}
	}
	if started == nil {
		return false, nil
	}
	spec := started.RunSpec
	if fingerprint != "" {
		spec.Fingerprint = fingerprint
	}
	_, err = l.Publish(ctx, &schema.RunFinished{
		Meta: schema.Meta{ID: runID + "-finished", Time: now},
		Manifest: schema.Manifest{
			RunSpec: spec, Outcome: schema.OutcomeAborted, Started: started.Time, Finished: last,
			Reason: &schema.Error{Code: schema.CodeInternal, Message: why},
		},
	})
	return err == nil, err
}
