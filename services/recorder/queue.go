package recorder

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/rote-agent/rote/schema"
)

// observation is one forwarded line, handed from forward to the recorder,
// or secrets to redact from the lines after it.
type observation struct {
	dir     schema.Direction
	line    []byte // nil when the line was too long to keep
	size    int
	digest  string // set when line is nil
	at      time.Time
	secrets []string     // set for secrets an offered tool was given
	offered *offeredCall // set for a call an offered tool answered
}

// offeredCall is a client's call that an offered tool answered.
type offeredCall struct {
	tool      string
	requestID json.RawMessage
	took      time.Duration
	result    json.RawMessage
}

// queue is an unbounded FIFO between forwarding and recording: forward
// never waits for the recorder, however slow the bus is.
type queue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []observation
	closed bool
}

func newQueue() *queue {
	q := &queue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// push appends o; it never blocks on the consumer.
func (q *queue) push(o observation) {
	q.mu.Lock()
	q.items = append(q.items, o)
	q.mu.Unlock()
	q.cond.Signal()
}

// close marks the end: pop drains what is left, then reports false.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// pop returns the oldest observation, waiting for one; false once the
// queue is closed and empty.
func (q *queue) pop() (observation, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.items) == 0 {
		return observation{}, false
	}
	o := q.items[0]
	q.items[0] = observation{}
	q.items = q.items[1:]
	return o, true
}
