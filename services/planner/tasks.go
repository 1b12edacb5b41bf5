package planner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// TaskConsumer is the durable consumer on ROTE_TASKS that every planner
// shares (bus.TaskConsumer).
const TaskConsumer = bus.TaskConsumer

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
	cfg   TaskConfig
	tasks *bus.TaskQueue
	c     *Controller
	log   *slog.Logger
	ready chan struct{}
}

// TaskConfig configures a TaskWorker.
type TaskConfig struct {
	// Resolve prepares each claimed task; required.
	Resolve ResolveTask
	// Done, when set, is told how each delivery ended (tests and metrics).
	Done func(TaskDone)
	// Log hears about each task claimed, done, handed back or rejected;
	// default slog.Default().
	Log *slog.Logger
	// Runs, when set, gets a task.rejected.v1 on rote.runs.<task_id>.rejected
	// for each task rejected whose id can be read, for its publisher.
	Runs *bus.RunLog
}

// TaskDone is what became of one delivery of a task.
type TaskDone struct {
	TaskID  string
	RunID   string
	Seq     uint64 // the task message's place in ROTE_TASKS
	MsgID   string // its Nats-Msg-Id, when the publisher set one
	Attempt int
	Outcome schema.Outcome // empty when no run finished
	Err     error          // why the delivery was handed back or terminated
	Retried bool
	// Rejected says the task cannot be done as asked, on any attempt: it
	// did not decode, could not be prepared, or its run refused it for a
	// reason another attempt would meet again (an invalid target, a
	// parameter the playbook does not take).
	Rejected bool
}

// NewTaskWorker returns a worker that claims tasks from tasks and does
// them through c.
func NewTaskWorker(cfg TaskConfig, tasks *bus.TaskQueue, c *Controller) (*TaskWorker, error) {
	if cfg.Resolve == nil {
		return nil, errors.New("planner: a task worker needs a resolver")
	}
	log := cmp.Or(cfg.Log, slog.Default()).With("component", "tasks")
	return &TaskWorker{cfg: cfg, tasks: tasks, c: c, log: log, ready: make(chan struct{})}, nil
}

// Ready is closed once the worker's consumer exists.
func (w *TaskWorker) Ready() <-chan struct{} { return w.ready }

// Run claims and does tasks, one at a time, until ctx ends.
func (w *TaskWorker) Run(ctx context.Context) error {
	err := w.tasks.Claim(ctx, bus.ClaimConfig{
		AckWait:    TaskAckWait,
		MaxDeliver: TaskDeliveries,
		Log:        w.log,
		Ready: func() {
			close(w.ready)
			w.log.Info("claiming tasks", "subject", schema.SubjectTasks, "consumer", TaskConsumer)
		},
		Undecodable: func(ctx context.Context, d bus.Delivery, err error) {
			w.report(ctx, TaskDone{TaskID: d.TaskID, Seq: d.Seq, MsgID: d.MsgID, Attempt: d.Attempt, Err: err, Rejected: true})
		},
	}, w.handle)
	if err != nil {
		return fmt.Errorf("planner: task consumer: %w", err)
	}
	return nil
}

// handle does one claimed task and decides what becomes of it.
func (w *TaskWorker) handle(ctx context.Context, req *schema.TaskRequested, d bus.Delivery) bus.Verdict {
	done := TaskDone{TaskID: req.TaskID, RunID: req.TaskID, Seq: d.Seq, MsgID: d.MsgID, Attempt: d.Attempt}
	if d.Attempt > 1 {
		done.RunID = req.TaskID + "-" + strconv.Itoa(d.Attempt)
	}
	t, chosen, err := w.cfg.Resolve(ctx, req)
	if err != nil && ctx.Err() != nil {
		// Shutting down mid-resolve: the task is not at fault.
		done.Err, done.Retried = ctx.Err(), true
		w.report(ctx, done)
		return bus.Retry(0)
	}
	if err != nil {
		done.Err, done.Rejected = err, true
		w.report(ctx, done)
		return bus.Reject(err)
	}
	w.log.Info("task claimed", "task", done.TaskID, "run", done.RunID, "attempt", done.Attempt, "seq", done.Seq)
	out, err := w.c.Run(ctx, t, chosen, Options{RunID: done.RunID}, nil)
	v := decide(ctx, &done, out, err)
	w.report(ctx, done)
	return v
}

// decide is the verdict on a delivery whose run ended with out or err,
// and records it in done: a task whose run cannot start for a reason
// every attempt would meet is rejected; one the machinery failed (the
// run could not start, or lost its browser) is handed back, up to
// TaskDeliveries; any other outcome is the task's, and acknowledged.
func decide(ctx context.Context, done *TaskDone, out *Outcome, err error) bus.Verdict {
	switch {
	case ctx.Err() != nil:
		// Shutting down: another planner takes it over at once.
		done.Err, done.Retried = ctx.Err(), true
		return bus.Retry(0)
	case err != nil && refused(err):
		done.Err, done.Rejected = err, true
		return bus.Reject(err)
	case err != nil:
		done.Err, done.Retried = err, done.Attempt < TaskDeliveries
		return bus.Retry(time.Second)
	case out.Outcome != schema.OutcomeSuccess && lostBrowser(out.Reason) && done.Attempt < TaskDeliveries:
		done.Outcome, done.Err, done.Retried = out.Outcome, out.Reason, true
		return bus.Retry(time.Second)
	}
	done.Outcome = out.Outcome
	if out.Reason != nil {
		done.Err = out.Reason
	}
	return bus.Ack()
}

// report logs how a delivery ended, tells Done, and publishes a
// rejection where the task's publisher waits for its run.
func (w *TaskWorker) report(ctx context.Context, d TaskDone) {
	attrs := []any{"task", d.TaskID, "run", d.RunID, "attempt", d.Attempt}
	if d.Rejected {
		// Where the message is, and what its publisher called it.
		attrs = append(attrs, "seq", d.Seq, "msg_id", d.MsgID)
	}
	if d.Rejected && d.TaskID != "" && w.cfg.Runs != nil {
		ev := &schema.TaskRejected{Meta: schema.Meta{ID: bus.NewID(), Time: time.Now()}, RunID: d.TaskID, TaskSeq: d.Seq, MsgID: d.MsgID, Reason: *schema.AsError(d.Err)}
		if _, err := w.cfg.Runs.Publish(ctx, ev); err != nil {
			w.log.Warn("the task's rejection could not be published", append(attrs, "err", err)...)
		}
	}
	switch {
	case d.Retried:
		w.log.Warn("task handed back for another attempt", append(attrs, "err", d.Err)...)
	case d.Rejected:
		w.log.Warn("task rejected", append(attrs, "err", d.Err)...)
	case d.Outcome == "":
		w.log.Warn("task given up: no run finished in any attempt", append(attrs, "err", d.Err)...)
	case d.Err != nil:
		w.log.Info("task done", append(attrs, "outcome", d.Outcome, "reason", d.Err)...)
	default:
		w.log.Info("task done", append(attrs, "outcome", d.Outcome)...)
	}
	if w.cfg.Done != nil {
		w.cfg.Done(d)
	}
}

// refused reports whether a run that could not start was refused for a
// reason another attempt would meet again: the task or its playbook is
// wrong, not the moment.
func refused(err error) bool {
	for _, e := range []error{schema.ErrInvalid, schema.ErrUnknownParam, schema.ErrMissingParam, schema.ErrParamType, schema.ErrFingerprint, schema.ErrUnbound} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// lostBrowser reports whether a run failed because the browser or the
// actuator under it went away: another attempt may find one.
func lostBrowser(reason *schema.Error) bool {
	return reason != nil && (errors.Is(reason, schema.ErrBrowserCrashed) || errors.Is(reason, schema.ErrNoSession) ||
		errors.Is(reason, schema.ErrUnavailable))
}
