package e2e

import (
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/portal"
	"github.com/rote-agent/rote/schema"
)

// roleProcess is one `rote serve --role ROLE` process of a test.
type roleProcess struct {
	role string
	http string // host:port of its /healthz, /readyz and /metrics
	addr string // host:port of the NATS server it hosts (--listen), if any
	out  *lockedBuffer
	cmd  *exec.Cmd
}

// serveRole starts `rote serve --role role` with args and env, and waits
// until its /readyz answers 200. It is stopped when the test ends.
func serveRole(t testing.TB, role string, env []string, args ...string) *roleProcess {
	t.Helper()
	p := &roleProcess{role: role, http: freeAddr(t), out: &lockedBuffer{}}
	cmd := exec.Command(roteBinary, append([]string{"serve", "--role", role, "--http", p.http}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.cmd = cmd
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			t.Fatalf("rote serve --role %s exited (%v):\n%s", role, err, p.out)
		default:
		}
		if code, _ := httpGet(p.http, "/readyz"); code == http.StatusOK {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("rote serve --role %s not ready after 60s:\n%s", role, p.out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func httpGet(addr, path string) (int, string) {
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// hostBus starts the matcher role on an embedded NATS server that
// listens on a free address, and returns it with the URL, holding the
// password from its data directory, that other roles join it by.
func hostBus(t testing.TB) (*roleProcess, string) {
	p, dir := hostBusIn(t)
	return p, busURL(t, p, dir, "rote")
}

// hostBusIn is hostBus, with the server's data directory.
func hostBusIn(t testing.TB) (*roleProcess, string) {
	addr, dir := freeAddr(t), t.TempDir()
	p := serveRole(t, "matcher", nil, "--listen", addr, "--data", dir)
	p.addr = addr
	return p, dir
}

// busURL is the URL of p's server with the password of user (rote,
// client or a role) from its data directory dir.
func busURL(t testing.TB, p *roleProcess, dir, user string) string {
	token, err := bus.ReadToken(dir, user)
	if err != nil {
		t.Fatal(err)
	}
	return "nats://" + user + ":" + token + "@" + p.addr
}

// metric reads one sample of a Prometheus text exposition; 0 when absent.
func metric(t *testing.T, p *roleProcess, sample string) float64 {
	t.Helper()
	code, body := httpGet(p.http, "/metrics")
	if code != http.StatusOK {
		t.Fatalf("%s /metrics: %d %s", p.role, code, body)
	}
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(sample) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestServeRolesOverExternalNATS runs every role as its own process
// against one NATS server (the matcher's process's, on a fixed address):
// an actuator with perception on the same host, a matcher and two
// planners.
// A plain NATS client (no Rote types: a msgpack map) publishes four B1
// tasks on rote.tasks, one malformed message and one task for a suite task
// that does not exist. Each real task is claimed by exactly one planner,
// its run (named by its task id) verifies and the portal counts one
// download per task; the bad messages start no run and stop nothing.
// Every role answers /healthz, /readyz and /metrics, the planners' task
// counters add up to what was published, and rote audit agrees with each
// run's manifest.
func TestServeRolesOverExternalNATS(t *testing.T) {
	t.Parallel()
	// The planners share the deployment's key and the task secret's value.
	secret := []string{"ROTE_SECRET_PASSWORD=" + portal.Password, "ROTE_SECRET_KEY=00112233445566778899aabbccddeeff"}
	// The matcher's process hosts the NATS server the others join.
	matcher, dir := hostBusIn(t)
	url := busURL(t, matcher, dir, "rote")
	// Every other role joins as its own user, with its role's permissions.
	as := func(role string) string { return busURL(t, matcher, dir, role) }
	roles := []*roleProcess{matcher}
	// The actuator launches its own browser, over a pipe, and shares it
	// with the perception process only through its relay.
	actuator := serveRole(t, "actuator", []string{"ROTE_BROWSER="}, "--nats", as("actuator"))
	roles = append(roles, actuator, serveRole(t, "perception", nil, "--nats", as("perception")))
	planners := []*roleProcess{serveRole(t, "planner", secret, "--nats", as("planner")), serveRole(t, "planner", secret, "--nats", as("planner"))}
	roles = append(roles, planners...)
	for _, p := range roles {
		if code, body := httpGet(p.http, "/healthz"); code != http.StatusOK {
			t.Fatalf("%s /healthz: %d %s", p.role, code, body)
		}
	}
	if out := planners[0].out.String(); !strings.Contains(out, "scripted model (offline)") || !strings.Contains(out, "claims tasks on rote.tasks") {
		t.Fatalf("the planner does not say which model answers and what it claims:\n%s", out)
	}

	base, site := portalSite(t, "")
	// With the client user's password: it may hand in tasks, nothing else.
	nc, err := nats.Connect(busURL(t, matcher, dir, "client"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := nc.JetStream()
	if err != nil {
		t.Fatal(err)
	}
	publish := func(id string, body []byte) {
		t.Helper()
		m := nats.NewMsg(schema.SubjectTasks)
		m.Data = body
		m.Header.Set(nats.MsgIdHdr, id)
		if _, err := js.PublishMsg(m); err != nil {
			t.Fatal(err)
		}
	}
	task := func(taskID, suiteID, target string) []byte {
		data, err := msgpack.Marshal(map[string]any{"id": "req-" + taskID, "time": time.Now().UTC(), "task_id": taskID,
			"task": map[string]any{"suite": suiteID, "target": target}})
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	var ids []string
	for i := range 4 {
		id := fmt.Sprintf("t%d-%d", i, time.Now().UnixNano())
		ids = append(ids, id)
		publish(id, task(id, "B1", base))
	}
	publish("garbage", []byte("not msgpack at all"))
	publish("nosuch", task("t-nosuch", "B99", base))
	publish("file", task("t-file", "B1", "file:///etc/passwd")) // refused on every attempt: rejected once, never retried
	nosecret, err := msgpack.Marshal(map[string]any{"id": "req-t-nosecret", "time": time.Now().UTC(), "task_id": "t-nosecret",
		"task": map[string]any{"text": "Download the latest report", "target": base}, "secrets": []string{"token"}})
	if err != nil {
		t.Fatal(err)
	}
	publish("nosecret", nosecret) // no $ROTE_SECRET_TOKEN in the planners' environment

	b, err := bus.Open(testContext(t), bus.Config{URL: url, Name: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	finished := map[string]*schema.RunFinished{}
	starts := map[string]int{}
	deadline := time.Now().Add(3 * time.Minute)
	for len(finished) < len(ids) {
		if time.Now().After(deadline) {
			t.Fatalf("finished %d of %d tasks in 3 minutes; planners:\n%s\n%s", len(finished), len(ids), planners[0].out, planners[1].out)
		}
		time.Sleep(500 * time.Millisecond)
		envs, err := b.Runs().Read(testContext(t), schema.RunKindFilter(schema.KindStarted), schema.RunKindFilter(schema.KindFinished))
		if err != nil {
			t.Fatal(err)
		}
		clear(starts)
		for _, e := range envs {
			switch ev := e.Event.(type) {
			case *schema.RunStarted:
				starts[ev.RunID]++
			case *schema.RunFinished:
				finished[ev.RunID] = ev
			}
		}
	}
	for _, id := range ids {
		f := finished[id]
		if f == nil || f.Outcome != schema.OutcomeSuccess || starts[id] != 1 {
			t.Fatalf("task %s: %d run(s) started, finished %+v", id, starts[id], f)
		}
		if code, out := rote(t, t.TempDir(), "audit", id, "--nats", url); code != 0 || !strings.Contains(out, "agrees with its manifest") {
			t.Fatalf("audit %s: exit %d\n%s", id, code, out)
		}
	}
	// Each event is signed by the role that wrote it, as its own user.
	want := map[string]string{schema.KindStarted: "planner", schema.KindObserved: "perception", schema.KindActions: "actuator", schema.KindLLM: "planner", schema.KindVerify: "planner", schema.KindFinished: "planner"}
	if got := signers(t, b, ids[0]); !maps.Equal(got, want) {
		t.Fatalf("run %s's events by kind are signed by %v, want %v", ids[0], got, want)
	}
	// And no role was refused anything it does.
	for _, p := range roles {
		if out := p.out.String(); strings.Contains(out, "refused a request") || strings.Contains(out, "Permissions Violation") {
			t.Fatalf("the server refused %s something:\n%s", p.role, out)
		}
	}
	if len(starts) != len(ids) || starts["t-nosuch"] != 0 || starts["t-file"] != 0 || starts["t-nosecret"] != 0 {
		t.Fatalf("runs started: %v; want one per task and none for the bad messages", starts)
	}
	if got := len(site.State().Downloads); got != len(ids) {
		t.Fatalf("the portal counted %d downloads for %d tasks", got, len(ids))
	}
	var succeeded, rejected, retried float64
	said := ""
	for _, p := range planners {
		succeeded += metric(t, p, `rote_tasks_total{outcome="success"}`)
		rejected += metric(t, p, `rote_tasks_total{outcome="rejected"}`)
		retried += metric(t, p, `rote_tasks_total{outcome="retried"}`)
		said += p.out.String()
	}
	if succeeded != float64(len(ids)) || rejected != 4 || retried != 0 {
		t.Fatalf("planners counted %v successes, %v rejections, %v retries; want %d, 4 and 0", succeeded, rejected, retried, len(ids))
	}
	// Each rejected task whose id can be read says why where its
	// publisher waits for its run, and the planners count them by reason.
	envs, err := b.Runs().Read(testContext(t), schema.RunKindFilter(schema.KindRejected))
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, e := range envs {
		if r, ok := e.Event.(*schema.TaskRejected); ok {
			reasons[r.RunID] = r.Reason.Message
		}
	}
	for id, why := range map[string]string{"t-nosuch": "B99", "t-file": "file:///etc/passwd", "t-nosecret": "ROTE_SECRET_TOKEN"} {
		if !strings.Contains(reasons[id], why) {
			t.Errorf("task %s's rejection: %q, want it to name %s (all: %v)", id, reasons[id], why, reasons)
		}
	}
	if len(reasons) != 3 {
		t.Errorf("rejections published: %v; want the three with a task id", reasons)
	}
	var byReason float64
	for _, p := range planners {
		for _, code := range []string{"invalid", "not_found", "out_of_origin", "unknown_param", "missing_param"} {
			byReason += metric(t, p, `rote_tasks_rejected_total{reason="`+code+`"}`)
		}
	}
	if byReason != 4 {
		t.Errorf("rejections counted by reason: %v, want 4", byReason)
	}
	for _, why := range []string{`task=t-nosuch .*suite task \\"B99\\"`, `task=t-file .*file:///etc/passwd`, `task="" .*seq=\d+ msg_id=garbage`} {
		if !regexp.MustCompile(`msg="task rejected" .*` + why).MatchString(said) {
			t.Fatalf("the planners' logs do not say why a task was rejected (%s):\n%s", why, said)
		}
	}
	if v := metric(t, actuator, `rote_nats_connected{role="actuator"}`); v != 1 {
		t.Fatalf("actuator rote_nats_connected %v", v)
	}
	if code, body := httpGet(actuator.http, "/metrics"); code != http.StatusOK || !strings.Contains(body, `rote_requests_total{endpoint="open"`) {
		t.Fatalf("actuator metrics lack its request counts:\n%s", body)
	}
}

// signers are the signers (Rote-Sig) of a run's events by kind, read
// from the stream as they are stored.
func signers(t *testing.T, b *bus.Bus, run string) map[string]string {
	t.Helper()
	c := testContext(t)
	cons, err := b.JetStream().OrderedConsumer(c, bus.StreamRuns, jetstream.OrderedConsumerConfig{FilterSubjects: []string{schema.RunFilter(run)}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for {
		m, err := cons.Next(jetstream.FetchMaxWait(time.Second))
		if err != nil {
			return out // no more
		}
		signer, _, _ := strings.Cut(m.Headers().Get(bus.HeaderSignature), ":")
		kind := m.Subject()[strings.LastIndexByte(m.Subject(), '.')+1:]
		if prev, ok := out[kind]; ok && prev != signer {
			t.Fatalf("run %s: %s events signed by %s and %s", run, kind, prev, signer)
		}
		out[kind] = signer
	}
}

// TestActuatorLossIsRetried kills (SIGKILL) the actuator a task's run is
// pinned to, in the middle of the run. The run fails cleanly (it finishes,
// with the reason), the planner hands the task back, and the second
// delivery runs as <task>-2 on the other actuator and verifies: the
// task is done once, and rote audit agrees with both runs.
func TestActuatorLossIsRetried(t *testing.T) {
	t.Parallel()
	_, url := hostBus(t)
	serveRole(t, "perception", nil, "--nats", url)
	first := serveRole(t, "actuator", nil, "--nats", url)
	planner := serveRole(t, "planner", []string{"ROTE_SECRET_PASSWORD=" + portal.Password, "ROTE_SECRET_KEY=00112233445566778899aabbccddeeff",
		"ROTE_SCRIPTED_LATENCY=first=1s"}, "--nats", url)
	base, site := portalSite(t, "")

	b, err := bus.Open(testContext(t), bus.Config{URL: url, Name: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	taskID := fmt.Sprintf("loss-%d", time.Now().UnixNano())
	data, err := msgpack.Marshal(map[string]any{"id": "req-" + taskID, "time": time.Now().UTC(), "task_id": taskID,
		"task": map[string]any{"suite": "B2", "target": base}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Conn().Request(schema.SubjectTasks, data, 5*time.Second); err != nil {
		t.Fatal(err) // a JetStream publish: the reply is the stream's acknowledgement
	}
	// Once the run has acted a few times, its actuator dies; a second one
	// is there for the retry.
	deadline := time.Now().Add(2 * time.Minute)
	waitForActions(t, b, taskID, 3, 2*time.Minute)
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	serveRole(t, "actuator", nil, "--nats", url)

	retry := taskID + "-2"
	var outcomes map[string]*schema.RunFinished
	for {
		outcomes = map[string]*schema.RunFinished{}
		envs, err := b.Runs().Read(testContext(t), schema.RunKindFilter(schema.KindFinished))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range envs {
			if f := e.Event.(*schema.RunFinished); f.RunID == taskID || f.RunID == retry {
				outcomes[f.RunID] = f
			}
		}
		if outcomes[retry] != nil {
			break
		}
		if time.Now().After(deadline.Add(2 * time.Minute)) {
			t.Fatalf("no retry finished; runs %v\n%s", outcomes, planner.out)
		}
		time.Sleep(500 * time.Millisecond)
	}
	lost, again := outcomes[taskID], outcomes[retry]
	if lost == nil || lost.Outcome == schema.OutcomeSuccess || lost.Reason == nil {
		t.Fatalf("the run whose actuator died: %+v", lost)
	}
	if again.Outcome != schema.OutcomeSuccess {
		t.Fatalf("the retry: %s (%v)", again.Outcome, again.Reason)
	}
	if n := len(site.State().Vendors); n != 1 {
		t.Fatalf("%d vendors registered, want 1", n)
	}
	for _, id := range []string{taskID, retry} {
		if code, out := rote(t, t.TempDir(), "audit", id, "--nats", url); code != 0 {
			t.Fatalf("audit %s: exit %d\n%s", id, code, out)
		}
	}
	t.Logf("the lost run failed cleanly (%s: %s); the retry verified", lost.Outcome, lost.Reason)
}

// waitForActions waits until run runID has recorded n browser actions.
func waitForActions(t *testing.T, b *bus.Bus, runID string, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		envs, _ := b.Runs().ReadRun(testContext(t), runID) // not found until the run starts
		actions := 0
		for _, e := range envs {
			if _, ok := e.Event.(*schema.BrowserAction); ok {
				actions++
			}
		}
		if actions >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s made %d actions in %s", runID, actions, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
