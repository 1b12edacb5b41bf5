package bus_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// TestAFloodIsBounded: a role that publishes large events as fast as it
// can fills the run log up to its max_bytes and is then refused with
// ErrStoreFull, which says what to do; no event stored before is
// dropped, and one over MaxEventBytes is refused outright.
func TestAFloodIsBounded(t *testing.T) {
	dir := t.TempDir()
	c := ctx(t)
	owner, err := bus.Open(c, bus.Config{DataDir: dir, RunsMaxBytes: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	flooder, err := bus.Open(c, bus.Config{DataDir: dir, Role: "perception", PublishPatience: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer flooder.Close()
	stored := 0
	var refusal error
	for i := range 40 {
		ev := &schema.BrowserObserved{Meta: schema.Meta{ID: fmt.Sprintf("junk-%d", i), Time: t0}, RunID: "FLOOD", Seq: uint64(i + 1),
			Kind: schema.ObservationFull, Render: strings.Repeat("x", 900<<10)}
		if _, err := flooder.Runs().Publish(c, ev); err != nil {
			refusal = err
			break
		}
		stored++
	}
	if !errors.Is(refusal, bus.ErrStoreFull) || !strings.Contains(refusal.Error(), "raises the limit") {
		t.Fatalf("after %d events of 900 KiB: %v, want %v", stored, refusal, bus.ErrStoreFull)
	}
	if stored == 0 || stored > 5 {
		t.Fatalf("%d events of 900 KiB were stored in a log of 4 MiB", stored)
	}
	envs, err := owner.Runs().ReadRun(c, "FLOOD")
	if err != nil || len(envs) != stored {
		t.Fatalf("the log holds %d of the %d events it took (%v)", len(envs), stored, err)
	}
	s, err := owner.JetStream().Stream(c, bus.StreamRuns)
	if err != nil {
		t.Fatal(err)
	}
	if cfg := s.CachedInfo().Config; cfg.MaxMsgSize != bus.MaxEventBytes || cfg.Discard != jetstream.DiscardNew {
		t.Fatalf("ROTE_RUNS: max_msg_size %d, discard %v", cfg.MaxMsgSize, cfg.Discard)
	}
}

// TestAChangedLogIsRefusedAtStart: an owner-level change to ROTE_RUNS
// made outside Rote (a max_msgs of 5 that discards old events, which
// drops all but the last five; a per-subject limit, which deletes inside
// the log) is found by the next
// start, which refuses the store and says what changed, until an owner
// accepts the log as it is; then Rote's limits are back.
func TestAChangedLogIsRefusedAtStart(t *testing.T) {
	dir := t.TempDir()
	c := ctx(t)
	b, err := bus.Open(c, bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, err := b.Runs().Publish(c, call("TAMPER", uint64(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	s, err := b.JetStream().Stream(c, bus.StreamRuns)
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.CachedInfo().Config
	// With discard new a lower limit only refuses new events: the owner
	// turns it to old, which drops the oldest to fit.
	cfg.MaxMsgs, cfg.Discard = 5, jetstream.DiscardOld
	if _, err := b.JetStream().UpdateStream(c, cfg); err != nil {
		t.Fatal(err)
	}
	b.Close()

	_, err = bus.Open(c, bus.Config{DataDir: dir})
	if !errors.Is(err, bus.ErrLogTampered) || !strings.Contains(err.Error(), "max_msgs=5") || !strings.Contains(err.Error(), "events 1 to 15 are gone") {
		t.Fatalf("a log cut to 5 events: %v", err)
	}
	b, err = bus.Open(c, bus.Config{DataDir: dir, AcceptLogChanges: true})
	if err != nil {
		t.Fatalf("accepting the log: %v", err)
	}
	s, err = b.JetStream().Stream(c, bus.StreamRuns)
	if err != nil {
		t.Fatal(err)
	}
	if cfg := s.CachedInfo().Config; cfg.MaxMsgs != -1 {
		t.Fatalf("after accepting, max_msgs %d", cfg.MaxMsgs)
	}
	// A per-subject limit that discards old events deletes inside the
	// log. (Lifting deny_delete itself the server refuses.)
	for i := range 3 {
		if _, err := b.Runs().Publish(c, call("OTHER", uint64(i+1))); err != nil {
			t.Fatal(err)
		}
	}
	cfg = s.CachedInfo().Config
	cfg.MaxMsgsPerSubject, cfg.Discard = 1, jetstream.DiscardOld
	if _, err := b.JetStream().UpdateStream(c, cfg); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if _, err = bus.Open(c, bus.Config{DataDir: dir}); !errors.Is(err, bus.ErrLogTampered) || !strings.Contains(err.Error(), "max_msgs_per_subject=1") || !strings.Contains(err.Error(), "2 events inside it were deleted") {
		t.Fatalf("a log with a deleted event: %v", err)
	}
	b, err = bus.Open(c, bus.Config{DataDir: dir, AcceptLogChanges: true})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	b, err = bus.Open(c, bus.Config{DataDir: dir})
	if err != nil {
		t.Fatalf("a start after the owner accepted: %v", err)
	}
	b.Close()
}
