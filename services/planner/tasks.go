package planner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// TaskConsumer is the durable consumer on ROTE_TASKS that every planner
// shares: the stream is a work queue, so each task goes to exactly one.
const TaskConsumer = "rote-planner"

// TaskAckWait is how long a claimed task may go without a sign of life
// before the server hands it to another planner; a worker doing a task
// says it is still at it every third of that.
const TaskAckWait = 30 * time.Second

// TaskDeliveries is how often a task is handed out before it is given up:
// a planner that died, or a run that failed for want of a browser, gets
// it tried again.
const TaskDeliveries = 3

// ResolveTask turns a claimed request into the task to do: its verify
// gate, secret values and start URL. An error is final for the task.
type ResolveTask func(ctx context.Context, req *schema.TaskRequested) (Task, *Chosen, error)

// TaskWorker claims tasks from rote.tasks and does each through the
// control loop. A task that cannot be read or resolved is terminated
// (never retried); a run that could not start, or that failed because
// the browser under it went away, is handed back for another attempt,
// up to TaskDeliveries; any other outcome is the task's, and acknowledged.
type TaskWorker struct {
	bus     *bus.Bus
	c       *Controller
	resolve ResolveTask
	ready   chan struct{}
	// Done, when set, is told how each delivery ended (tests and metrics).
	Done func(TaskDone)
}

// TaskDone is what became of one delivery of a task.
type TaskDone struct {
	TaskID  string
	RunID   string
	Attempt int
	Outcome schema.Outcome // empty when no run finished
	Err     error          // why the delivery was handed back or terminated
	Retried bool
}

// NewTaskWorker returns a worker over c; resolve prepares each task.
func NewTaskWorker(b *bus.Bus, c *Controller, resolve ResolveTask) *TaskWorker {
	return &TaskWorker{bus: b, c: c, resolve: resolve, ready: make(chan struct{})}
}

// Ready is closed once the worker's consumer exists.
func (w *TaskWorker) Ready() <-chan struct{} { return w.ready }

// Run claims and does tasks, one at a time, until ctx ends.
func (w *TaskWorker) Run(ctx context.Context) error {
	cons, err := w.bus.JetStream().CreateOrUpdateConsumer(ctx, bus.StreamTasks, jetstream.ConsumerConfig{
		Durable:       TaskConsumer,
		Description:   "planners claiming Rote tasks, one each",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       TaskAckWait,
		MaxDeliver:    TaskDeliveries,
		FilterSubject: schema.SubjectTasks,
	})
	if err != nil {
		return fmt.Errorf("planner: task consumer: %w", err)
	}
	close(w.ready)
	for ctx.Err() == nil {
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			// The server is away for a moment (a node restarting): wait
			// and ask again rather than give up the role.
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		for msg := range batch.Messages() {
			w.handle(ctx, msg)
		}
	}
	return nil
}

// handle does one delivered task and settles its message.
func (w *TaskWorker) handle(ctx context.Context, msg jetstream.Msg) {
	done := TaskDone{Attempt: 1}
	if md, err := msg.Metadata(); err == nil {
		done.Attempt = int(md.NumDelivered)
	}
	req, err := decodeTask(msg)
	if err != nil {
		done.Err = err
		_ = msg.Term()
		w.report(done)
		return
	}
	done.TaskID = req.TaskID
	done.RunID = req.TaskID
	if done.Attempt > 1 {
		done.RunID = req.TaskID + "-" + strconv.Itoa(done.Attempt)
	}
	t, chosen, err := w.resolve(ctx, req)
	if err != nil {
		done.Err = err
		_ = msg.Term()
		w.report(done)
		return
	}
	stop := keepClaimed(ctx, msg)
	out, err := w.c.Run(ctx, t, chosen, Options{RunID: done.RunID}, nil)
	stop()
	switch {
	case ctx.Err() != nil:
		// Shutting down: another planner takes it over at once.
		done.Err, done.Retried = ctx.Err(), true
		_ = msg.Nak()
	case err != nil:
		done.Err, done.Retried = err, done.Attempt < TaskDeliveries
		_ = msg.NakWithDelay(time.Second)
	case out.Outcome != schema.OutcomeSuccess && lostBrowser(out.Reason) && done.Attempt < TaskDeliveries:
		done.Outcome, done.Err, done.Retried = out.Outcome, out.Reason, true
		_ = msg.NakWithDelay(time.Second)
	default:
		done.Outcome = out.Outcome
		if out.Reason != nil {
			done.Err = out.Reason
		}
		_ = msg.DoubleAck(ctx)
	}
	w.report(done)
}

func (w *TaskWorker) report(d TaskDone) {
	if w.Done != nil {
		w.Done(d)
	}
}

// decodeTask reads a task request. Any NATS client may publish one: the
// Rote-Event-Type header is optional on rote.tasks, but when present it
// must name task.requested.v1.
func decodeTask(msg jetstream.Msg) (*schema.TaskRequested, error) {
	if typ := msg.Headers().Get(bus.HeaderEventType); typ != "" && typ != schema.TypeTaskRequested {
		return nil, schema.Errorf(schema.CodeInvalid, "a %s event on %s: want %s", typ, schema.SubjectTasks, schema.TypeTaskRequested)
	}
	ev, err := schema.Unmarshal(schema.TypeTaskRequested, msg.Data())
	if err != nil {
		return nil, err
	}
	return ev.(*schema.TaskRequested), nil
}

// keepClaimed tells the server the task is still being worked on, every
// third of TaskAckWait, until the returned stop is called.
func keepClaimed(ctx context.Context, msg jetstream.Msg) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(TaskAckWait / 3)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				_ = msg.InProgress()
			}
		}
	}()
	return func() { cancel(); <-finished }
}

// lostBrowser reports whether a run failed because the browser or the
// actuator under it went away: another attempt may find one.
func lostBrowser(reason *schema.Error) bool {
	return reason != nil && (errors.Is(reason, schema.ErrBrowserCrashed) || errors.Is(reason, schema.ErrNoSession) ||
		errors.Is(reason, schema.ErrUnavailable))
}
