package bus_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
)

// BenchmarkAppendRuns measures appending tool-call events to ROTE_RUNS on
// the embedded file store: sync waits for each acknowledgement, async
// pipelines them and waits once at the end.
func BenchmarkAppendRuns(b *testing.B) {
	b.Run("sync", func(b *testing.B) {
		bs := bustest.Start(b)
		c := ctx(b)
		b.ReportAllocs()
		i := uint64(0)
		for b.Loop() {
			i++
			if _, err := bs.Runs().Publish(c, call("BSYNC", i)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("async", func(b *testing.B) {
		bs := bustest.Start(b)
		b.ReportAllocs()
		futures := make([]jetstream.PubAckFuture, 0, b.N)
		b.ResetTimer()
		// A counted loop, not b.Loop: the wait for the last
		// acknowledgement below must be inside the timing.
		for i := 1; i <= b.N; i++ {
			f, err := bs.Runs().PublishAsync(call("BASYNC", uint64(i)))
			if err != nil {
				b.Fatal(err)
			}
			futures = append(futures, f)
		}
		<-bs.Runs().PublishAsyncComplete()
		for _, f := range futures {
			select {
			case <-f.Ok():
			case err := <-f.Err():
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	})
}

// BenchmarkBrowserStepOnTheBus measures what the bus adds to one step of
// an in-process browser replay, with no browser: the replay's act request
// to the actuator holding the session and its reply (msgpack both ways,
// the session's liveness watch), the actuator recording the action event
// on ROTE_RUNS before it answers, and the replay recording the step's
// expect.checked event, all on the embedded server. Its µs/step is the
// bus's share of the "record" column of `rote runs show`.
func BenchmarkBrowserStepOnTheBus(b *testing.B) {
	bs := bustest.Start(b)
	c := ctx(b)
	var seq uint64
	fakeActuator(b, bs, func(ctx context.Context, r *schema.ActRequest) (*schema.ActReply, error) {
		seq++
		ev := schema.BrowserAction{Meta: schema.Meta{ID: fmt.Sprintf("%s-b%d", r.RunID, seq), Time: time.Now()},
			RunID: r.RunID, StepID: r.StepID, Seq: seq, Action: r.Action, Duration: time.Millisecond}
		if _, err := bs.Runs().Publish(ctx, &ev); err != nil {
			return nil, err
		}
		return &schema.ActReply{Event: ev}, nil
	})
	s, err := bs.Browsers().Open(c, "RSTEP")
	if err != nil {
		b.Fatal(err)
	}
	target := &schema.Target{ID: "e12", Role: "textbox", Name: "Company name", Contract: &schema.Contract{Tag: "input", InputType: "text"}}
	i := 0
	for b.Loop() {
		i++
		step := fmt.Sprintf("fill-%d", i)
		if _, err := s.Act(c, step, schema.Action{Kind: schema.ActFill, Target: target, Value: "Initech Holdings"}); err != nil {
			b.Fatal(err)
		}
		check := &schema.ExpectChecked{Meta: schema.Meta{ID: fmt.Sprintf("RSTEP-e%d", i), Time: time.Now()}, RunID: "RSTEP", StepID: step,
			Attempt: 1, Check: schema.Check{Expect: schema.Expect{Op: "input_value", Arg: `textbox "Company name"`, Value: schema.RawJSON(`"Initech Holdings"`)}, Passed: true}}
		if _, err := bs.Runs().Publish(c, check); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/step")
}
