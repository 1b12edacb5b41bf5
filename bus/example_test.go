package bus_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// Open starts an embedded NATS server over a data directory (or connects
// to a cluster with Config.URL) and hands out one client per role: here
// the run log, written and read back.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "rote-example-")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	b, err := bus.Open(ctx, bus.Config{DataDir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	publishTwice(ctx, b)
	f, err := b.Runs().Fold(ctx, "R1")
	fmt.Println(f.Events, f.Manifest().Outcome, err)
	// Output:
	// false <nil>
	// true <nil>
	// 1 running <nil>
}

// publishTwice publishes one run.started event twice.
func publishTwice(ctx context.Context, b *bus.Bus) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	spec := schema.RunSpec{RunID: "R1", Mode: schema.ModeRecord, Task: schema.TaskSpec{Name: "triage"}}
	started := &schema.RunStarted{Meta: schema.Meta{ID: "R1-started", Time: t0}, RunSpec: spec}
	for range 2 { // the event id makes the second publish a duplicate
		ack, err := b.Runs().Publish(ctx, started)
		fmt.Println(ack.Duplicate, err)
	}
}

// The playbook store keeps every version of a playbook under its
// fingerprint and name; a rollback is a new version too.
func ExamplePlaybookStore() {
	dir, _ := os.MkdirTemp("", "rote-example-")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	b, _ := bus.Open(ctx, bus.Config{DataDir: dir})
	defer b.Close()
	p, _ := schema.DecodePlaybook([]byte("name: open-home\nintent: open the home page\nsteps:\n  - {id: open, kind: deterministic, tool: navigate, args: {url: /}}\nverify: [{url_contains: /}]\n"))
	store := b.Playbooks()
	for _, origin := range []string{"import", "patch"} {
		e, _ := store.Put(ctx, p, origin, "")
		fmt.Println(e.Name, e.Fingerprint, e.Stored.Version, e.Stored.Origin)
	}
	e, _ := store.Rollback(ctx, bus.Unbound, "open-home", 1)
	fmt.Println(e.Stored.Version, e.Stored.Origin, e.Stored.Note)
	// Output:
	// open-home unbound 1 import
	// open-home unbound 2 patch
	// 3 rollback rollback to version 1
}

// A planner claims tasks with a plain function that says what becomes of
// each: Ack, Retry after a delay, or Reject. Here the first delivery is
// handed back and the second acknowledged.
func ExampleTaskQueue_Claim() {
	dir, _ := os.MkdirTemp("", "rote-example-")
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, _ := bus.Open(ctx, bus.Config{DataDir: dir})
	defer b.Close()
	req := &schema.TaskRequested{Meta: schema.Meta{ID: "req-T1", Time: time.Now()}, TaskID: "T1", Task: schema.TaskSpec{Text: "download the latest report"}}
	if _, err := b.Tasks().Publish(ctx, req); err != nil {
		fmt.Println(err)
		return
	}
	err := b.Tasks().Claim(ctx, bus.ClaimConfig{MaxDeliver: 3}, func(ctx context.Context, req *schema.TaskRequested, d bus.Delivery) bus.Verdict {
		v := bus.Ack()
		if d.Attempt == 1 {
			v = bus.Retry(0)
		} else {
			cancel() // one task is all this example claims
		}
		fmt.Println(req.TaskID, "attempt", d.Attempt, v)
		return v
	})
	fmt.Println("claim ended:", err)
	// Output:
	// T1 attempt 1 retry after 0s
	// T1 attempt 2 ack
	// claim ended: <nil>
}
