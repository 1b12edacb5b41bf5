package bus_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
)

// handed is one task a handler was given.
type handed struct {
	req      *schema.TaskRequested
	d        bus.Delivery
	began    time.Time
	returned time.Time
}

// claimant is a handler that records what it is handed and answers with
// decide, and the claims it runs.
type claimant struct {
	decide func(ctx context.Context, req *schema.TaskRequested, d bus.Delivery) bus.Verdict
	mu     sync.Mutex
	got    []handed
	each   chan handed // one send per task handed, once decided
}

func newClaimant(decide func(ctx context.Context, req *schema.TaskRequested, d bus.Delivery) bus.Verdict) *claimant {
	return &claimant{decide: decide, each: make(chan handed, 100)}
}

func (c *claimant) handle(ctx context.Context, req *schema.TaskRequested, d bus.Delivery) bus.Verdict {
	h := handed{req: req, d: d, began: time.Now()}
	v := c.decide(ctx, req, d)
	h.returned = time.Now()
	c.mu.Lock()
	c.got = append(c.got, h)
	c.mu.Unlock()
	c.each <- h
	return v
}

func (c *claimant) handed() []handed {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]handed(nil), c.got...)
}

// next waits for the next task the claimant is handed.
func (c *claimant) next(t *testing.T) handed {
	t.Helper()
	select {
	case h := <-c.each:
		return h
	case <-time.After(30 * time.Second):
		t.Fatal("no task was handed to the handler within 30s")
		return handed{}
	}
}

// claim runs Claim on b in the background until the test ends and
// returns once its consumer exists; stop ends it and returns what Claim
// returned.
func claim(t *testing.T, b *bus.Bus, cfg bus.ClaimConfig, handle bus.TaskHandler) (stop func() error) {
	t.Helper()
	c, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	cfg.Ready = func() { close(ready) }
	returned := make(chan error, 1)
	go func() { returned <- b.Tasks().Claim(c, cfg, handle) }()
	select {
	case <-ready:
	case err := <-returned:
		cancel()
		t.Fatalf("Claim returned before its consumer existed: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("Claim's consumer did not exist within 30s")
	}
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-returned:
			case <-time.After(30 * time.Second):
				err = errors.New("Claim did not return within 30s of its context's end")
			}
		})
		return err
	}
	t.Cleanup(func() { stop() })
	return stop
}

func task(id string) *schema.TaskRequested {
	return &schema.TaskRequested{Meta: schema.Meta{ID: "req-" + id, Time: t0}, TaskID: id, Task: schema.TaskSpec{Text: "do " + id}}
}

// publishTask publishes a task request and returns its place in the queue.
func publishTask(t *testing.T, b *bus.Bus, req *schema.TaskRequested) uint64 {
	t.Helper()
	ack, err := b.Tasks().Publish(ctx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	return ack.Sequence
}

// advisory is the part of a JetStream consumer advisory the tests read.
type advisory struct {
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries uint64 `json:"deliveries"`
	Reason     string `json:"reason"`
}

// advisories subscribes to the server's advisories of kind
// (MSG_TERMINATED, MAX_DELIVERIES) about the planners' task consumer.
func advisories(t *testing.T, b *bus.Bus, kind string) *nats.Subscription {
	t.Helper()
	sub, err := b.Conn().SubscribeSync("$JS.EVENT.ADVISORY.CONSUMER." + kind + "." + bus.StreamTasks + "." + bus.TaskConsumer)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Conn().Flush(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sub.Unsubscribe() })
	return sub
}

func nextAdvisory(t *testing.T, sub *nats.Subscription) advisory {
	t.Helper()
	msg, err := sub.NextMsg(30 * time.Second)
	if err != nil {
		t.Fatalf("no advisory on %s: %v", sub.Subject, err)
	}
	var a advisory
	if err := json.Unmarshal(msg.Data, &a); err != nil {
		t.Fatalf("advisory %s: %v", msg.Data, err)
	}
	return a
}

// noAdvisory fails the test if sub holds an advisory.
func noAdvisory(t *testing.T, b *bus.Bus, sub *nats.Subscription) {
	t.Helper()
	if err := b.Conn().Flush(); err != nil {
		t.Fatal(err)
	}
	if msg, err := sub.NextMsg(100 * time.Millisecond); err == nil {
		t.Fatalf("unexpected advisory on %s: %s", msg.Subject, msg.Data)
	}
}

// queueEmpties waits until ROTE_TASKS holds no message and its consumer
// none pending or unacknowledged.
func queueEmpties(t *testing.T, b *bus.Bus) {
	t.Helper()
	c := ctx(t)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		s, err := b.JetStream().Stream(c, bus.StreamTasks)
		if err != nil {
			t.Fatal(err)
		}
		cons, err := b.JetStream().Consumer(c, bus.StreamTasks, bus.TaskConsumer)
		if err != nil {
			t.Fatal(err)
		}
		ci := cons.CachedInfo()
		if s.CachedInfo().State.Msgs == 0 && ci.NumPending == 0 && ci.NumAckPending == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the task queue holds %d messages, its consumer %d pending and %d unacknowledged",
				s.CachedInfo().State.Msgs, ci.NumPending, ci.NumAckPending)
		}
	}
}

func TestClaimAckRemovesTheTask(t *testing.T) {
	t.Parallel()
	b := bustest.Start(t)
	terminated := advisories(t, b, "MSG_TERMINATED")
	c := newClaimant(func(context.Context, *schema.TaskRequested, bus.Delivery) bus.Verdict { return bus.Ack() })
	claim(t, b, bus.ClaimConfig{MaxDeliver: 3}, c.handle)
	seq := publishTask(t, b, task("T1"))
	h := c.next(t)
	if h.req.TaskID != "T1" || h.d.TaskID != "T1" || h.d.Seq != seq || h.d.Attempt != 1 || !strings.HasPrefix(h.d.MsgID, "req-T1") {
		t.Fatalf("handed %+v with %+v, want T1 at seq %d, attempt 1, its publisher's message id", h.req, h.d, seq)
	}
	queueEmpties(t, b)
	noAdvisory(t, b, terminated)
	if n := len(c.handed()); n != 1 {
		t.Fatalf("an acknowledged task was handed %d times", n)
	}
}

func TestClaimRetryRedeliversAfterTheDelay(t *testing.T) {
	t.Parallel()
	b := bustest.Start(t)
	const delay = 300 * time.Millisecond
	c := newClaimant(func(_ context.Context, _ *schema.TaskRequested, d bus.Delivery) bus.Verdict {
		if d.Attempt < 3 {
			return bus.Retry(delay)
		}
		return bus.Ack()
	})
	claim(t, b, bus.ClaimConfig{MaxDeliver: 3}, c.handle)
	seq := publishTask(t, b, task("T1"))
	var prev handed
	for attempt := 1; attempt <= 3; attempt++ {
		h := c.next(t)
		if h.req.TaskID != "T1" || h.d.Seq != seq || h.d.Attempt != attempt {
			t.Fatalf("delivery %d: %+v", attempt, h.d)
		}
		if attempt > 1 && h.began.Sub(prev.returned) < delay {
			t.Fatalf("delivery %d came %s after the retry, before its delay of %s", attempt, h.began.Sub(prev.returned), delay)
		}
		prev = h
	}
	queueEmpties(t, b)
}

func TestClaimGivesUpAfterMaxDeliver(t *testing.T) {
	t.Parallel()
	b := bustest.Start(t)
	exhausted := advisories(t, b, "MAX_DELIVERIES")
	c := newClaimant(func(context.Context, *schema.TaskRequested, bus.Delivery) bus.Verdict {
		return bus.Retry(50 * time.Millisecond)
	})
	claim(t, b, bus.ClaimConfig{MaxDeliver: 2}, c.handle)
	seq := publishTask(t, b, task("T1"))
	if a := nextAdvisory(t, exhausted); a.StreamSeq != seq || a.Deliveries != 2 {
		t.Fatalf("max deliveries advisory %+v, want seq %d after 2 deliveries", a, seq)
	}
	got := c.handed()
	if len(got) != 2 || got[0].d.Attempt != 1 || got[1].d.Attempt != 2 {
		t.Fatalf("a task with at most 2 deliveries was handed %d times: %+v", len(got), got)
	}
}

func TestClaimRejectTerminates(t *testing.T) {
	t.Parallel()
	b := bustest.Start(t)
	terminated := advisories(t, b, "MSG_TERMINATED")
	c := newClaimant(func(_ context.Context, req *schema.TaskRequested, _ bus.Delivery) bus.Verdict {
		if req.TaskID == "bad" {
			return bus.Reject(errors.New("no such suite task"))
		}
		return bus.Ack()
	})
	// With a short ack wait, a task not terminated would soon come back.
	claim(t, b, bus.ClaimConfig{AckWait: 300 * time.Millisecond, MaxDeliver: 3}, c.handle)
	seq := publishTask(t, b, task("bad"))
	if a := nextAdvisory(t, terminated); a.StreamSeq != seq || a.Deliveries != 1 || a.Reason != "no such suite task" {
		t.Fatalf("termination advisory %+v, want seq %d on its first delivery, with the reason", a, seq)
	}
	queueEmpties(t, b)
	time.Sleep(time.Second) // three ack waits
	publishTask(t, b, task("good"))
	queueEmpties(t, b)
	got := c.handed()
	if len(got) != 2 || got[0].req.TaskID != "bad" || got[1].req.TaskID != "good" {
		t.Fatalf("handed %d tasks, want the rejected one once, then the next", len(got))
	}
}

func TestClaimTerminatesUndecodableMessages(t *testing.T) {
	t.Parallel()
	b := bustest.Start(t)
	c := ctx(t)
	terminated := advisories(t, b, "MSG_TERMINATED")
	type undecodable struct {
		d   bus.Delivery
		err error
	}
	bad := make(chan undecodable, 10)
	h := newClaimant(func(context.Context, *schema.TaskRequested, bus.Delivery) bus.Verdict { return bus.Ack() })
	claim(t, b, bus.ClaimConfig{MaxDeliver: 3, Undecodable: func(_ context.Context, d bus.Delivery, err error) {
		bad <- undecodable{d, err}
	}}, h.handle)

	junk, err := b.JetStream().Publish(c, schema.SubjectTasks, []byte("\xc1 no msgpack"))
	if err != nil {
		t.Fatal(err)
	}
	// A well-formed task under another event's type is no task request.
	data, err := schema.Marshal(task("T-typed"))
	if err != nil {
		t.Fatal(err)
	}
	msg := nats.NewMsg(schema.SubjectTasks)
	msg.Data = data
	msg.Header.Set(bus.HeaderEventType, schema.TypeRunStarted)
	typed, err := b.JetStream().PublishMsg(c, msg)
	if err != nil {
		t.Fatal(err)
	}
	good := publishTask(t, b, task("T-good"))

	for _, want := range []struct {
		seq    uint64
		taskID string
	}{{junk.Sequence, ""}, {typed.Sequence, "T-typed"}} {
		var u undecodable
		select {
		case u = <-bad:
		case <-time.After(30 * time.Second):
			t.Fatalf("message %d was not reported undecodable", want.seq)
		}
		if u.d.Seq != want.seq || u.d.TaskID != want.taskID || u.d.Attempt != 1 || !errors.Is(u.err, schema.ErrInvalid) {
			t.Fatalf("undecodable %+v (%v), want seq %d, task %q, attempt 1, an invalid error", u.d, u.err, want.seq, want.taskID)
		}
		if a := nextAdvisory(t, terminated); a.StreamSeq != want.seq || a.Reason != u.err.Error() {
			t.Fatalf("termination advisory %+v, want seq %d with reason %q", a, want.seq, u.err)
		}
	}
	if got := h.next(t); got.d.Seq != good || got.req.TaskID != "T-good" {
		t.Fatalf("the handler was handed %+v, want only the task at seq %d", got.d, good)
	}
	queueEmpties(t, b)
	if n := len(h.handed()); n != 1 {
		t.Fatalf("the handler was handed %d messages, want only the one task", n)
	}
}

func TestClaimKeepsALongTaskClaimed(t *testing.T) {
	t.Parallel()
	b := bustest.Start(t)
	const ackWait = time.Second
	c := newClaimant(func(_ context.Context, _ *schema.TaskRequested, d bus.Delivery) bus.Verdict {
		if d.Attempt == 1 {
			time.Sleep(3 * ackWait)
		}
		return bus.Ack()
	})
	// Two claimants, as two planners: a task whose claim lapsed would go
	// to the idle one while the first still works on it.
	cfg := bus.ClaimConfig{AckWait: ackWait, MaxDeliver: 3}
	claim(t, b, cfg, c.handle)
	claim(t, b, cfg, c.handle)
	seq := publishTask(t, b, task("T-long"))
	if h := c.next(t); h.d.Seq != seq || h.d.Attempt != 1 || h.returned.Sub(h.began) < 3*ackWait {
		t.Fatalf("first handed %+v after %s", h.d, h.returned.Sub(h.began))
	}
	queueEmpties(t, b)
	cons, err := b.JetStream().Consumer(ctx(t), bus.StreamTasks, bus.TaskConsumer)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.handed(); len(got) != 1 || cons.CachedInfo().NumRedelivered != 0 {
		t.Fatalf("a task worked on past its ack wait was handed %d times, redelivered %d", len(got), cons.CachedInfo().NumRedelivered)
	}
}

func TestClaimStopsWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	b := bustest.Start(t)
	idle := claim(t, b, bus.ClaimConfig{}, func(context.Context, *schema.TaskRequested, bus.Delivery) bus.Verdict { return bus.Ack() })
	if err := idle(); err != nil {
		t.Fatalf("an idle Claim whose context ended returned %v", err)
	}

	// A task in hand when ctx ends is handed back at once, as the handler
	// decides.
	started := make(chan struct{})
	busy := newClaimant(func(ctx context.Context, _ *schema.TaskRequested, _ bus.Delivery) bus.Verdict {
		close(started)
		<-ctx.Done()
		return bus.Retry(0)
	})
	stop := claim(t, b, bus.ClaimConfig{MaxDeliver: 3}, busy.handle)
	seq := publishTask(t, b, task("T1"))
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the task was not handed out")
	}
	if err := stop(); err != nil {
		t.Fatalf("Claim stopped with a task in hand returned %v", err)
	}
	if n := len(busy.handed()); n != 1 {
		t.Fatalf("the handler returned %d times", n)
	}
	next := newClaimant(func(context.Context, *schema.TaskRequested, bus.Delivery) bus.Verdict { return bus.Ack() })
	stop = claim(t, b, bus.ClaimConfig{MaxDeliver: 3}, next.handle)
	if h := next.next(t); h.d.Seq != seq || h.d.Attempt != 2 {
		t.Fatalf("after the handback, handed %+v, want seq %d on its second delivery", h.d, seq)
	}
	queueEmpties(t, b)
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	// An Ack decided as ctx ends still reaches the server.
	started = make(chan struct{})
	late := newClaimant(func(ctx context.Context, _ *schema.TaskRequested, _ bus.Delivery) bus.Verdict {
		close(started)
		<-ctx.Done()
		return bus.Ack()
	})
	stop = claim(t, b, bus.ClaimConfig{MaxDeliver: 3}, late.handle)
	publishTask(t, b, task("T2"))
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the task was not handed out")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	queueEmpties(t, b)
}

func TestClaimNeedsAHandler(t *testing.T) {
	t.Parallel()
	b := bustest.Start(t)
	if err := b.Tasks().Claim(ctx(t), bus.ClaimConfig{}, nil); !errors.Is(err, bus.ErrNoTaskHandler) {
		t.Fatalf("Claim without a handler: %v", err)
	}
}

func TestVerdictString(t *testing.T) {
	for _, c := range []struct {
		v    bus.Verdict
		want string
	}{
		{bus.Ack(), "ack"},
		{bus.Verdict{}, "ack"},
		{bus.Retry(time.Second), "retry after 1s"},
		{bus.Retry(-time.Second), "retry after 0s"},
		{bus.Reject(nil), "reject"},
		{bus.Reject(errors.New("no such suite task")), "reject: no such suite task"},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("%#v: %q, want %q", c.v, got, c.want)
		}
	}
}
