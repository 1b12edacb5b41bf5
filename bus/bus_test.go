package bus_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
)

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func started(runID string) *schema.RunStarted {
	return &schema.RunStarted{Meta: schema.Meta{ID: runID + "-start", Time: t0},
		RunSpec: schema.RunSpec{RunID: runID, Mode: schema.ModeRecord, Task: schema.TaskSpec{Name: "t"}}}
}

func call(runID string, seq uint64) *schema.ToolCall {
	result := []byte(fmt.Sprintf(`{"n":%d}`, seq))
	return &schema.ToolCall{Meta: schema.Meta{ID: fmt.Sprintf("%s-%d", runID, seq), Time: t0.Add(time.Duration(seq) * time.Millisecond)},
		RunID: runID, Seq: seq, Tool: "echo", Arguments: []byte(`{}`), ArgumentsDigest: schema.Digest([]byte(`{}`)), ArgumentsSize: 2, Result: result, ResultDigest: schema.Digest(result), ResultSize: len(result), Duration: time.Millisecond}
}

func finished(runID string) *schema.RunFinished {
	return &schema.RunFinished{Meta: schema.Meta{ID: runID + "-finish", Time: t0.Add(time.Second)},
		Manifest: schema.Manifest{RunSpec: started(runID).RunSpec, Outcome: schema.OutcomeSuccess, Started: t0, Finished: t0.Add(time.Second)}}
}

func TestTopology(t *testing.T) {
	b := bustest.Start(t)
	c := ctx(t)
	runs, err := b.JetStream().Stream(c, bus.StreamRuns)
	if err != nil {
		t.Fatal(err)
	}
	cfg := runs.CachedInfo().Config
	if !cfg.DenyDelete || !cfg.DenyPurge {
		t.Fatalf("ROTE_RUNS DenyDelete=%v DenyPurge=%v, want both", cfg.DenyDelete, cfg.DenyPurge)
	}
	if cfg.Duplicates != bus.DedupWindow || cfg.Storage != jetstream.FileStorage || !slices.Equal(cfg.Subjects, []string{"rote.runs.>"}) {
		t.Fatalf("ROTE_RUNS config %+v", cfg)
	}
	tasks, err := b.JetStream().Stream(c, bus.StreamTasks)
	if err != nil {
		t.Fatal(err)
	}
	if tc := tasks.CachedInfo().Config; tc.Retention != jetstream.WorkQueuePolicy || !slices.Equal(tc.Subjects, []string{"rote.tasks"}) || tc.Storage != jetstream.FileStorage {
		t.Fatalf("ROTE_TASKS config %+v", tc)
	}
	kv, err := b.JetStream().KeyValue(c, bus.BucketPlaybooks)
	if err != nil {
		t.Fatal(err)
	}
	kvStatus, err := kv.Status(c)
	if err != nil {
		t.Fatal(err)
	}
	if kvStatus.History() != 64 || kvStatus.Bucket() != "ROTE_PLAYBOOKS" {
		t.Fatalf("ROTE_PLAYBOOKS history %d bucket %s, want 64", kvStatus.History(), kvStatus.Bucket())
	}
	obj, err := b.JetStream().ObjectStore(c, bus.BucketBlobs)
	if err != nil {
		t.Fatal(err)
	}
	objStatus, err := obj.Status(c)
	if err != nil {
		t.Fatal(err)
	}
	if objStatus.Bucket() != "ROTE_BLOBS" || objStatus.Storage() != jetstream.FileStorage {
		t.Fatalf("ROTE_BLOBS status %+v", objStatus)
	}

	// The run log refuses deletion and purging for real, not just on paper.
	if _, err := b.Runs().Publish(c, started("R1")); err != nil {
		t.Fatal(err)
	}
	// Refused by the stream's flags, and before that by the embedded
	// server's permissions (a refused request goes unanswered).
	short := func() context.Context {
		ctx, cancel := context.WithTimeout(c, 2*time.Second)
		t.Cleanup(cancel)
		return ctx
	}
	if err := runs.DeleteMsg(short(), 1); err == nil {
		t.Fatal("ROTE_RUNS allowed a message delete")
	}
	if err := runs.Purge(short()); err == nil {
		t.Fatal("ROTE_RUNS allowed a purge")
	}
	if err := b.JetStream().DeleteStream(short(), "ROTE_RUNS"); err == nil {
		t.Fatal("ROTE_RUNS was deleted")
	}
	if envs, err := b.Runs().ReadRun(c, "R1"); err != nil || len(envs) != 1 {
		t.Fatalf("event gone after refused delete/purge: %v %d", err, len(envs))
	}
}

// TestConformance runs one suite against the embedded server and against
// an external one reached by URL: both must behave the same.
func TestConformance(t *testing.T) {
	backends := map[string]func(t *testing.T) *bus.Bus{
		"embedded": func(t *testing.T) *bus.Bus { return bustest.Start(t) },
		"external": func(t *testing.T) *bus.Bus {
			b, err := bus.Open(ctx(t), bus.Config{URL: bustest.StartServer(t, t.TempDir(), 0).ClientURL()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return b
		},
	}
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			t.Run("ordered read-back", func(t *testing.T) { testOrderedReadBack(t, open(t)) })
			t.Run("dedup by event id", func(t *testing.T) { testDedup(t, open(t)) })
			t.Run("invalid events never land", func(t *testing.T) { testInvalid(t, open(t)) })
			t.Run("async publish", func(t *testing.T) { testAsync(t, open(t)) })
			t.Run("blobs by digest", func(t *testing.T) { testBlobs(t, open(t)) })
			t.Run("playbook history", func(t *testing.T) { testHistory(t, open(t)) })
		})
	}
}

func testOrderedReadBack(t *testing.T, b *bus.Bus) {
	c := ctx(t)
	want := []schema.Event{started("RA"), call("RA", 1), call("RA", 2), call("RA", 3), finished("RA")}
	for i, ev := range want {
		if _, err := b.Runs().Publish(c, ev); err != nil {
			t.Fatal(err)
		}
		if i == 1 { // interleave another run
			if _, err := b.Runs().Publish(c, started("RB")); err != nil {
				t.Fatal(err)
			}
		}
	}
	envs, err := b.Runs().ReadRun(c, "RA")
	if err != nil {
		t.Fatal(err)
	}
	if len(envs) != len(want) {
		t.Fatalf("read %d events, want %d", len(envs), len(want))
	}
	for i, env := range envs {
		if env.Event.EventID() != want[i].EventID() || env.Subject != want[i].Subject() {
			t.Errorf("event %d: %s on %s, want %s on %s", i, env.Event.EventID(), env.Subject, want[i].EventID(), want[i].Subject())
		}
		if i > 0 && env.Seq <= envs[i-1].Seq {
			t.Errorf("stream sequence not increasing at %d", i)
		}
	}
	if got := envs[2].Event.(*schema.ToolCall); got.Seq != 2 || string(got.Result) != `{"n":2}` {
		t.Errorf("tool call decoded as %+v", got)
	}
	// One kind across runs.
	startedEnvs, err := b.Runs().Read(c, schema.RunKindFilter(schema.KindStarted))
	if err != nil || len(startedEnvs) != 2 {
		t.Fatalf("started across runs: %d, %v", len(startedEnvs), err)
	}
	if _, err := b.Runs().ReadRun(c, "NOPE"); !errors.Is(err, bus.ErrRunNotFound) {
		t.Fatalf("missing run: %v", err)
	}
	if _, err := b.Runs().ReadRun(c, "bad.id"); !errors.Is(err, schema.ErrInvalid) {
		t.Fatalf("bad run id: %v", err)
	}
}

func testDedup(t *testing.T, b *bus.Bus) {
	c := ctx(t)
	ev := call("RD", 1)
	first, err := b.Runs().Publish(c, ev)
	if err != nil || first.Duplicate {
		t.Fatalf("first publish: %+v %v", first, err)
	}
	second, err := b.Runs().Publish(c, ev)
	if err != nil || !second.Duplicate || second.Sequence != first.Sequence {
		t.Fatalf("retried publish was stored again: %+v %v", second, err)
	}
	envs, err := b.Runs().ReadRun(c, "RD")
	if err != nil || len(envs) != 1 {
		t.Fatalf("want 1 stored event, got %d (%v)", len(envs), err)
	}
}

func testInvalid(t *testing.T, b *bus.Bus) {
	c := ctx(t)
	bad := call("RI", 1)
	bad.Seq = 0
	if _, err := b.Runs().Publish(c, bad); !errors.Is(err, schema.ErrInvalid) {
		t.Fatalf("invalid event published: %v", err)
	}
	huge := &schema.BrowserObserved{Meta: schema.Meta{ID: "big", Time: t0}, RunID: "RI", Seq: 1, Kind: schema.ObservationFull,
		Render: strings.Repeat("x", int(b.Conn().MaxPayload())+1)}
	if _, err := b.Runs().Publish(c, huge); !errors.Is(err, bus.ErrTooLarge) {
		t.Fatalf("oversize event: %v", err)
	}
	// A foreign message without the type header, or of 18 junk bytes, is
	// skipped on read: it breaks no other run (and, for its own, the
	// fold lists it for an audit to report).
	if _, err := b.JetStream().Publish(c, "rote.runs.RI.calls", []byte("hello")); err != nil {
		t.Fatal(err)
	}
	junk := nats.NewMsg("rote.runs.RI.started")
	junk.Data = []byte("\xc1 eighteen bytes!")
	junk.Header.Set("Rote-Event-Type", "run.started.v1")
	if _, err := b.JetStream().PublishMsg(c, junk); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Runs().Publish(c, started("RI")); err != nil {
		t.Fatal(err)
	}
	envs, skipped, err := b.Runs().ReadChecked(c, schema.RunFilter("RI"))
	if err != nil || len(envs) != 1 || len(skipped) != 2 || !errors.Is(skipped[1].Err, schema.ErrInvalid) || skipped[1].Seq == 0 {
		t.Fatalf("read %d events and %+v (%v)", len(envs), skipped, err)
	}
	f, err := b.Runs().Fold(c, "RI")
	if err != nil || len(f.Undecodable) != 2 || !strings.Contains(f.Undecodable[1], "rote.runs.RI.started seq") {
		t.Fatalf("fold: %v (%v)", f.Undecodable, err)
	}
	if a := schema.AuditRun(f, nil); a.Agrees {
		t.Fatal("an audit agrees with a run that has junk in its log")
	}
	// A second run.finished (a forged success after the first) is named.
	for _, id := range []string{"RI-finish", "RI-forged"} {
		fin := finished("RI")
		fin.ID = id
		if _, err := b.Runs().Publish(c, fin); err != nil {
			t.Fatal(err)
		}
	}
	if f, err = b.Runs().Fold(c, "RI"); err != nil {
		t.Fatal(err)
	}
	if a := schema.AuditRun(f, nil); a.Agrees || !strings.Contains(strings.Join(a.Mismatches, "\n"), "2 run.finished events") {
		t.Fatalf("two finishes: %v", a.Mismatches)
	}
}

func testAsync(t *testing.T, b *bus.Bus) {
	c := ctx(t)
	const n = 500
	futures := make([]jetstream.PubAckFuture, 0, n)
	for i := 1; i <= n; i++ {
		f, err := b.Runs().PublishAsync(call("RS", uint64(i)))
		if err != nil {
			t.Fatal(err)
		}
		futures = append(futures, f)
	}
	select {
	case <-b.Runs().PublishAsyncComplete():
	case <-c.Done():
		t.Fatal("async publishes did not complete")
	}
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			t.Fatal(err)
		}
	}
	envs, err := b.Runs().ReadRun(c, "RS")
	if err != nil || len(envs) != n {
		t.Fatalf("read %d of %d (%v)", len(envs), n, err)
	}
	for i, env := range envs {
		if env.Event.(*schema.ToolCall).Seq != uint64(i+1) {
			t.Fatalf("async events out of order at %d", i)
		}
	}
}

func testBlobs(t *testing.T, b *bus.Bus) {
	c := ctx(t)
	payload := bytes.Repeat([]byte("0123456789abcdef"), 10<<10) // 160 KiB
	digest := schema.Digest(payload)
	if err := b.Runs().PutBlob(c, schema.Blob{Digest: digest, Data: payload}); err != nil {
		t.Fatal(err)
	}
	got, err := b.Runs().Blob(c, digest)
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("blob round trip: %v", err)
	}
}

func testHistory(t *testing.T, b *bus.Bus) {
	c := ctx(t)
	key := strings.Repeat("a", 64) + ".register-vendor"
	kv, err := b.JetStream().KeyValue(c, bus.BucketPlaybooks)
	if err != nil {
		t.Fatal(err)
	}
	for v := 1; v <= 70; v++ {
		if _, err := kv.Put(c, key, []byte(fmt.Sprintf("version %d", v))); err != nil {
			t.Fatal(err)
		}
	}
	hist, err := kv.History(c, key)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 64 || string(hist[0].Value()) != "version 7" || string(hist[63].Value()) != "version 70" {
		t.Fatalf("history holds %d versions from %q to %q, want 64 from version 7", len(hist), hist[0].Value(), hist[len(hist)-1].Value())
	}
}

func TestStorePersistsAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	c := ctx(t)
	b, err := bus.Open(c, bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []schema.Event{started("RP"), call("RP", 1), finished("RP")} {
		if _, err := b.Runs().Publish(c, ev); err != nil {
			t.Fatal(err)
		}
	}
	b.Close()
	b, err = bus.Open(c, bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	envs, err := b.Runs().ReadRun(c, "RP")
	if err != nil || len(envs) != 3 {
		t.Fatalf("after restart: %d events, %v", len(envs), err)
	}
}

// openOwner opens the first bus on data directory dir, which runs its
// embedded server, and closes it when the test ends.
func openOwner(t *testing.T, c context.Context, dir string) *bus.Bus {
	t.Helper()
	owner, err := bus.Open(c, bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { owner.Close() })
	return owner
}

func TestSecondProcessAttachesToOwner(t *testing.T) {
	dir := t.TempDir()
	c := ctx(t)
	owner := openOwner(t, c, dir)
	if owner.Server() == nil {
		t.Fatal("first open of a data directory must run the server")
	}
	guest, err := bus.Open(c, bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer guest.Close()
	if guest.Server() != nil {
		t.Fatal("second open of a locked data directory started its own server")
	}
	if _, err := owner.Runs().Publish(c, started("RG")); err != nil {
		t.Fatal(err)
	}
	if envs, err := guest.Runs().ReadRun(c, "RG"); err != nil || len(envs) != 1 {
		t.Fatalf("guest read %d events, %v", len(envs), err)
	}
	if guest.ClientURL() != owner.ClientURL() {
		t.Fatalf("guest at %s, owner at %s", guest.ClientURL(), owner.ClientURL())
	}
	// A process that asks to listen would only join the owner's server:
	// it is refused rather than left listening nowhere.
	if b, err := bus.Open(c, bus.Config{DataDir: dir, Listen: "127.0.0.1:0"}); !errors.Is(err, bus.ErrDataDirBusy) || !strings.Contains(err.Error(), "cannot listen on 127.0.0.1:0") {
		if b != nil {
			b.Close()
		}
		t.Fatalf("a second process asking to listen: %v", err)
	}
}

func TestUnreachableServer(t *testing.T) {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := bus.Open(c, bus.Config{URL: "nats://127.0.0.1:1"})
	if !errors.Is(err, bus.ErrUnreachable) {
		t.Fatalf("dead NATS: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %v to notice a dead server", time.Since(start))
	}
}

func TestPublishFailsWhenTheServerDies(t *testing.T) {
	srv := bustest.StartServer(t, t.TempDir(), 0)
	b, err := bus.Open(ctx(t), bus.Config{URL: srv.ClientURL()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	srv.Shutdown()
	srv.WaitForShutdown()
	c, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := b.Runs().Publish(c, started("RX")); err == nil {
		t.Fatal("publish with the server down reported success")
	}
}

func TestNewID(t *testing.T) {
	seen := map[string]bool{}
	prev := bus.NewID()
	for i := 0; i < 10000; i++ {
		id := bus.NewID()
		if len(id) != 26 || schema.ValidateRunID(id) != nil {
			t.Fatalf("id %q is not a 26-character run id", id)
		}
		if seen[id] {
			t.Fatalf("duplicate id %s", id)
		}
		seen[id] = true
	}
	time.Sleep(2 * time.Millisecond)
	if next := bus.NewID(); next <= prev {
		t.Fatalf("ids do not sort by time: %s then %s", prev, next)
	}
}
