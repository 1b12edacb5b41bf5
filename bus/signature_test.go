package bus_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
)

// TestForgedEventsAreSkipped: on a bus whose events are signed, an event
// published by a client without the key (unsigned, signed with another
// key, or a signed event copied into another run) is skipped by readers
// and named by an audit, while the signed events of the same run and the
// unsigned events written before the store was signed stay readable.
func TestForgedEventsAreSkipped(t *testing.T) {
	c := ctx(t)
	srv := bustest.StartServer(t, t.TempDir(), 0)
	open := func(key string) *bus.Bus {
		t.Helper()
		b, err := bus.Open(c, bus.Config{URL: srv.ClientURL(), SigningKey: []byte(key)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}

	// A store used before its events were signed.
	legacy := open("")
	if legacy.Runs().Signed() {
		t.Fatal("a bus without a key or a rote password signs")
	}
	if _, err := legacy.Runs().Publish(c, started("OLD")); err != nil {
		t.Fatal(err)
	}
	rote := open("the run log's signing key")
	if !rote.Runs().Signed() {
		t.Fatal("a bus given a key does not sign")
	}
	// A client without the key opening the store later keeps the mark.
	intruder := open("")
	other := open("another process's own key")

	for _, ev := range []schema.Event{started("R"), call("R", 1), finished("R"), started("S"), finished("S")} {
		if _, err := rote.Runs().Publish(c, ev); err != nil {
			t.Fatal(err)
		}
	}
	forged := finished("R")
	forged.ID = "R-forged"
	if _, err := intruder.Runs().Publish(c, forged); err != nil {
		t.Fatal(err)
	}
	otherKey := call("R", 2)
	if _, err := other.Runs().Publish(c, otherKey); err != nil {
		t.Fatal(err)
	}
	// S's signed run.finished, copied with its headers into run R.
	envs, err := rote.Runs().ReadRun(c, "S")
	if err != nil || len(envs) != 2 {
		t.Fatalf("run S: %d events (%v)", len(envs), err)
	}
	stream, err := rote.JetStream().Stream(c, bus.StreamRuns)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := stream.GetMsg(c, envs[1].Seq)
	if err != nil {
		t.Fatal(err)
	}
	copied := nats.NewMsg(schema.RunSubject("R", schema.KindFinished))
	copied.Header, copied.Data = nats.Header(msg.Header), msg.Data
	copied.Header.Set(nats.MsgIdHdr, "copied")
	if _, err := rote.JetStream().PublishMsg(c, copied); err != nil {
		t.Fatal(err)
	}

	envs, skipped, err := rote.Runs().ReadChecked(c, schema.RunFilter("R"))
	if err != nil {
		t.Fatal(err)
	}
	if len(envs) != 3 || len(skipped) != 3 {
		t.Fatalf("read %d events and skipped %d, want the 3 signed and the 3 forged", len(envs), len(skipped))
	}
	// The copy is refused before its signature is read: its payload names
	// another run than its subject.
	reasons := []string{"unsigned event", "signature does not match", "stored on rote.runs.R.finished"}
	for i, s := range skipped {
		if !errors.Is(s.Err, schema.ErrInvalid) || !strings.Contains(s.Err.Error(), reasons[i]) {
			t.Errorf("skipped %d (%s): %v, want %q", i, s.Subject, s.Err, reasons[i])
		}
	}
	f, err := rote.Runs().Fold(c, "R")
	if err != nil {
		t.Fatal(err)
	}
	if f.Finishes != 1 || len(f.Calls) != 1 {
		t.Fatalf("the fold counts %d finishes and %d calls: forged events got in", f.Finishes, len(f.Calls))
	}
	if a := schema.AuditRun(f, nil); a.Agrees || strings.Count(strings.Join(a.Mismatches, "\n"), "no valid, signed event") != 3 {
		t.Fatalf("audit of a run with 3 forged events: %v", a.Mismatches)
	}
	if _, err := rote.Runs().ReadRun(c, "OLD"); err != nil {
		t.Fatalf("an event written before the store was signed: %v", err)
	}
	// A message published first under the id of an event to come does not
	// make the stream drop the real event as its duplicate.
	for _, id := range []string{"T-finish", "T-finish." + strings.Repeat("0", 16)} {
		squat := nats.NewMsg(schema.RunSubject("T", schema.KindFinished))
		squat.Data = []byte("x")
		squat.Header.Set(nats.MsgIdHdr, id)
		if _, err := intruder.JetStream().PublishMsg(c, squat); err != nil {
			t.Fatal(err)
		}
	}
	for _, ev := range []schema.Event{started("T"), finished("T")} {
		if ack, err := rote.Runs().Publish(c, ev); err != nil || ack.Duplicate {
			t.Fatalf("%s after a squatter took its id: %+v %v", ev.EventType(), ack, err)
		}
	}
	if f, err := rote.Runs().Fold(c, "T"); err != nil || f.Finished == nil {
		t.Fatalf("run T lost its run.finished to a squatter: %v", err)
	}
	// The keyless client reads everything but the copy, checking no
	// signature.
	if envs, skipped, err := intruder.Runs().ReadChecked(c, schema.RunFilter("R")); err != nil || len(envs) != 5 || len(skipped) != 1 {
		t.Fatalf("a reader without the key: %d events, %d skipped (%v)", len(envs), len(skipped), err)
	}
}

// TestEmbeddedBusSigns: the processes of one data directory sign with a
// key derived from its password, one that joins with the password in its
// URL derives the same key, and one given a key of its own uses the
// store's.
func TestEmbeddedBusSigns(t *testing.T) {
	dir := t.TempDir()
	c := ctx(t)
	owner := openOwner(t, c, dir)
	if !owner.Runs().Signed() {
		t.Fatal("the embedded bus does not sign")
	}
	u, err := url.Parse(owner.JoinURL())
	if err != nil {
		t.Fatal(err)
	}
	joined, err := bus.Open(c, bus.Config{URL: u.String()})
	if err != nil {
		t.Fatal(err)
	}
	defer joined.Close()
	if _, err := joined.Runs().Publish(c, started("J")); err != nil {
		t.Fatal(err)
	}
	if envs, skipped, err := owner.Runs().ReadChecked(c, schema.RunFilter("J")); err != nil || len(envs) != 1 || len(skipped) != 0 {
		t.Fatalf("the owner reads a joined process's event: %d, skipped %v (%v)", len(envs), skipped, err)
	}
	if _, err := bus.Open(c, bus.Config{URL: u.String(), SigningKey: []byte("short")}); err == nil {
		t.Fatal("a 5-byte signing key was taken")
	}
	// A process given a key of its own ($ROTE_SIGNING_KEY) on the same
	// store still signs and reads as the store's other processes do.
	keyed, err := bus.Open(c, bus.Config{DataDir: dir, SigningKey: []byte("a key from this process's environment")})
	if err != nil {
		t.Fatal(err)
	}
	defer keyed.Close()
	if _, err := keyed.Runs().Publish(c, started("K")); err != nil {
		t.Fatal(err)
	}
	for _, b := range []*bus.Bus{owner, keyed} {
		for _, run := range []string{"J", "K"} {
			if envs, skipped, err := b.Runs().ReadChecked(c, schema.RunFilter(run)); err != nil || len(envs) != 1 || len(skipped) != 0 {
				t.Fatalf("run %s: %d events, skipped %v (%v)", run, len(envs), skipped, err)
			}
		}
	}
}
