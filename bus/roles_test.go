package bus_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
)

// TestRoleUsersHoldOnlyTheirRole: a process that joins a data directory
// as a role's user writes what its role writes and nothing else: the
// planner opens runs and writes the playbook store; perception can do
// neither, nor create, change or delete a stream; both read and check
// the log.
func TestRoleUsersHoldOnlyTheirRole(t *testing.T) {
	dir := t.TempDir()
	c := ctx(t)
	owner := openOwner(t, c, dir)
	join := func(role string) *bus.Bus {
		t.Helper()
		b, err := bus.Open(c, bus.Config{DataDir: dir, Role: role, PublishPatience: -1})
		if err != nil {
			t.Fatalf("role %s joins: %v", role, err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	short := func() context.Context {
		ctx, cancel := context.WithTimeout(c, 2*time.Second)
		t.Cleanup(cancel)
		return ctx
	}
	if _, err := bus.Open(c, bus.Config{DataDir: dir, Role: "admin"}); err == nil || !strings.Contains(err.Error(), "unknown role") {
		t.Fatalf("an unknown role: %v", err)
	}

	planner := join("planner")
	if _, err := planner.Runs().Publish(c, started("P")); err != nil {
		t.Fatalf("the planner opens a run: %v", err)
	}
	kv, err := planner.JetStream().KeyValue(c, bus.BucketPlaybooks)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(c, "fp.name", []byte("x")); err != nil {
		t.Fatalf("the planner writes the playbook store: %v", err)
	}
	// But it cannot erase the store with a rollup.
	rollup := nats.NewMsg("$KV." + bus.BucketPlaybooks + ".fp.other")
	rollup.Header.Set("Nats-Rollup", "all")
	if _, err := planner.JetStream().PublishMsg(short(), rollup); err == nil {
		t.Fatal("the planner rolled the playbook store up")
	}
	// A key that names no playbook, or a value that is none, hides no
	// other playbook.
	if _, err := kv.Put(c, "junk", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Playbooks().Put(c, playbook(t, strings.Repeat("a", 64), "file the report"), "import", ""); err != nil {
		t.Fatal(err)
	}
	if list, err := owner.Playbooks().List(c); err != nil || len(list) != 1 || list[0].Name != "file-report" {
		t.Fatalf("the store with junk in it: %+v (%v)", list, err)
	}

	// Site memory is the distiller's to write, and the planner's to read.
	distiller := join("distiller")
	dkv, err := distiller.JetStream().KeyValue(c, bus.BucketSites)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dkv.Put(c, "fp.fact.x", []byte("x")); err != nil {
		t.Fatalf("the distiller writes site memory: %v", err)
	}
	skv, err := planner.JetStream().KeyValue(c, bus.BucketSites)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := skv.Put(short(), "fp.fact.y", []byte("forged")); err == nil {
		t.Fatal("the planner wrote site memory")
	}
	if e, err := skv.Get(c, "fp.fact.x"); err != nil || string(e.Value()) != "x" {
		t.Fatalf("the planner reads site memory: %v", err)
	}
	// Through the store, which reads the bucket's stream: no watcher
	// whose consumer the gate would not let it delete.
	if m, err := planner.Sites().Site(c, strings.Repeat("c", 64)); err != nil || !m.Empty() {
		t.Fatalf("the planner reads a site's memory: %+v %v", m, err)
	}

	perception := join("perception")
	for _, b := range []*bus.Bus{owner, planner, perception} {
		if envs, skipped, err := b.Runs().ReadChecked(c, schema.RunFilter("P")); err != nil || len(envs) != 1 || len(skipped) != 0 {
			t.Fatalf("the planner's event: %d read, skipped %v (%v)", len(envs), skipped, err)
		}
	}
	if _, err := perception.Runs().Publish(short(), started("Q")); err == nil {
		t.Fatal("perception opened a run")
	}
	js := perception.JetStream()
	pkv, err := js.KeyValue(c, bus.BucketPlaybooks)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pkv.Put(short(), "fp.name", []byte("forged")); err == nil {
		t.Fatal("perception wrote the playbook store")
	}
	if _, err := js.CreateOrUpdateStream(short(), jetstream.StreamConfig{Name: "EVIL", Subjects: []string{"evil.>"}}); err == nil {
		t.Fatal("perception created a stream")
	}
	runs, err := js.Stream(c, bus.StreamRuns)
	if err != nil {
		t.Fatal(err)
	}
	cfg := runs.CachedInfo().Config
	cfg.MaxMsgs = 1
	if _, err := js.UpdateStream(short(), cfg); err == nil {
		t.Fatal("perception changed the run log's limits")
	}
	if err := js.DeleteStream(short(), bus.StreamRuns); err == nil {
		t.Fatal("perception deleted the run log")
	}
	// The planners' task queue is not perception's: no consumer of its
	// own on it, none deleted or paused.
	if _, err := js.CreateOrUpdateConsumer(short(), bus.StreamTasks, jetstream.ConsumerConfig{Durable: "evil"}); err == nil {
		t.Fatal("perception made a consumer on the task queue")
	}
	if err := js.DeleteConsumer(short(), bus.StreamTasks, "rote-planner"); err == nil || errors.Is(err, jetstream.ErrConsumerNotFound) {
		t.Fatalf("perception reached the planners' task consumer: %v", err)
	}
	// Another service's requests are not perception's to read (a match
	// request carries the task's text), nor Rote's replies the client's.
	sub, err := perception.Conn().SubscribeSync(schema.SubjectMatch)
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Conn().Publish(schema.SubjectMatch, []byte("a task's text")); err != nil {
		t.Fatal(err)
	}
	if m, err := sub.NextMsg(time.Second); err == nil {
		t.Fatalf("perception read a matcher request: %q", m.Data)
	}
	// A request whose reply is aimed at a stream's subject gets no reply:
	// the service would write it there as user rote.
	svc, err := owner.RPC().NewService("echo", "1.0.0", "answers")
	if err != nil {
		t.Fatal(err)
	}
	answered := make(chan struct{}, 2)
	err = bus.AddEndpoint(c, svc, "echo", "rote.matcher.echo", true, func(context.Context, *map[string]string) (*map[string]string, error) {
		answered <- struct{}{}
		return &map[string]string{"x": "y"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Conn().Flush(); err != nil { // the server knows the endpoint
		t.Fatal(err)
	}
	req := nats.NewMsg("rote.matcher.echo")
	req.Reply = schema.RunSubject("P", schema.KindFinished)
	req.Data = []byte{0x80} // an empty msgpack map
	if err := perception.Conn().PublishMsg(req); err != nil {
		t.Fatal(err)
	}
	var rep map[string]string
	if err := perception.RPC().Call(c, "rote.matcher.echo", map[string]string{}, &rep); err != nil || rep["x"] != "y" {
		t.Fatalf("a request with an inbox: %v %v", rep, err)
	}
	if len(answered) != 1 {
		t.Fatalf("the service answered %d requests, want the one with an inbox", len(answered))
	}
	if envs, skipped, err := owner.Runs().ReadChecked(c, schema.RunFilter("P")); err != nil || len(envs) != 1 || len(skipped) != 0 {
		t.Fatalf("run P after a reply aimed at it: %d events, skipped %v (%v)", len(envs), skipped, err)
	}
	if envs, err := owner.Runs().ReadRun(c, "Q"); err == nil || len(envs) != 0 {
		t.Fatalf("perception's run is in the log: %d", len(envs))
	}
	if e, err := kv.Get(c, "fp.name"); err != nil || string(e.Value()) != "x" {
		t.Fatalf("the playbook store changed: %v", err)
	}
}

// TestAnEventFromTheWrongRoleIsSkipped: on a NATS server that gives its
// users no permissions of their own, a role's process may publish any
// event, but readers (the authority and the role processes, which take
// the keys from the store) skip one whose kind its role does not write,
// and one signed with a key that is no role's.
func TestAnEventFromTheWrongRoleIsSkipped(t *testing.T) {
	c := ctx(t)
	srv := bustest.StartServer(t, t.TempDir(), 0)
	as := func(user, password string) (*bus.Bus, error) {
		u := strings.Replace(srv.ClientURL(), "nats://", "nats://"+user+":"+password+"@", 1)
		b, err := bus.Open(c, bus.Config{URL: u})
		if err == nil {
			t.Cleanup(func() { b.Close() })
		}
		return b, err
	}
	if _, err := as("perception", bus.RolePassword("pw", "perception")); err == nil || !strings.Contains(err.Error(), "user rote created") {
		t.Fatalf("a role process on a store nobody created: %v", err)
	}
	authority, err := as("rote", "pw")
	if err != nil {
		t.Fatal(err)
	}
	perception, err := as("perception", bus.RolePassword("pw", "perception"))
	if err != nil {
		t.Fatal(err)
	}
	// A role's process given another role's user is told so at once.
	u := strings.Replace(srv.ClientURL(), "nats://", "nats://perception:"+bus.RolePassword("pw", "perception")+"@", 1)
	if _, err := bus.Open(c, bus.Config{URL: u, Role: "actuator"}); err == nil || !strings.Contains(err.Error(), "joins as its own user") {
		t.Fatalf("the actuator as user perception: %v", err)
	}
	impostor, err := as("planner", "not-the-planners-password")
	if err != nil {
		t.Fatal(err)
	}
	// The gate refuses perception's run.started; a server that let it
	// publish the signed event itself, beside the gate, gets it stored,
	// and readers skip it.
	sent := make(chan *nats.Msg, 1)
	tap, err := authority.Conn().Subscribe(bus.APIPrefix("perception")+">", func(m *nats.Msg) { sent <- m })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := perception.Runs().Publish(c, started("W")); err == nil || !strings.Contains(err.Error(), "perception may not write") {
		t.Fatalf("the gate let perception write a run.started: %v", err)
	}
	tap.Unsubscribe()
	m := <-sent
	m.Subject, m.Reply = strings.TrimPrefix(m.Subject, bus.APIPrefix("perception")), ""
	if err := perception.Conn().PublishMsg(m); err != nil {
		t.Fatal(err)
	}
	perception.Conn().Flush()
	if _, err := impostor.Runs().Publish(c, started("X")); err != nil {
		t.Fatal(err)
	}
	if _, err := authority.Runs().Publish(c, started("Y")); err != nil {
		t.Fatal(err)
	}
	for _, b := range []*bus.Bus{authority, perception} {
		for run, why := range map[string]string{"W": "role that does not write", "X": "signature does not match", "Y": ""} {
			envs, skipped, err := b.Runs().ReadChecked(c, schema.RunFilter(run))
			if err != nil {
				t.Fatal(err)
			}
			if why == "" {
				if len(envs) != 1 || len(skipped) != 0 {
					t.Fatalf("run %s: %d read, skipped %v", run, len(envs), skipped)
				}
				continue
			}
			if len(envs) != 0 || len(skipped) != 1 || !strings.Contains(skipped[0].Err.Error(), why) {
				t.Fatalf("run %s: %d read, skipped %v; want skipped for %q", run, len(envs), skipped, why)
			}
		}
	}
}
