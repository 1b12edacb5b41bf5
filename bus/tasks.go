package bus

import (
	"context"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/schema"
)

// TaskQueue is ROTE_TASKS, the work queue of task requests on rote.tasks:
// any NATS client publishes to it, and planners claim from it (Claim)
// through one shared durable consumer, so each task goes to exactly one
// planner.
type TaskQueue struct {
	*publisher
}

// TaskConsumer is the durable consumer on ROTE_TASKS that every planner
// shares: the stream is a work queue, so each task goes to exactly one.
// It is the only consumer the gate lets a caller make there.
const TaskConsumer = "rote-planner"

// Publish writes a task request and waits for the server's
// acknowledgement, as RunLog.Publish does.
func (q *TaskQueue) Publish(ctx context.Context, t *schema.TaskRequested) (*jetstream.PubAck, error) {
	return q.publish(ctx, t)
}
