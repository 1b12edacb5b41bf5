package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/cli"
	"github.com/rote-agent/rote/schema"
)

// run calls Main as the binary would and returns exit code and output.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runWithInput(t, "", args...)
}

// runWithInput is run with stdin.
func runWithInput(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code := Main(ctx, args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// seed opens the data directory (owning its embedded server, so Main
// attaches to it) and publishes a finished run and an unfinished one.
func seed(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	b, err := bus.Open(ctx, bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	spec := schema.RunSpec{RunID: "RUN1", Mode: schema.ModeRecord, Task: schema.TaskSpec{Name: "register-vendor", Text: "register Acme"},
		Fingerprint: strings.Repeat("ab", 32)}
	result := []byte(`{"content":[]}`)
	events := []schema.Event{
		&schema.RunStarted{Meta: schema.Meta{ID: "e1", Time: t0}, RunSpec: spec},
		&schema.ToolCall{Meta: schema.Meta{ID: "e2", Time: t0.Add(100 * time.Millisecond)}, RunID: "RUN1", Seq: 1, Tool: "browser_navigate",
			Arguments: []byte(`{"url":"http://x"}`), ArgumentsDigest: schema.Digest([]byte(`{"url":"http://x"}`)), ArgumentsSize: 18, Result: result, ResultDigest: schema.Digest(result), ResultSize: len(result), Duration: 40 * time.Millisecond},
		&schema.LLMCall{Meta: schema.Meta{ID: "e3", Time: t0.Add(200 * time.Millisecond)}, RunID: "RUN1", Source: schema.SourcePlanner, Model: "scripted",
			Usage: schema.TokenUsage{Uncached: 900, CacheRead: 1024, Output: 20}, Offline: true},
		&schema.RunFinished{Meta: schema.Meta{ID: "e4", Time: t0.Add(time.Second)}, Manifest: schema.Manifest{RunSpec: spec, Outcome: schema.OutcomeSuccess,
			Started: t0, Finished: t0.Add(time.Second), Usage: []schema.SourceUsage{{Source: schema.SourcePlanner, Calls: 1, Tokens: schema.TokenUsage{Uncached: 900, CacheRead: 1024, Output: 20}}}}},
		&schema.RunStarted{Meta: schema.Meta{ID: "e5", Time: t0.Add(2 * time.Second)}, RunSpec: schema.RunSpec{RunID: "RUN2", Mode: schema.ModeAgent, Task: schema.TaskSpec{Text: "search the catalog"}}},
	}
	for _, ev := range events {
		if _, err := b.Runs().Publish(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunsOfADeadProcessAreAborted: a run left open by a process that is
// gone (it owned the data directory and exited, as a rote serve killed
// mid-replay does) is closed as aborted by the next process that takes
// the directory over; one started after the takeover is not touched.
func TestRunsOfADeadProcessAreAborted(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	b, err := bus.Open(ctx, bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	open := &schema.RunStarted{Meta: schema.Meta{ID: "o1", Time: time.Now().Add(-time.Minute)}, RunSpec: schema.RunSpec{RunID: "ORPHAN", Mode: schema.ModeReplay, Task: schema.TaskSpec{Text: "replay"}}}
	if _, err := b.Runs().Publish(ctx, open); err != nil {
		t.Fatal(err)
	}
	b.Close()
	code, out, errOut := run(t, "--data", dir, "runs", "list")
	if code != 0 || !strings.Contains(out, "ORPHAN") || !strings.Contains(out, "aborted") {
		t.Fatalf("runs list after the owner died: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ = run(t, "--data", dir, "runs", "show", "ORPHAN"); code != 0 || !strings.Contains(out, "died before finishing") {
		t.Fatalf("runs show: exit %d\n%s", code, out)
	}
	if code, out, _ = run(t, "--data", dir, "audit", "ORPHAN"); !strings.Contains(out, "aborted") {
		t.Fatalf("audit: exit %d\n%s", code, out)
	}
}

// TestTakeoverAbortsTheRunsOfTheOwner: when the process that serves a
// data directory exits with a run open, the process that takes the
// directory over marks that run aborted, and leaves its own open run,
// which it still runs, alone.
func TestTakeoverAbortsTheRunsOfTheOwner(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	owner, err := bus.Open(ctx, bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	startRun := func(b *bus.Bus, id string) {
		t.Helper()
		ev := &schema.RunStarted{Meta: schema.Meta{ID: id + "-s", Time: time.Now()}, RunSpec: schema.RunSpec{RunID: id, Mode: schema.ModeReplay, Task: schema.TaskSpec{Text: "replay"}}}
		if _, err := b.Runs().Publish(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	startRun(owner, "OWNERS")
	var stderr bytes.Buffer
	app := &cli.App{DataDir: dir, Stderr: &stderr, Log: slog.New(slog.NewTextHandler(&stderr, nil))}
	survivor, err := app.Bus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer survivor.Close()
	startRun(survivor, "SURVIVORS")
	owner.Close() // as a killed owner: its run's lock is gone
	fold := func(id string) *schema.RunFold {
		f, err := survivor.Runs().Fold(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	for f := fold("OWNERS"); f.Finished == nil || f.Finished.Outcome != schema.OutcomeAborted; f = fold("OWNERS") {
		if ctx.Err() != nil {
			t.Fatalf("the dead owner's run was not aborted after the takeover:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if f := fold("SURVIVORS"); f.Finished != nil {
		t.Fatalf("the survivor's own run was closed: %s", f.Finished.Outcome)
	}
	if !bus.RunAlive(dir, "SURVIVORS") || bus.RunAlive(dir, "OWNERS") {
		t.Fatal("RunAlive does not tell the survivor's run from the dead owner's")
	}
}

func TestRunsListAndShow(t *testing.T) {
	dir := t.TempDir()
	seed(t, dir)

	code, out, errOut := run(t, "--data", dir, "runs", "list")
	if code != 0 {
		t.Fatalf("runs list: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "RUN") {
		t.Fatalf("runs list:\n%s", out)
	}
	for _, want := range []string{"RUN1", "record", "register-vendor", "success", "1s", "1944"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("row %q lacks %q", lines[1], want)
		}
	}
	if !strings.Contains(lines[2], "RUN2") || !strings.Contains(lines[2], "running") {
		t.Errorf("unfinished run row: %q", lines[2])
	}

	code, out, _ = run(t, "--data", dir, "runs", "list", "--json")
	var rows []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 2 {
		t.Fatalf("runs list --json (exit %d):\n%s", code, out)
	}
	if rows[0]["run_id"] != "RUN1" || rows[0]["outcome"] != "success" || rows[0]["calls"] != 1.0 || rows[1]["outcome"] != "running" {
		t.Fatalf("json rows: %v", rows)
	}

	code, out, _ = run(t, "--data", dir, "runs", "show", "RUN1")
	if code != 0 {
		t.Fatalf("runs show: exit %d", code)
	}
	for _, want := range []string{
		"+0.000s  run.started",
		"record run RUN1, task \"register-vendor\", fingerprint abababababab",
		"+0.100s  trajectory.tool_call   #1 browser_navigate 40ms {\"url\":\"http://x\"} -> sha256:",
		"llm.call               planner scripted uncached=900 cache_read=1024 cache_write=0 output=20 [scripted model (offline)]",
		"+1.000s  run.finished           success after 1s, 1944 tokens",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("timeline lacks %q:\n%s", want, out)
		}
	}

	code, out, _ = run(t, "--data", dir, "runs", "show", "RUN1", "--json")
	var events []struct {
		Seq   uint64         `json:"seq"`
		Type  string         `json:"type"`
		Event map[string]any `json:"event"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &events) != nil || len(events) != 4 {
		t.Fatalf("runs show --json (exit %d):\n%s", code, out)
	}
	if events[1].Type != schema.TypeToolCall || events[1].Event["tool"] != "browser_navigate" {
		t.Fatalf("json event: %+v", events[1])
	}
	if args, ok := events[1].Event["arguments"].(map[string]any); !ok || args["url"] != "http://x" {
		t.Fatalf("tool arguments are not inline JSON: %v", events[1].Event["arguments"])
	}

	// An agent's run has its own verify gate: runs verify leaves it be.
	if code, _, errOut := run(t, "--data", dir, "runs", "verify", "RUN2", "--expect", "text_visible: x"); code != 1 || !strings.Contains(errOut, "does not overwrite") {
		t.Errorf("runs verify on an agent's run: exit %d: %s", code, errOut)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		code int
		says string
	}{
		{[]string{"version"}, 0, ""},
		{[]string{"runs", "list"}, 0, ""},
		{[]string{"runs", "show", "NOPE"}, 1, "run not found: NOPE"},
		{[]string{"runs", "show", "a.b"}, 1, "run id \"a.b\""},
		{[]string{"runs", "show"}, 2, "accepts 1 arg"},
		{[]string{"runs", "--bogus"}, 2, "unknown flag: --bogus"},
		{[]string{"serve", "--role", "bogus"}, 2, "unknown role \"bogus\""},
		{[]string{"serve", "--role", "recorder"}, 2, "rote record -- COMMAND"},
		{[]string{"--nats", "nats://perception:pw@127.0.0.1:1", "serve"}, 2, "connects as user rote, not as the role user perception"},
		{[]string{"--nats", "nats://rote:pw@127.0.0.1:1", "runs", "list"}, 1, "the password in --nats is seen by every local user"},
		{[]string{"demo", "extra"}, 2, "unknown command"},
		{[]string{"nonsense"}, 2, `unknown command "nonsense"`},
		{[]string{"help", "runs", "show"}, 0, ""},
		{[]string{"help", "bogus"}, 2, `unknown help topic "bogus"`},
		{[]string{"help", "runs", "bogus"}, 2, `unknown help topic "runs bogus"`},
		{[]string{"serve", "--log-level", "loud"}, 2, `--log-level "loud"`},
		{[]string{"--nats", "nats://127.0.0.1:1", "runs", "list"}, 1, "NATS server unreachable"},
	}
	for _, c := range cases {
		code, _, errOut := run(t, append([]string{"--data", dir}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.says) || strings.Contains(errOut, "rote: rote:") {
			t.Errorf("rote %v: exit %d, stderr %q; want exit %d saying %q", c.args, code, errOut, c.code, c.says)
		}
	}
	code, out, _ := run(t, "version")
	if code != 0 || !strings.HasPrefix(out, "rote ") || !strings.Contains(out, "nats-server 2.15.2") {
		t.Fatalf("version: %q", out)
	}
}
