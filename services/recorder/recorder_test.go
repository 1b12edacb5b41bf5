package recorder

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/recorder/recordertest"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// attach returns an Opener that connects to the same server as b, so the
// recorder can close its bus without closing the test's.
func attach(b *bus.Bus) Opener {
	url := b.JoinURL()
	return func(ctx context.Context) (*bus.Bus, error) { return bus.Open(ctx, bus.Config{URL: url}) }
}

// harness runs a Recorder in-process: the test is the client, writing to
// in and reading from out.
type harness struct {
	rec  *Recorder
	in   *io.PipeWriter
	out  *io.PipeReader
	done chan error
	dir  string
}

func startRecorder(t *testing.T, open Opener, command []string, configure func(*Config)) *harness {
	t.Helper()
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	cfg := Config{
		Command: command, Task: schema.TaskSpec{Name: "fixture-session", Params: map[string]string{"user": "ann"}},
		Secrets: map[string]string{"password": "hunter22"}, Target: "test", SecretKey: []byte("k"),
		DataDir: t.TempDir(), Stdin: stdinR, Stdout: stdoutW, Stderr: &bytes.Buffer{},
	}
	if configure != nil {
		configure(&cfg)
	}
	rec, err := New(cfg, open)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{rec: rec, in: stdinW, out: stdoutR, done: make(chan error, 1), dir: cfg.DataDir}
	go func() {
		err := rec.Run(context.Background())
		stdoutW.Close()
		h.done <- err
	}()
	return h
}

// wait closes the client's side and waits for the recorder to finish.
func (h *harness) wait(t *testing.T) {
	t.Helper()
	h.in.Close()
	select {
	case err := <-h.done:
		if err != nil {
			t.Fatalf("recorder: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("recorder did not finish")
	}
}

func fixture(t *testing.T) []string {
	cmd, env := recordertest.Command()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	return cmd
}

// TestRecordsARealSession puts the recorder between the go-sdk MCP client
// and the fixture server and checks what reaches the run log.
func TestRecordsARealSession(t *testing.T) {
	ctx := testCtx(t)
	b := bustest.Start(t)
	h := startRecorder(t, attach(b), fixture(t), nil)

	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: h.out, Writer: h.in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	calls := []*mcp.CallToolParams{
		{Name: "echo", Arguments: map[string]any{"text": "hi"}},
		{Name: "big", Arguments: map[string]any{"bytes": 100000}},
		{Name: "fail", Arguments: map[string]any{}},
		{Name: "login", Arguments: map[string]any{"user": "ann", "password": "hunter22"}},
		{Name: "slow", Arguments: map[string]any{"ms": 30, "text": "done"}},
	}
	for _, c := range calls {
		if _, err := cs.CallTool(ctx, c); err != nil {
			t.Fatalf("call %s: %v", c.Name, err)
		}
	}
	cs.Close()
	h.wait(t)

	envs, err := b.Runs().ReadRun(ctx, h.rec.RunID())
	if err != nil {
		t.Fatal(err)
	}
	var toolCalls []*schema.ToolCall
	var inv *schema.Inventory
	var finished *schema.RunFinished
	lastSeq := uint64(0)
	for _, env := range envs {
		switch e := env.Event.(type) {
		case *schema.RunStarted:
			if e.Task.Params["password"] == "hunter22" || !strings.HasPrefix(e.Task.Params["password"], "secret:") {
				t.Errorf("secret parameter stored as %q", e.Task.Params["password"])
			}
		case *schema.ToolCall:
			if e.Seq <= lastSeq {
				t.Errorf("seq %d after %d", e.Seq, lastSeq)
			}
			lastSeq = e.Seq
			toolCalls = append(toolCalls, e)
		case *schema.Inventory:
			inv = e
		case *schema.RunFinished:
			finished = e
		}
	}
	if len(toolCalls) != len(calls) {
		t.Fatalf("recorded %d calls, want %d", len(toolCalls), len(calls))
	}
	for i, c := range toolCalls {
		if c.Tool != calls[i].Name || c.Duration <= 0 || schema.ValidateDigest(c.ResultDigest) != nil {
			t.Errorf("call %d recorded as %s, duration %v, digest %q", i, c.Tool, c.Duration, c.ResultDigest)
		}
	}
	if toolCalls[4].Duration < 30*time.Millisecond {
		t.Errorf("slow call took %v, recorded less than its 30ms", toolCalls[4].Duration)
	}
	// The large result went to the object store, retrievable by digest.
	big := toolCalls[1]
	if big.BlobRef == "" || len(big.Result) != 0 || big.ResultSize <= schema.InlineLimit {
		t.Fatalf("100 kB result not spilled: ref %q, inline %d bytes, size %d", big.BlobRef, len(big.Result), big.ResultSize)
	}
	blob, err := b.Runs().Blob(ctx, big.BlobRef)
	if err != nil || schema.Digest(blob) != big.ResultDigest || len(blob) != big.ResultSize {
		t.Fatalf("blob %s: %v (digest %s)", big.BlobRef, err, schema.Digest(blob))
	}
	if !bytes.Contains(blob, []byte(strings.Repeat("x", 1000))) {
		t.Fatal("blob does not hold the result")
	}
	if toolCalls[2].Error == nil || toolCalls[2].Error.Kind != schema.CallErrorTool {
		t.Errorf("isError result recorded as %+v", toolCalls[2].Error)
	}
	login := string(toolCalls[3].Arguments)
	if strings.Contains(login, "hunter22") || !strings.Contains(login, `"user":"ann"`) || !strings.Contains(login, "secret:") {
		t.Errorf("login arguments recorded as %s", login)
	}
	if inv == nil || inv.Environment.Identity.Server != "rote-fixture" || len(inv.Environment.Tools) != 7 {
		t.Fatalf("inventory %+v", inv)
	}
	if finished == nil || finished.Fingerprint != inv.Fingerprint || finished.Outcome != schema.OutcomeUnverified {
		t.Fatalf("run.finished %+v", finished)
	}
	if h.rec.ExitCode() != 0 {
		t.Fatalf("server exit code %d", h.rec.ExitCode())
	}
}

// rawSession sends frames one by one, waiting after each request for the
// response with its id, and returns every byte the client received.
func rawSession(t *testing.T, w io.Writer, r io.Reader, frames []string) []byte {
	t.Helper()
	var got bytes.Buffer
	br := bufio.NewReaderSize(r, 1<<20)
	for _, f := range frames {
		if _, err := io.WriteString(w, f+"\n"); err != nil {
			t.Fatal(err)
		}
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal([]byte(f), &msg) != nil || msg.ID == nil {
			continue // a notification: nothing comes back
		}
		for {
			line, err := br.ReadBytes('\n')
			got.Write(line)
			if err != nil {
				t.Fatalf("reading response to %.60s: %v", f, err)
			}
			var resp struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(line, &resp) == nil && bytes.Equal(resp.ID, msg.ID) {
				break
			}
		}
	}
	return got.Bytes()
}

func scriptedFrames() []string {
	huge := strings.Repeat("0123456789abcdef", 10<<16) // 10 MiB
	return []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"big","arguments":{"bytes":100000}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + huge + `"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"fail","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"six","method":"tools/call","params":{"name":"nope","arguments":{}}}`,
	}
}

// TestTrafficIsByteIdenticalToADirectConnection runs one scripted session
// straight against the fixture server and once through the recorder: the
// client receives the same bytes, and the server reads the same bytes.
func TestTrafficIsByteIdenticalToADirectConnection(t *testing.T) {
	ctx := testCtx(t)
	cmd := fixture(t)
	frames := scriptedFrames()
	var sent bytes.Buffer
	for _, f := range frames {
		sent.WriteString(f + "\n")
	}

	directLog := filepath.Join(t.TempDir(), "direct.stdin")
	t.Setenv(recordertest.EnvStdinLog, directLog)
	direct := exec.CommandContext(ctx, cmd[0], cmd[1:]...)
	in, _ := direct.StdinPipe()
	out, _ := direct.StdoutPipe()
	if err := direct.Start(); err != nil {
		t.Fatal(err)
	}
	directBytes := rawSession(t, in, out, frames)
	in.Close()
	direct.Wait()

	proxiedLog := filepath.Join(t.TempDir(), "proxied.stdin")
	t.Setenv(recordertest.EnvStdinLog, proxiedLog)
	b := bustest.Start(t)
	h := startRecorder(t, attach(b), cmd, nil)
	proxiedBytes := rawSession(t, h.in, h.out, frames)
	h.wait(t)

	if !bytes.Equal(directBytes, proxiedBytes) {
		t.Fatalf("client received %d bytes through the proxy, %d directly, and they differ", len(proxiedBytes), len(directBytes))
	}
	for name, path := range map[string]string{"direct": directLog, "proxied": proxiedLog} {
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, sent.Bytes()) {
			t.Fatalf("%s: server read %d bytes, client sent %d (%v)", name, len(got), sent.Len(), err)
		}
	}
	// The 10 MiB call and its 10 MiB result are in the log, by blob.
	envs, err := b.Runs().Read(ctx, schema.RunSubject(h.rec.RunID(), schema.KindCalls))
	if err != nil || len(envs) != 5 {
		t.Fatalf("%d calls recorded (%v)", len(envs), err)
	}
	huge := envs[2].Event.(*schema.ToolCall)
	if huge.ArgumentsRef == "" || huge.BlobRef == "" || huge.ArgumentsSize < 10<<20 {
		t.Fatalf("10 MiB call not spilled: %+v", huge)
	}
	if nope := envs[4].Event.(*schema.ToolCall); nope.Error == nil {
		t.Fatalf("unknown tool call recorded without error: %+v", nope)
	}
}

// TestGarbageIsForwardedAndRecorded runs cat as the "server": every line
// comes back, so garbage crosses the proxy in both directions.
func TestGarbageIsForwardedAndRecorded(t *testing.T) {
	ctx := testCtx(t)
	b := bustest.Start(t)
	h := startRecorder(t, attach(b), []string{"cat"}, nil)
	tenMiB := bytes.Repeat([]byte("not json "), (10<<20)/9+1)
	input := bytes.Join([][]byte{
		[]byte("hello, world"),
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"na`),
		[]byte(`{"jsonrpc":"1.0"}`),
		tenMiB,
		[]byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","arguments":{}}}`),
		[]byte("\xff\xfe binary \x00 bytes"),
		[]byte("no newline at the end"),
	}, []byte("\n"))
	var echoed []byte
	readDone := make(chan struct{})
	go func() {
		echoed, _ = io.ReadAll(h.out)
		close(readDone)
	}()
	if _, err := h.in.Write(input); err != nil {
		t.Fatal(err)
	}
	h.wait(t)
	<-readDone
	if !bytes.Equal(echoed, input) {
		t.Fatalf("got back %d bytes, sent %d, and they differ", len(echoed), len(input))
	}
	envs, err := b.Runs().Read(ctx, schema.RunSubject(h.rec.RunID(), schema.KindUnparsed))
	if err != nil {
		t.Fatal(err)
	}
	// Six unparsable lines, each in both directions (the tools/call line
	// parses: from the client it is a request, echoed back it is a server
	// request, neither of which is unparsed).
	if len(envs) != 12 {
		for _, e := range envs {
			u := e.Event.(*schema.Unparsed)
			t.Logf("%s %s %d", u.Direction, u.Reason, u.Size)
		}
		t.Fatalf("%d unparsed events, want 12", len(envs))
	}
	for _, env := range envs {
		u := env.Event.(*schema.Unparsed)
		if u.Size == len(tenMiB)+1 {
			data, err := b.Runs().Blob(ctx, u.BlobRef)
			if err != nil || !bytes.Equal(data[:len(tenMiB)], tenMiB) {
				t.Fatalf("10 MiB line not retrievable from blob %q: %v", u.BlobRef, err)
			}
		}
	}
	calls, _ := b.Runs().Read(ctx, schema.RunSubject(h.rec.RunID(), schema.KindCalls))
	if len(calls) != 1 || calls[0].Event.(*schema.ToolCall).Error.Kind != schema.CallErrorLost {
		t.Fatalf("the unanswered call: %d events", len(calls))
	}
}

func TestServerExitCodeAndStartFailure(t *testing.T) {
	b := bustest.Start(t)
	h := startRecorder(t, attach(b), []string{"sh", "-c", "cat >/dev/null; exit 7"}, nil)
	h.wait(t)
	if h.rec.ExitCode() != 7 {
		t.Fatalf("exit code %d, want 7", h.rec.ExitCode())
	}
	envs, _ := b.Runs().ReadRun(testCtx(t), h.rec.RunID())
	fin := envs[len(envs)-1].Event.(*schema.RunFinished)
	if fin.Outcome != schema.OutcomeFailed || !strings.Contains(fin.Reason.Message, "status 7") {
		t.Fatalf("finished %+v", fin.Manifest)
	}

	h = startRecorder(t, attach(b), []string{"/nonexistent/server"}, nil)
	h.in.Close()
	err := <-h.done
	if err == nil || !strings.Contains(err.Error(), "start MCP server") || h.rec.ExitCode() != 127 {
		t.Fatalf("start failure: %v, exit %d", err, h.rec.ExitCode())
	}
	envs, _ = b.Runs().ReadRun(testCtx(t), h.rec.RunID())
	if fin := envs[len(envs)-1].Event.(*schema.RunFinished); fin.Outcome != schema.OutcomeFailed {
		t.Fatalf("start failure recorded as %s", fin.Outcome)
	}
}

// TestSpoolsWhileTheBusIsDown kills the NATS server mid-session: the
// client keeps getting its answers, the events wait in the spool, and when
// the server returns they arrive in order with no gap.
func TestSpoolsWhileTheBusIsDown(t *testing.T) {
	ctx := testCtx(t)
	store := t.TempDir()
	srv := bustest.StartServer(t, store, 0)
	url := srv.ClientURL()
	open := func(ctx context.Context) (*bus.Bus, error) { return bus.Open(ctx, bus.Config{URL: url}) }
	h := startRecorder(t, open, fixture(t), nil)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: h.out, Writer: h.in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	call := func(text string) {
		t.Helper()
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
		if err != nil || r.Content[0].(*mcp.TextContent).Text != text {
			t.Fatalf("call %s through the proxy: %v", text, err)
		}
	}
	call("before-1")
	call("before-2")
	tcpPort := srv.Addr().(*net.TCPAddr).Port
	srv.Shutdown()
	srv.WaitForShutdown()
	call("during-1") // forwarding does not depend on the bus
	call("during-2")
	call("during-3")
	bustest.StartServer(t, store, tcpPort)
	call("after-1")
	cs.Close()
	h.wait(t)

	b, err := bus.Open(ctx, bus.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	envs, err := b.Runs().ReadRun(ctx, h.rec.RunID())
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	var seqs []uint64
	for _, env := range envs {
		if c, ok := env.Event.(*schema.ToolCall); ok {
			var args struct{ Text string }
			json.Unmarshal(c.Arguments, &args)
			texts = append(texts, args.Text)
			seqs = append(seqs, c.Seq)
		}
	}
	if got := strings.Join(texts, ","); got != "before-1,before-2,during-1,during-2,during-3,after-1" {
		t.Fatalf("calls in the log: %s", got)
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			t.Fatalf("gap in seqs: %v", seqs)
		}
	}
	if _, ok := envs[len(envs)-1].Event.(*schema.RunFinished); !ok {
		t.Fatal("run.finished is not the last event")
	}
	if _, err := os.Stat(spoolPath(filepath.Join(h.dir, spoolsDir), h.rec.RunID())); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("spool left behind: %v", err)
	}
}

// TestSpoolOutlivesTheProcess ends a session while the bus is down: the
// events stay in the spool, and the next recorder start flushes them.
func TestSpoolOutlivesTheProcess(t *testing.T) {
	ctx := testCtx(t)
	dead := func(ctx context.Context) (*bus.Bus, error) {
		return bus.Open(ctx, bus.Config{URL: "nats://127.0.0.1:1"})
	}
	h := startRecorder(t, dead, []string{"cat"}, nil)
	io.WriteString(h.in, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}`+"\n")
	go io.Copy(io.Discard, h.out)
	h.in.Close()
	err := <-h.done
	if err == nil || !strings.Contains(err.Error(), "will be flushed by the next rote record") {
		t.Fatalf("want a spool-left-behind error, got %v", err)
	}
	b := bustest.Start(t)
	aborted, err := Recover(ctx, b.Runs(), h.dir, time.Now())
	if err != nil || len(aborted) != 0 {
		t.Fatalf("recover: %v, aborted %v (the run finished, only its delivery was late)", err, aborted)
	}
	envs, err := b.Runs().ReadRun(ctx, h.rec.RunID())
	if err != nil || len(envs) != 3 {
		t.Fatalf("flushed run has %d events (%v), want started, call, finished", len(envs), err)
	}
}

// TestRecoverMarksAbandonedRunsAborted leaves a run as a killed recorder
// would: started, some calls, no finish, lock released.
func TestRecoverMarksAbandonedRunsAborted(t *testing.T) {
	ctx := testCtx(t)
	b := bustest.Start(t)
	dir := t.TempDir()
	lock, err := LockRun(dir, "DEAD")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	w := newWriter("DEAD", filepath.Join(dir, spoolsDir), b, attach(b), slog.New(slog.DiscardHandler))
	w.write(ctx, &schema.RunStarted{Meta: schema.Meta{ID: "DEAD-started", Time: t0}, RunSpec: schema.RunSpec{RunID: "DEAD", Mode: schema.ModeRecord}})
	result := []byte(`{}`)
	w.write(ctx, &schema.ToolCall{Meta: schema.Meta{Time: t0.Add(time.Second)}, Tool: "x", Result: result, ResultDigest: schema.Digest(result), ResultSize: 2})

	// While the lock is held, the run is alive and left alone.
	if aborted, err := Recover(ctx, b.Runs(), dir, t0.Add(time.Hour)); err != nil || len(aborted) != 0 {
		t.Fatalf("live run touched: %v %v", aborted, err)
	}
	lock.f.Close() // the process dies; the kernel drops the flock, the file stays
	aborted, err := Recover(ctx, b.Runs(), dir, t0.Add(time.Hour))
	if err != nil || len(aborted) != 1 || aborted[0] != "DEAD" {
		t.Fatalf("aborted %v, %v", aborted, err)
	}
	envs, _ := b.Runs().ReadRun(ctx, "DEAD")
	fin, ok := envs[len(envs)-1].Event.(*schema.RunFinished)
	if !ok || fin.Outcome != schema.OutcomeAborted || !fin.Finished.Equal(t0.Add(time.Second)) {
		t.Fatalf("last event %+v", envs[len(envs)-1].Event)
	}
	if again, _ := Recover(ctx, b.Runs(), dir, t0.Add(time.Hour)); len(again) != 0 {
		t.Fatalf("recovered twice: %v", again)
	}
	if _, err := os.Stat(filepath.Join(dir, locksDir, "DEAD.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("lock file of a recovered run left behind")
	}
}

// TestEchoedSecretsAreNeverStored: a server that echoes a declared secret
// (in every form bustest.SecretEncodings names: URL, base64 at any
// alignment, hex, HTML entities, JSON escapes, case, two of these in a
// row; in a result small enough to keep inline and in one spilled to the
// blob store), and a torn line
// that carries it, leave no form of it anywhere in ROTE_RUNS or
// ROTE_BLOBS: every byte of both is scanned.
func TestEchoedSecretsAreNeverStored(t *testing.T) {
	b := bustest.Start(t)
	secret := `s3cr"t&kéyß/+=` // é composed: NFD writes it as e and a combining accent; ß is SS in upper case
	h := startRecorder(t, attach(b), fixture(t), func(c *Config) { c.Secrets = map[string]string{"password": secret} })
	// Every form a server commonly shows a secret in, twenty to a call.
	var texts []string
	forms := bustest.SecretEncodings(secret)
	for i := 0; i < len(forms); i += 20 {
		var text strings.Builder
		for _, f := range forms[i:min(i+20, len(forms))] {
			fmt.Fprintf(&text, "the server says %s back (%s)\n", f.Text, f.How)
		}
		texts = append(texts, text.String())
	}
	texts = append(texts, strings.Repeat("padding ", 40_000)+secret) // spilled: larger than an event keeps inline
	frames := []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
	}
	for i, text := range texts {
		args, _ := json.Marshal(map[string]string{"text": text})
		frames = append(frames, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":%s}}`, i+2, args))
	}
	rawSession(t, h.in, h.out, frames)
	io.WriteString(h.in, `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+secret+"\n") // torn
	h.wait(t)

	sc := bustest.ScanForSecret(t, b, secret)
	if sc.Messages < len(texts)+3 || sc.Blobs == 0 {
		t.Fatalf("scanned %d messages and %d blobs: the session was not recorded", sc.Messages, sc.Blobs)
	}
	t.Logf("scanned %d run-log messages and %d blobs, %d bytes, for %d forms of the secret", sc.Messages, sc.Blobs, sc.Bytes, sc.Forms)
}
