package bus

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/schema"
)

// DefaultTaskAckWait is ClaimConfig.AckWait when it is not set: the
// server's own default.
const DefaultTaskAckWait = 30 * time.Second

// claimFetchWait is how long one fetch waits for a task: Claim notices
// ctx ending within it.
const claimFetchWait = 5 * time.Second

// ErrNoTaskHandler is returned by Claim when it is given no handler.
var ErrNoTaskHandler = errors.New("bus: claiming tasks needs a handler")

// ClaimConfig configures TaskQueue.Claim.
type ClaimConfig struct {
	// AckWait is how long a claimed task may go without a sign of life
	// before the server hands it to another claimant. While the handler
	// runs, Claim tells the server it is still at it every third of
	// AckWait. Zero or less is DefaultTaskAckWait.
	AckWait time.Duration
	// MaxDeliver is how often a task is handed out before the server gives
	// it up; zero or less is without limit.
	MaxDeliver int
	// Ready, when set, is called once, when the consumer exists and before
	// the first task is fetched.
	Ready func()
	// Undecodable, when set, is told of each message that is no task
	// request, after Claim terminated it; the handler never sees those.
	// err is a *schema.Error saying why.
	Undecodable func(ctx context.Context, d Delivery, err error)
	// Log hears of fetches that failed and verdicts the server could not
	// be told of; default the bus's logger.
	Log *slog.Logger
}

// Delivery is one handing out of a task message.
type Delivery struct {
	// TaskID is the task's id as its message carries it, read even from a
	// message that does not decode (schema.TaskIDOf); empty when none can
	// be read.
	TaskID string
	// Seq is the message's place in ROTE_TASKS.
	Seq uint64
	// MsgID is its Nats-Msg-Id, when the publisher set one.
	MsgID string
	// Attempt is 1 on the first delivery and counts each redelivery: the
	// server's count of deliveries, at most ClaimConfig.MaxDeliver.
	Attempt int
}

// TaskHandler does one claimed task and says what becomes of it. ctx is
// Claim's: when it ends, the handler should stop and hand the task back
// (Retry(0)).
type TaskHandler func(ctx context.Context, req *schema.TaskRequested, d Delivery) Verdict

// Verdict is what a TaskHandler decided for its task: Ack, Retry or
// Reject. The zero Verdict is Ack.
type Verdict struct {
	kind  verdictKind
	delay time.Duration
	err   error
}

type verdictKind int

const (
	verdictAck verdictKind = iota
	verdictRetry
	verdictReject
)

// Ack says the task is done, whatever its outcome: it leaves the queue.
// Claim waits for the server to confirm the acknowledgement, so that a
// lost one cannot deliver the task again.
func Ack() Verdict { return Verdict{kind: verdictAck} }

// Retry hands the task back, to be delivered again, to any claimant,
// after delay (at once when it is zero or less), unless it has been
// delivered ClaimConfig.MaxDeliver times.
func Retry(delay time.Duration) Verdict { return Verdict{kind: verdictRetry, delay: max(delay, 0)} }

// Reject says the task cannot be done as asked, on any attempt: it is
// terminated, never delivered again. err is the reason, given to the
// server for its advisory.
func Reject(err error) Verdict { return Verdict{kind: verdictReject, err: err} }

// String says what v does: "ack", "retry after 1s", "reject: reason".
func (v Verdict) String() string {
	switch v.kind {
	case verdictRetry:
		return fmt.Sprintf("retry after %s", v.delay)
	case verdictReject:
		if v.err == nil {
			return "reject"
		}
		return "reject: " + v.err.Error()
	}
	return "ack"
}

// Claim claims tasks from ROTE_TASKS through the planners' shared durable
// consumer, TaskConsumer, creating it, or updating it to cfg, first; and
// hands them to handle one at a time until ctx ends. While handle runs
// the task stays claimed; its Verdict then acknowledges, hands back or
// terminates the message. A message that does not decode as a
// task.requested.v1 (the Rote-Event-Type header is optional, but when set
// must name it) is terminated and told to cfg.Undecodable instead. A
// fetch that fails (the server away for a moment) is tried again after a
// second.
//
// Claim returns nil once ctx ends, ErrNoTaskHandler, or the error the
// server gave creating the consumer.
func (q *TaskQueue) Claim(ctx context.Context, cfg ClaimConfig, handle TaskHandler) error {
	if handle == nil {
		return ErrNoTaskHandler
	}
	if cfg.AckWait <= 0 {
		cfg.AckWait = DefaultTaskAckWait
	}
	log := cmp.Or(cfg.Log, q.log)
	cons, err := q.js.CreateOrUpdateConsumer(ctx, StreamTasks, jetstream.ConsumerConfig{
		Durable:       TaskConsumer,
		Description:   "planners claiming Rote tasks, one each",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       cfg.AckWait,
		MaxDeliver:    cfg.MaxDeliver,
		FilterSubject: schema.SubjectTasks,
	})
	if err != nil {
		return fmt.Errorf("bus: consumer %s on %s: %w", TaskConsumer, StreamTasks, err)
	}
	if cfg.Ready != nil {
		cfg.Ready()
	}
	for ctx.Err() == nil {
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(claimFetchWait))
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			// The server is away for a moment (a node restarting): wait
			// and ask again rather than give up.
			log.Debug("fetching a task failed, asking again", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		for msg := range batch.Messages() {
			claimOne(ctx, cfg, log, msg, handle)
		}
	}
	return nil
}

// claimOne hands one delivered message to handle and settles it.
func claimOne(ctx context.Context, cfg ClaimConfig, log *slog.Logger, msg jetstream.Msg, handle TaskHandler) {
	d := Delivery{Attempt: 1, MsgID: msg.Headers().Get(nats.MsgIdHdr)}
	if md, err := msg.Metadata(); err == nil {
		d.Attempt, d.Seq = int(md.NumDelivered), md.Sequence.Stream
	}
	req, err := decodeTask(msg)
	if err != nil {
		d.TaskID = schema.TaskIDOf(msg.Data())
		settle(ctx, log, msg, d, Reject(err))
		if cfg.Undecodable != nil {
			cfg.Undecodable(ctx, d, err)
		}
		return
	}
	d.TaskID = req.TaskID
	stop := keepClaimed(ctx, log, msg, cfg.AckWait/3)
	v := handle(ctx, req, d)
	stop()
	settle(ctx, log, msg, d, v)
}

// settle tells the server v about msg. A verdict it is not told of (the
// connection gone) ends as the server decides when AckWait runs out:
// the task is delivered again.
func settle(ctx context.Context, log *slog.Logger, msg jetstream.Msg, d Delivery, v Verdict) {
	var err error
	switch v.kind {
	case verdictRetry:
		if v.delay > 0 {
			err = msg.NakWithDelay(v.delay)
		} else {
			err = msg.Nak()
		}
	case verdictReject:
		if v.err != nil {
			err = msg.TermWithReason(v.err.Error())
		} else {
			err = msg.Term()
		}
	default:
		// Even when ctx has ended, the handler's word stands; the
		// connection's own timeout bounds the wait.
		err = msg.DoubleAck(context.WithoutCancel(ctx))
	}
	if err != nil {
		log.Warn("the server was not told a task's verdict; it is delivered again once its ack wait runs out",
			"task", d.TaskID, "seq", d.Seq, "attempt", d.Attempt, "verdict", v.String(), "err", err)
	}
}

// decodeTask reads a task request. Any NATS client may publish one: the
// Rote-Event-Type header is optional on rote.tasks, but when present it
// must name task.requested.v1.
func decodeTask(msg jetstream.Msg) (*schema.TaskRequested, error) {
	if typ := msg.Headers().Get(HeaderEventType); typ != "" && typ != schema.TypeTaskRequested {
		return nil, schema.Errorf(schema.CodeInvalid, "a %s event on %s: want %s", typ, schema.SubjectTasks, schema.TypeTaskRequested)
	}
	ev, err := schema.Unmarshal(schema.TypeTaskRequested, msg.Data())
	if err != nil {
		return nil, err
	}
	return ev.(*schema.TaskRequested), nil
}

// keepClaimed tells the server the task is still being worked on, every
// period, until the returned stop is called.
func keepClaimed(ctx context.Context, log *slog.Logger, msg jetstream.Msg, period time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if err := msg.InProgress(); err != nil {
					log.Debug("a claimed task's sign of life was not sent", "err", err)
				}
			}
		}
	}()
	return func() { cancel(); <-finished }
}
