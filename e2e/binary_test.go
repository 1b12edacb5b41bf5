package e2e

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// TestBinaryDefaults runs the real binary on embedded defaults: it keeps
// its store in ./.rote of the working directory.
func TestBinaryDefaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if code, out := rote(t, dir, "runs", "list"); code != 0 || strings.TrimSpace(out) != "no runs" {
		t.Fatalf("runs list on a fresh store: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rote", "jetstream")); err != nil {
		t.Fatalf("embedded store not under ./.rote: %v", err)
	}
	// A second invocation finds the same store and no stale lock.
	if code, out := rote(t, dir, "runs", "list", "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("runs list --json: exit %d\n%s", code, out)
	}
	env := os.Environ()
	cmd := exec.Command(roteBinary, "runs", "list")
	cmd.Dir = dir
	cmd.Env = append(env, "ROTE_NATS_URL=nats://127.0.0.1:1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "unreachable") {
		t.Fatalf("ROTE_NATS_URL not honoured or dead server not reported: %v\n%s", err, out)
	}
}

// TestServePlannerRole runs `rote serve --role planner` as its own process
// and asks it, over NATS from this one, for a judgment: it answers with
// the offline model (and says so), and records the call in the run.
func TestServePlannerRole(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(roteBinary, "serve", "--role", "planner")
	cmd.Dir = t.TempDir()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	lines := bufio.NewScanner(stderr)
	var url, said string
	for url == "" && lines.Scan() {
		said += lines.Text() + "\n"
		if _, after, ok := strings.Cut(lines.Text(), "rote serve: running planner on "); ok {
			url = after
		}
	}
	if url == "" || !strings.Contains(said, "the planner's model is scripted model (offline)") {
		t.Fatalf("serve said:\n%s", said)
	}
	go io.Copy(io.Discard, stderr)
	// The URL it prints has no password: another process joins with the
	// one in its data directory.
	if strings.Contains(url, "@") {
		t.Fatalf("serve printed a URL with credentials: %s", url)
	}
	token, err := bus.ReadToken(filepath.Join(cmd.Dir, ".rote"), "rote")
	if err != nil {
		t.Fatal(err)
	}
	b, err := bus.Open(testContext(t), bus.Config{URL: strings.Replace(url, "nats://", "nats://rote:"+token+"@", 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	page := "page \"Nightly export crashed | Acme Operations\" http://127.0.0.1/inbox/M-02\n" +
		"a1b2c3 heading \"Nightly export crashed\"\n" +
		"d4e5f6 text \"The nightly export job crashed at 02:00 with an error; no file was written.\""
	var rep schema.ModelReply
	req := &schema.JudgmentRequest{RunID: "run-serve-planner", StepID: "classify", Prompt: "Which category?", Options: []string{"Billing", "Technical", "Account", "Spam"}, Page: page}
	if err := b.RPC().Call(testContext(t), schema.SubjectJudgment, req, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Value != "Technical" || rep.Usage.Output == 0 || rep.Usage.Uncached == 0 {
		t.Fatalf("judgment %+v", rep)
	}
	calls, _ := runLog(t, b, "run-serve-planner")
	if len(calls) != 1 || calls[0].Source != schema.SourceJudgment || !calls[0].Offline || calls[0].Usage != rep.Usage {
		t.Fatalf("recorded %+v", calls)
	}
}
