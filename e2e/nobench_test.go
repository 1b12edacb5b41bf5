package e2e

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/bench/suite"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/portal"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
)

// TestServeWithoutSuites builds rote with -tags nobench, which leaves the
// benchmark suites out, and runs every role of it against a model served
// by another process: it says it serves free-text tasks only, refuses a
// task that names a suite task and says why, and still does a free-text
// task and a task naming a stored playbook to a verified end.
func TestServeWithoutSuites(t *testing.T) {
	long(t, "a second build of rote, with -tags nobench")
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "rote-nobench")
	build := exec.Command("go", "build", "-tags", "nobench", "-o", bin, "github.com/rote-agent/rote/cmd/rote")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags nobench: %v\n%s", err, out)
	}
	if out, err := exec.Command("go", "list", "-tags", "nobench", "-deps", "github.com/rote-agent/rote/cmd/rote").Output(); err != nil || strings.Contains(string(out), "rote/bench") {
		t.Fatalf("the nobench build still links the benchmark (%v)", err)
	}
	for _, args := range [][]string{{"demo"}, {"bench"}, {"model"}} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "unknown command") {
			t.Fatalf("rote %v without the suites: %v\n%s", args, err, out)
		}
	}
	out, err := exec.Command(bin, "--data", t.TempDir(), "run", "--suite-task", "B1").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "built without the benchmark suites") {
		t.Fatalf("rote run --suite-task without the suites: %v\n%s", err, out)
	}

	model := exec.Command(roteBinary, "model", "serve", "--scripted", "--addr", "127.0.0.1:0")
	modelOut, _ := model.StdoutPipe()
	if err := model.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Process.Kill(); model.Wait() })
	line, err := bufio.NewReader(modelOut).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	modelURL := strings.TrimSpace(line[strings.Index(line, "http://"):])

	natsAddr := freeAddr(t)
	dataDir := t.TempDir()
	said := startServe(t, bin, []string{"ROTE_LLM_BASE_URL=" + modelURL, "ROTE_MODEL=rote-scripted", "ROTE_SECRET_PASSWORD=" + portal.Password}, "--listen", natsAddr, "--data", dataDir)
	if !strings.Contains(said.String(), "free-text tasks only: this rote is built without the benchmark suites") {
		t.Fatalf("serve does not say what it serves:\n%s", said)
	}
	token, err := bus.ReadToken(dataDir, "rote")
	if err != nil {
		t.Fatal(err)
	}
	b, err := bus.Open(testContext(t), bus.Config{URL: "nats://rote:" + token + "@" + natsAddr, Name: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	base, site := portalSite(t, "")
	b1, _ := suite.Lookup("B1")
	params := b1.Params(1)
	publish := func(id string, task schema.TaskSpec, playbook string) {
		t.Helper()
		req := &schema.TaskRequested{Meta: schema.Meta{ID: "req-" + id, Time: time.Now()}, TaskID: id, Task: task, Playbook: playbook,
			Secrets: []string{"password"}, Verify: b1.VerifyExpects(params)}
		if _, err := b.Tasks().Publish(testContext(t), req); err != nil {
			t.Fatal(err)
		}
	}

	stamp := time.Now().Format("150405.000")
	suiteID := "suite-" + strings.ReplaceAll(stamp, ".", "")
	publish(suiteID, schema.TaskSpec{Suite: "B1", Target: base}, "")
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(said.String(), "task "+suiteID+` names the suite task \"B1\", but this rote is built without the benchmark suites`); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the suite task was not refused with a reason:\n%s", said)
		}
	}
	// A refused task starts no run; what its publisher finds under its
	// id is the rejection, with its reason.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		envs, err := b.Runs().ReadRun(testContext(t), suiteID)
		if err == nil && len(envs) == 1 {
			r, ok := envs[0].Event.(*schema.TaskRejected)
			if !ok || !strings.Contains(r.Reason.Message, "built without the benchmark suites") {
				t.Fatalf("a refused task's events: %+v", envs[0].Event)
			}
			break
		}
		if err == nil && len(envs) > 1 || time.Now().After(deadline) {
			t.Fatalf("a refused task's events: %d (%v)", len(envs), err)
		}
	}

	textID := "text-" + strings.ReplaceAll(stamp, ".", "")
	text := schema.TaskSpec{Name: b1.Name, Text: b1.Render(params), Target: base, Params: map[string]string{"username": params["username"]}}
	publish(textID, text, "")
	if f := finished(t, b, textID, 2*time.Minute); f.Outcome != schema.OutcomeSuccess || f.Mode != schema.ModeAgent {
		t.Fatalf("the free-text task: %s (%s): %v\n%s", f.Outcome, f.Mode, f.Reason, said)
	}

	p := examplePlaybook(t, "download-latest-report")
	var err2 error
	if p.Fingerprint, err2 = schema.Fingerprint(tools.BrowserEnvironment(base)); err2 != nil {
		t.Fatal(err2)
	}
	if _, err := b.Playbooks().Put(testContext(t), p, "import", ""); err != nil {
		t.Fatal(err)
	}
	stored := "stored-" + strings.ReplaceAll(stamp, ".", "")
	publish(stored, text, p.Name)
	if f := finished(t, b, stored, 2*time.Minute); f.Outcome != schema.OutcomeSuccess || f.Mode != schema.ModeReplay || len(f.Usage) != 0 {
		t.Fatalf("the task naming a stored playbook: %s (%s), usage %v: %v\n%s", f.Outcome, f.Mode, f.Usage, f.Reason, said)
	}
	if n := len(site.State().Downloads); n != 2 {
		t.Fatalf("the portal counts %d downloads, want 2", n)
	}
}
