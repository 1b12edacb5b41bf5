package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/recorder/recordertest"
)

// TestKill9LosesNoAcknowledgedEvent kills `rote record` with SIGKILL in
// the middle of a session, after the run log (served by that very
// process's embedded server) has acknowledged some calls. Every
// acknowledged call must still be there, in order, with nothing torn, and
// the next `rote record` must mark the run aborted.
func TestKill9LosesNoAcknowledgedEvent(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	cmd, env := recordertest.Command()
	rec := startRecording(t, dir, env, []string{"--task", "kill-me"}, cmd...)

	out := bufio.NewReader(rec.stdout)
	send := func(id int, method, params string) {
		fmt.Fprintf(rec.stdin, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		if _, err := out.ReadBytes('\n'); err != nil {
			t.Fatalf("response %d: %v", id, err)
		}
	}
	send(0, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"k","version":"1"}}`)
	io.WriteString(rec.stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	// The server answered, so the recorder has opened the store: it owns
	// the data directory. Watch the run log from outside, through it.
	watcher, err := bus.Open(ctx, bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if watcher.Server() != nil {
		t.Fatal("the watcher started its own server: the recorder should own the data directory")
	}
	const acked = 25
	for i := 1; i <= acked; i++ {
		send(i, "tools/call", fmt.Sprintf(`{"name":"echo","arguments":{"text":"call-%d"}}`, i))
	}
	// Wait until the log has acknowledged all of them, then keep calls in
	// flight and kill.
	deadline := time.Now().Add(20 * time.Second)
	for {
		envs, _ := watcher.Runs().Read(ctx, schema.RunSubject(rec.runID, schema.KindCalls))
		if len(envs) >= acked {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d calls acknowledged", len(envs), acked)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i := acked + 1; i <= acked+10; i++ {
		fmt.Fprintf(rec.stdin, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"call-%d"}}}`+"\n", i, i)
	}
	if err := rec.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	rec.cmd.Wait()
	watcher.Close()

	// The store, opened by a new owner, holds every acknowledged call.
	b, err := bus.Open(ctx, bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	envs, err := b.Runs().ReadRun(ctx, rec.runID) // fails on any undecodable (torn) event
	if err != nil {
		t.Fatal(err)
	}
	var calls []*schema.ToolCall
	for _, env := range envs {
		switch e := env.Event.(type) {
		case *schema.ToolCall:
			calls = append(calls, e)
		case *schema.RunFinished:
			t.Fatal("a killed recorder cannot have finished its run")
		}
	}
	if len(calls) < acked {
		t.Fatalf("%d calls after kill -9, %d were acknowledged", len(calls), acked)
	}
	for i, c := range calls {
		var args struct{ Text string }
		json.Unmarshal(c.Arguments, &args)
		if args.Text != fmt.Sprintf("call-%d", i+1) || (i > 0 && c.Seq != calls[i-1].Seq+1) {
			t.Fatalf("call %d is %q seq %d: the log is not the ordered prefix of the session", i, args.Text, c.Seq)
		}
	}
	b.Close()

	// The next start notices the dead run and closes it as aborted.
	next := startRecording(t, dir, nil, nil, "true")
	next.stdin.Close()
	next.cmd.Wait()
	if stderr := next.stderr.String(); !strings.Contains(stderr, `msg="marked abandoned runs aborted"`) || !strings.Contains(stderr, "count=1") || !strings.Contains(stderr, rec.runID) {
		t.Fatalf("next recorder did not report the aborted run:\n%s", next.stderr)
	}
	b, err = bus.Open(ctx, bus.Config{DataDir: filepath.Join(dir)})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	envs, err = b.Runs().ReadRun(ctx, rec.runID)
	if err != nil {
		t.Fatal(err)
	}
	fin, ok := envs[len(envs)-1].Event.(*schema.RunFinished)
	if !ok || fin.Outcome != schema.OutcomeAborted || fin.Finished.Before(calls[len(calls)-1].Time) {
		t.Fatalf("run not closed as aborted: %+v", envs[len(envs)-1].Event)
	}
	t.Logf("killed after %d acknowledged calls; %d calls in the log; run marked aborted", acked, len(calls))
}
