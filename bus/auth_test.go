package bus_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// TestEmbeddedServerAdmitsOnlyItsUsers: a connection without the data
// directory's password is refused; the client user may hand in tasks and
// read the run log, nothing else (a forged run event goes nowhere); Rote's own user cannot
// delete the run log; the passwords are readable by the owner only.
func TestEmbeddedServerAdmitsOnlyItsUsers(t *testing.T) {
	dir := t.TempDir()
	c := ctx(t)
	owner := openOwner(t, c, dir)
	url := owner.ClientURL()
	for _, opts := range [][]nats.Option{nil, {nats.UserInfo("rote", "guess")}, {nats.UserInfo("client", "")}, {nats.Token("x")}} {
		if conn, err := nats.Connect(url, opts...); err == nil {
			conn.Close()
			t.Fatalf("connected to the embedded server with %d option(s) and no password of its own", len(opts))
		} else if !strings.Contains(strings.ToLower(err.Error()), "authorization") {
			t.Fatalf("refused, but not for authorization: %v", err)
		}
	}
	for _, name := range []string{"bus.token", "client.token"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v (%v)", name, fi.Mode(), err)
		}
	}

	clientToken, err := bus.ReadToken(dir, "client")
	if err != nil {
		t.Fatal(err)
	}
	// Opened as Rote's bus, the client user is told it is the wrong user.
	u := strings.Replace(url, "nats://", "nats://client:"+clientToken+"@", 1)
	if b, err := bus.Open(c, bus.Config{URL: u}); err == nil || !strings.Contains(err.Error(), "may not set up Rote's streams") {
		if b != nil {
			b.Close()
		}
		t.Fatalf("the client user opening Rote's bus: %v", err)
	}
	conn, err := nats.Connect(url, nats.UserInfo("client", clientToken))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	js, err := jetstream.NewWithAPIPrefix(conn, bus.APIPrefix("client"))
	if err != nil {
		t.Fatal(err)
	}
	short := func() context.Context {
		ctx, cancel := context.WithTimeout(c, 2*time.Second)
		t.Cleanup(cancel)
		return ctx
	}
	if _, err := js.Publish(short(), schema.SubjectTasks, []byte("a task")); err != nil {
		t.Fatalf("the client hands in a task: %v", err)
	}
	forged, err := schema.Marshal(finished("RF"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(short(), schema.RunSubject("RF", schema.KindFinished), forged); err == nil {
		t.Fatal("the client published a run event")
	}
	if _, err := js.KeyValue(short(), "ROTE_PLAYBOOKS"); err == nil {
		t.Fatal("the client reached the playbook store")
	}
	if _, err := js.CreateOrUpdateStream(short(), jetstream.StreamConfig{Name: "EVIL", Subjects: []string{"evil.>"}}); err == nil {
		t.Fatal("the client created a stream")
	}
	// It reads the run log, to hear outcomes.
	if _, err := owner.Runs().Publish(c, started("RC")); err != nil {
		t.Fatal(err)
	}
	cons, err := js.OrderedConsumer(short(), "ROTE_RUNS", jetstream.OrderedConsumerConfig{FilterSubjects: []string{"rote.runs.RC.>"}})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := cons.Next(jetstream.FetchMaxWait(2 * time.Second)); err != nil || !strings.HasSuffix(m.Subject(), ".started") {
		t.Fatalf("the client cannot read the run log: %v", err)
	}
	if envs, err := owner.Runs().ReadRun(c, "RF"); !errors.Is(err, bus.ErrRunNotFound) || len(envs) != 0 {
		t.Fatalf("the forged event is in the log: %d (%v)", len(envs), err)
	}

	if err := owner.JetStream().DeleteStream(short(), "ROTE_RUNS"); err == nil || errors.Is(err, context.Canceled) {
		t.Fatalf("Rote's own user deleted the run log: %v", err)
	}
	if _, err := owner.JetStream().Stream(c, "ROTE_RUNS"); err != nil {
		t.Fatalf("the run log is gone: %v", err)
	}
}
