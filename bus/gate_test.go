package bus_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/bus"
)

// TestNoUserButRoteCopiesTheLog: the client and every role, each as its
// own NATS user, try what copied the run log into the task queue: a push
// consumer delivering to rote.tasks (and to another user's inbox, and the
// playbook store), and a JetStream call whose reply is aimed at a stream
// (rote.tasks, a playbook's key). Called directly, $JS.API refuses them
// all (permissions); through the gate, each is refused with an error
// that says why. Nothing lands in the task queue or the playbook store,
// and each may still read the log with a consumer of its own.
func TestNoUserButRoteCopiesTheLog(t *testing.T) {
	dir := t.TempDir()
	c := ctx(t)
	owner := openOwner(t, c, dir)
	if _, err := owner.Runs().Publish(c, started("COPY")); err != nil {
		t.Fatal(err)
	}
	count := func(stream string) uint64 {
		t.Helper()
		s, err := owner.JetStream().Stream(c, stream)
		if err != nil {
			t.Fatal(err)
		}
		return s.CachedInfo().State.Msgs
	}
	tasks, playbooks := count(bus.StreamTasks), count("KV_"+bus.BucketPlaybooks)
	for _, user := range append([]string{"client"}, bus.Roles()...) {
		password, err := bus.ReadToken(dir, user)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := nats.Connect(owner.ClientURL(), nats.UserInfo(user, password), nats.CustomInboxPrefix(inbox(user)))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		short := func() context.Context {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			t.Cleanup(cancel)
			return ctx
		}
		// A call the server's permissions refuse is only answered by a
		// timeout.
		refused := func() context.Context {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			t.Cleanup(cancel)
			return ctx
		}
		gated, err := jetstream.NewWithAPIPrefix(conn, bus.APIPrefix(user))
		if err != nil {
			t.Fatal(err)
		}
		direct, err := jetstream.New(conn)
		if err != nil {
			t.Fatal(err)
		}
		for _, deliver := range []string{"rote.tasks", "$KV.ROTE_PLAYBOOKS.fp.copied", "_ROTE_INBOX.planner.stolen", "_INBOX.x"} {
			if strings.HasPrefix(deliver, inbox(user)+".") {
				continue // its own inbox
			}
			cfg := jetstream.ConsumerConfig{Name: "copier", DeliverSubject: deliver, AckPolicy: jetstream.AckNonePolicy}
			_, err := gated.CreateConsumer(short(), bus.StreamRuns, cfg)
			var api *jetstream.APIError
			if !errors.As(err, &api) || !strings.Contains(api.Description, "delivers only to its caller's own inbox") {
				t.Errorf("%s: a push consumer delivering to %s through the gate: %v", user, deliver, err)
			}
			if _, err := direct.CreateConsumer(refused(), bus.StreamRuns, cfg); err == nil {
				t.Errorf("%s: a push consumer delivering to %s, called directly", user, deliver)
			}
		}
		// Bodies the gate would read one way and the server another: the
		// server matches keys whatever their case, and the last of two
		// wins.
		for _, body := range []string{
			`{"stream_name":"ROTE_RUNS","config":{"name":"x1","deliver_subject":"rote.tasks","ack_policy":"none"},"Config":{"name":"x1"}}`,
			`{"stream_name":"ROTE_RUNS","Config":{"name":"x1"},"config":{"name":"x1","deliver_subject":"rote.tasks","ack_policy":"none"}}`,
			`{"stream_name":"ROTE_RUNS","config":{"name":"x1"},"config":{"name":"x1","deliver_subject":"rote.tasks","ack_policy":"none"}}`,
			`{"stream_name":"ROTE_RUNS","config":{"name":"x1","ack_policy":"none","Inactive_Threshold":31536000000000000}}`,
			`{"stream_name":"ROTE_RUNS","config":{"name":"x1","ack_policy":"none","inactive_threſhold":31536000000000000}}`,
			`{"stream_name":"ROTE_RUNS","config":{"name":"x1","durable_name":"x1"},"Action":"update"}`,
		} {
			m, err := conn.Request(bus.APIPrefix(user)+"CONSUMER.CREATE.ROTE_RUNS.x1", []byte(body), 2*time.Second)
			if err != nil || !strings.Contains(string(m.Data), "does not forward") {
				t.Errorf("%s: %s through the gate: %v %s", user, body, err, m.Data)
			}
		}
		// Replies aimed at a stream.
		for _, reply := range []string{"rote.tasks", "$KV.ROTE_PLAYBOOKS.fp.name"} {
			if err := conn.PublishRequest(bus.APIPrefix(user)+"INFO", reply, nil); err != nil {
				t.Fatal(err)
			}
			conn.PublishRequest("$JS.API.INFO", reply, nil) // refused by the server's permissions
			conn.PublishRequest(bus.APIPrefix(user)+"STREAM.INFO.ROTE_RUNS", reply, nil)
		}
		// A durable consumer on the log, or one on the task queue, is no
		// caller's (the planner's own on the task queue aside).
		if _, err := gated.CreateOrUpdateConsumer(short(), bus.StreamRuns, jetstream.ConsumerConfig{Durable: "kept"}); err == nil {
			t.Errorf("%s: a durable consumer on the run log", user)
		}
		// Its own reading goes on.
		cons, err := gated.OrderedConsumer(short(), bus.StreamRuns, jetstream.OrderedConsumerConfig{FilterSubjects: []string{"rote.runs.COPY.>"}})
		if err != nil {
			t.Fatalf("%s: its own consumer: %v", user, err)
		}
		if m, err := cons.Next(jetstream.FetchMaxWait(2 * time.Second)); err != nil || !strings.HasSuffix(m.Subject(), ".started") {
			t.Fatalf("%s cannot read the run log: %v", user, err)
		}
		conn.Flush()
	}
	time.Sleep(300 * time.Millisecond) // for anything aimed at a stream to land
	if got := count(bus.StreamTasks); got != tasks {
		t.Errorf("the task queue went from %d to %d messages", tasks, got)
	}
	if got := count("KV_" + bus.BucketPlaybooks); got != playbooks {
		t.Errorf("the playbook store went from %d to %d messages", playbooks, got)
	}
	if s, err := owner.JetStream().Stream(c, bus.StreamRuns); err == nil {
		for name := range s.ListConsumers(c).Info() {
			if name.Config.DeliverSubject != "" && !strings.HasPrefix(name.Config.DeliverSubject, "_") {
				t.Errorf("a consumer on the run log delivers to %s", name.Config.DeliverSubject)
			}
			if name.Config.InactiveThreshold > 5*time.Minute {
				t.Errorf("a consumer on the run log kept %s idle", name.Config.InactiveThreshold)
			}
		}
	}
}

// inbox is where user's replies come: roles' in their own inbox.
func inbox(user string) string {
	if user == "client" {
		return "_INBOX"
	}
	return "_ROTE_INBOX." + user
}

// TestCallersCannotCrowdOutTheOwner: a stream holds at most 1000
// consumers, and a trial had the client make them all, idle for an hour,
// so that the owner's own reads failed until a restart. Through the gate
// a consumer goes idle-deleted within five minutes; once the stream is
// crowded a caller holds at most 100; only its maker deletes one; and
// the task queue has the planners' consumer alone. The owner reads on.
func TestCallersCannotCrowdOutTheOwner(t *testing.T) {
	dir := t.TempDir()
	c := ctx(t)
	owner := openOwner(t, c, dir)
	if _, err := owner.Runs().Publish(c, started("CROWD")); err != nil {
		t.Fatal(err)
	}
	gated := func(user string) jetstream.JetStream {
		t.Helper()
		password, err := bus.ReadToken(dir, user)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := nats.Connect(owner.ClientURL(), nats.UserInfo(user, password), nats.CustomInboxPrefix(inbox(user)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(conn.Close)
		js, err := jetstream.NewWithAPIPrefix(conn, bus.APIPrefix(user))
		if err != nil {
			t.Fatal(err)
		}
		return js
	}
	client, planner := gated("client"), gated("planner")
	refusedSaying := func(err error, says string) bool {
		var api *jetstream.APIError
		return errors.As(err, &api) && strings.Contains(api.Description, says)
	}

	if _, err := client.CreateConsumer(c, bus.StreamRuns, jetstream.ConsumerConfig{Name: "kept", InactiveThreshold: time.Hour}); !refusedSaying(err, "at most 5m0s") {
		t.Errorf("a consumer idle for an hour: %v", err)
	}
	made := 0
	for ; made < 400; made++ {
		_, err := client.CreateConsumer(c, bus.StreamRuns, jetstream.ConsumerConfig{Name: fmt.Sprintf("flood-%d", made), InactiveThreshold: 5 * time.Minute})
		if err != nil {
			if !refusedSaying(err, "the most one user may while it is crowded") {
				t.Fatalf("consumer %d: %v", made, err)
			}
			break
		}
	}
	if made != 200 { // uncounted until the stream is crowded (200), and by then past 100
		t.Errorf("the client made %d consumers before it was refused, want 200", made)
	}
	// Another caller still gets one, and the owner reads.
	if _, err := planner.CreateConsumer(c, bus.StreamRuns, jetstream.ConsumerConfig{Name: "planner-own", InactiveThreshold: time.Minute}); err != nil {
		t.Fatalf("the planner on a crowded stream: %v", err)
	}
	if envs, err := owner.Runs().Read(c, "rote.runs.CROWD.>"); err != nil || len(envs) != 1 {
		t.Fatalf("the owner's read: %d events, %v", len(envs), err)
	}
	// Only a consumer's maker deletes it.
	if err := planner.DeleteConsumer(c, bus.StreamRuns, "flood-0"); !refusedSaying(err, "is not planner's to delete") {
		t.Errorf("the planner deleted the client's consumer: %v", err)
	}
	if err := client.DeleteConsumer(c, bus.StreamRuns, "flood-0"); err != nil {
		t.Errorf("the client deleting its own consumer: %v", err)
	}
	// The task queue: the planners' consumer, and no other.
	if _, err := planner.CreateOrUpdateConsumer(c, bus.StreamTasks, jetstream.ConsumerConfig{Durable: "second", AckPolicy: jetstream.AckExplicitPolicy}); !refusedSaying(err, "only the planners' own") {
		t.Errorf("a second consumer on the task queue: %v", err)
	}
	if _, err := planner.CreateOrUpdateConsumer(c, bus.StreamTasks, jetstream.ConsumerConfig{Durable: bus.TaskConsumer, AckPolicy: jetstream.AckExplicitPolicy}); err != nil {
		t.Errorf("the planners' own consumer: %v", err)
	}
}
