package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/portal"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/planner"
)

var buildImages = sync.OnceValue(func() error {
	out, err := exec.Command("../scripts/images").CombinedOutput()
	if err != nil {
		return fmt.Errorf("scripts/images: %v\n%s", err, out)
	}
	return nil
})

// deployment is Rote in containers on one Docker network: a NATS
// container, the fixture portal, and a container per role.
type deployment struct {
	t       *testing.T
	ctx     context.Context
	net     *testcontainers.DockerNetwork
	natsURL string // from the host
	portal  string // from the host
}

// newDeployment builds the images (scripts/images: static binaries FROM
// scratch, a Debian base with Chromium from debootstrap) and starts NATS
// and the portal. Docker is required: these tests fail without it.
func newDeployment(t *testing.T) *deployment {
	t.Helper()
	if out, err := exec.Command("docker", "info", "--format", "{{.ServerVersion}}").CombinedOutput(); err != nil {
		t.Fatalf("these tests need a Docker engine (scripts/test starts dockerd): %v\n%s", err, out)
	}
	t.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	t.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
	if err := buildImages(); err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	nw, err := network.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nw.Remove(context.Background()) })
	d := &deployment{t: t, ctx: ctx, net: nw}
	nats := d.start("nats", "rote-nats:dev", nil, []string{"-js", "-sd", "/tmp/js"}, "4222/tcp", wait.ForListeningPort("4222/tcp"), nil)
	d.natsURL = "nats://" + d.endpoint(nats, "4222/tcp")
	site := d.start("portal", "rote:dev", nil, []string{"fixture", "serve", "--addr", "0.0.0.0:8080"}, "8080/tcp", wait.ForHTTP("/login").WithPort("8080/tcp"), nil)
	d.portal = "http://" + d.endpoint(site, "8080/tcp")
	return d
}

// start runs a container under alias, with port exposed (if any): on the
// deployment's network, or, with beside, in beside's network namespace and
// with beside's /tmp volume (as containers of one Kubernetes pod share
// theirs: the actuator pod's tmp emptyDir holds the browser's relay
// socket).
func (d *deployment) start(alias, image string, env map[string]string, cmd []string, port string, ready wait.Strategy, beside testcontainers.Container) testcontainers.Container {
	d.t.Helper()
	req := testcontainers.ContainerRequest{Image: image, Cmd: cmd, Env: env, WaitingFor: ready}
	if port != "" {
		req.ExposedPorts = []string{port}
	}
	switch {
	case beside != nil:
		req.HostConfigModifier = func(hc *container.HostConfig) {
			hc.NetworkMode = container.NetworkMode("container:" + beside.GetContainerID())
			hc.VolumesFrom = []string{beside.GetContainerID()}
		}
	default:
		req.Networks = []string{d.net.Name}
		req.NetworkAliases = map[string][]string{d.net.Name: {alias}}
		if image == "rote-chromium:dev" {
			req.HostConfigModifier = func(hc *container.HostConfig) {
				hc.ShmSize = 512 << 20                                              // Chromium's shared memory
				hc.Mounts = []mount.Mount{{Type: mount.TypeVolume, Target: "/tmp"}} // shared with its perception
			}
		}
	}
	c, err := testcontainers.GenericContainer(d.ctx, testcontainers.GenericContainerRequest{ContainerRequest: req, Started: true})
	if err != nil {
		d.t.Fatalf("start %s (%s): %v", alias, image, err)
	}
	d.t.Cleanup(func() {
		if d.t.Failed() {
			if logs, err := c.Logs(context.Background()); err == nil {
				var b strings.Builder
				_, _ = fmt.Fprintf(&b, "--- %s logs ---\n", alias)
				buf := make([]byte, 64<<10)
				n, _ := logs.Read(buf)
				b.Write(buf[:n])
				d.t.Log(b.String())
			}
		}
		_ = c.Terminate(context.Background())
	})
	return c
}

func (d *deployment) endpoint(c testcontainers.Container, port string) string {
	d.t.Helper()
	host, err := c.Host(d.ctx)
	if err != nil {
		d.t.Fatal(err)
	}
	p, err := c.MappedPort(d.ctx, port)
	if err != nil {
		d.t.Fatal(err)
	}
	return host + ":" + p.Port()
}

// role starts `rote serve --role role` in image.
func (d *deployment) role(alias, image, role string, env map[string]string, beside testcontainers.Container) testcontainers.Container {
	d.t.Helper()
	cmd := []string{"serve", "--role", role, "--nats", "nats://nats:4222"}
	return d.start(alias, image, env, cmd, "", wait.ForLog("rote serve: running").WithStartupTimeout(90*time.Second), beside)
}

// actuator starts an actuator container and a perception container in its
// network namespace and /tmp volume (as in the Kubernetes pod): perception
// reaches the browser through the relay socket the actuator serves there.
func (d *deployment) actuator(alias string) testcontainers.Container {
	d.t.Helper()
	a := d.role(alias, "rote-chromium:dev", "actuator", nil, nil)
	d.role(alias+"-perception", "rote:dev", "perception", nil, a)
	return a
}

func (d *deployment) publish(b *bus.Bus, taskID, suiteID string) {
	d.t.Helper()
	data, err := msgpack.Marshal(map[string]any{"id": "req-" + taskID, "time": time.Now().UTC(), "task_id": taskID,
		"task": map[string]any{"suite": suiteID, "target": "http://portal:8080"}})
	if err != nil {
		d.t.Fatal(err)
	}
	if _, err := b.Conn().Request(schema.SubjectTasks, data, 5*time.Second); err != nil {
		d.t.Fatal(err)
	}
}

func (d *deployment) state() portal.State {
	d.t.Helper()
	resp, err := http.Get(d.portal + "/__state")
	if err != nil {
		d.t.Fatal(err)
	}
	defer resp.Body.Close()
	var st portal.State
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		d.t.Fatal(err)
	}
	return st
}

// finished waits for run id's run.finished.
func finished(t *testing.T, b *bus.Bus, id string, within time.Duration) *schema.RunFinished {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		envs, err := b.Runs().Read(testContext(t), schema.RunSubject(id, schema.KindFinished))
		if err != nil {
			t.Fatal(err)
		}
		if len(envs) > 0 {
			return envs[0].Event.(*schema.RunFinished)
		}
		if time.Now().After(deadline) {
			var seen []string
			if envs, err := b.Runs().Read(testContext(t), schema.RunKindFilter(schema.KindStarted)); err == nil {
				for _, e := range envs {
					seen = append(seen, e.Event.(*schema.RunStarted).RunID)
				}
			}
			var last []string
			if envs, err := b.Runs().ReadRun(testContext(t), id); err == nil {
				for _, e := range envs[max(0, len(envs)-4):] {
					last = append(last, fmt.Sprintf("%s %+v", e.Subject, e.Event))
				}
			}
			t.Fatalf("run %s did not finish within %s; runs started %v; its last events %v", id, within, seen, last)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestContainersDoATask: images built here, NATS in a container, one
// container per role (the actuator on the Chromium image, perception in
// its network namespace and /tmp). A task published from the host on rote.tasks is
// claimed, done and verified: the outcome is read back from the stream,
// the portal counts the download, and rote audit agrees with the run.
// Then the actuator container is killed in the middle of a second task's
// run: the run fails cleanly (it finishes, with the reason), the task is
// handed out again, a later delivery verifies on a new actuator
// container, the vendor is registered once, and audit agrees with every
// run.
func TestContainersDoATask(t *testing.T) {
	long(t, "building images and running a container per role")
	// Not parallel: testcontainers reads its settings from the process's
	// environment, which the deployment sets.
	d := newDeployment(t)
	env := map[string]string{"ROTE_SECRET_PASSWORD": portal.Password, "ROTE_SECRET_KEY": "00112233445566778899aabbccddeeff", "ROTE_SCRIPTED_LATENCY": "first=500ms"}
	d.role("matcher", "rote:dev", "matcher", nil, nil)
	d.role("planner", "rote:dev", "planner", env, nil)
	first := d.actuator("actuator-1")

	b, err := bus.Open(testContext(t), bus.Config{URL: d.natsURL, Name: "e2e-host"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	done := fmt.Sprintf("c-%d", time.Now().UnixNano())
	d.publish(b, done, "B1")
	if f := finished(t, b, done, 3*time.Minute); f.Outcome != schema.OutcomeSuccess {
		t.Fatalf("task %s: %s (%v)", done, f.Outcome, f.Reason)
	}
	if got := d.state().Downloads; len(got) != 1 {
		t.Fatalf("the portal counted downloads %v, want 1", got)
	}

	// Kill the actuator container (SIGKILL) in the middle of a B2 run.
	lost := fmt.Sprintf("k-%d", time.Now().UnixNano())
	d.publish(b, lost, "B2")
	waitForActions(t, b, lost, 3, 3*time.Minute)
	kill := time.Duration(0)
	if err := first.Stop(testContext(t), &kill); err != nil {
		t.Fatal(err)
	}
	d.actuator("actuator-2")
	failed := finished(t, b, lost, 3*time.Minute)
	if failed.Outcome == schema.OutcomeSuccess || failed.Reason == nil {
		t.Fatalf("the run whose actuator was killed: %s (%v)", failed.Outcome, failed.Reason)
	}
	// A delivery that comes while the new actuator is still starting may
	// be handed back before its run starts: the task is done by the first
	// later delivery that runs.
	retry := retried(t, b, lost, 3*time.Minute)
	if got := d.state().Vendors; len(got) != 1 {
		t.Fatalf("the portal registered %d vendors for one task", len(got))
	}
	for _, id := range []string{done, lost, retry} {
		if code, out := rote(t, t.TempDir(), "audit", id, "--nats", d.natsURL); code != 0 {
			t.Fatalf("audit %s: exit %d\n%s", id, code, out)
		}
	}
	t.Logf("the run whose actuator was killed finished %s (%s); %s verified; audit agrees with all three runs", failed.Outcome, failed.Reason, retry)
}

// retried waits for a later delivery of task (run task-2, task-3, ...) to
// finish and returns its run id; it fails the test unless that run
// succeeded.
func retried(t *testing.T, b *bus.Bus, task string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		for n := 2; n <= planner.TaskDeliveries; n++ {
			id := fmt.Sprintf("%s-%d", task, n)
			envs, err := b.Runs().Read(testContext(t), schema.RunSubject(id, schema.KindFinished))
			if err != nil {
				t.Fatal(err)
			}
			if len(envs) == 0 {
				continue
			}
			if f := envs[0].Event.(*schema.RunFinished); f.Outcome != schema.OutcomeSuccess {
				t.Fatalf("the task's delivery %s: %s (%v)", id, f.Outcome, f.Reason)
			}
			return id
		}
		if time.Now().After(deadline) {
			finished(t, b, task+"-2", 0) // fails, saying which runs started
		}
		time.Sleep(500 * time.Millisecond)
	}
}
