package bus_test

import (
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/bus/bustest"
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
