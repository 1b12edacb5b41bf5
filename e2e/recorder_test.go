package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/recorder/recordertest"
)

// recording is a `rote record` process with the test as its MCP client.
type recording struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *lockedBuffer
	runID  string
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var runIDLine = regexp.MustCompile(`rote record: run ([0-9A-Z]{26})`)

// startRecording runs `rote --data dir record ... -- server...` with env
// added to its environment (the server inherits it).
func startRecording(t testing.TB, dir string, env []string, recordArgs []string, server ...string) *recording {
	t.Helper()
	args := append([]string{"--data", dir, "record"}, recordArgs...)
	cmd := exec.Command(roteBinary, append(append(args, "--"), server...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir // servers that write files (@playwright/mcp) write them here
	r := startPiped(t, cmd)
	deadline := time.Now().Add(20 * time.Second)
	for r.runID == "" {
		if m := runIDLine.FindStringSubmatch(r.stderr.String()); m != nil {
			r.runID = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("rote record printed no run id: %s", r.stderr.String())
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	return r
}

// startPiped starts cmd with pipes to its stdin and stdout and its
// stderr kept, and kills it when the test ends.
func startPiped(t testing.TB, cmd *exec.Cmd) *recording {
	t.Helper()
	r := &recording{cmd: cmd, stderr: &lockedBuffer{}}
	cmd.Stderr = r.stderr
	var err error
	if r.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if r.stdout, err = cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return r
}

// teeTransport is the client's side of the proxy, keeping a copy of every
// byte the client sends and receives.
type teeTransport struct {
	sent, received bytes.Buffer
	mu             sync.Mutex
	r              *recording
}

func (tt *teeTransport) Read(p []byte) (int, error) {
	n, err := tt.r.stdout.Read(p)
	tt.mu.Lock()
	tt.received.Write(p[:n])
	tt.mu.Unlock()
	return n, err
}

func (tt *teeTransport) Write(p []byte) (int, error) {
	tt.mu.Lock()
	tt.sent.Write(p)
	tt.mu.Unlock()
	return tt.r.stdin.Write(p)
}

func (tt *teeTransport) Close() error { return tt.r.stdin.Close() }

// mcpServer is an MCP server to record and the session to drive it with.
type mcpServer struct {
	name    string
	command []string
	env     []string
	session func(t *testing.T, ctx context.Context, cs *mcp.ClientSession) []string // returns the tools it called, in order
}

func fixtureServer() mcpServer {
	cmd, env := recordertest.Command()
	return mcpServer{name: "ours (go-sdk fixture)", command: cmd, env: env, session: func(t *testing.T, ctx context.Context, cs *mcp.ClientSession) []string {
		calls := []*mcp.CallToolParams{
			{Name: "echo", Arguments: map[string]any{"text": "hello"}},
			{Name: "big", Arguments: map[string]any{"bytes": 200000}},
			{Name: "fail", Arguments: map[string]any{}},
			{Name: "slow", Arguments: map[string]any{"ms": 20, "text": "late"}},
		}
		var names []string
		for _, c := range calls {
			if _, err := cs.CallTool(ctx, c); err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			names = append(names, c.Name)
		}
		return names
	}}
}

// playwrightCommand starts @playwright/mcp headless on our Chromium, with
// what it leaves behind (its page snapshots, the singleton directories
// its Chromium makes under $TMPDIR) in a directory the test removes.
func playwrightCommand(t *testing.T) []string {
	// Not t.TempDir: a subtest's name makes that path long enough that
	// Chromium's singleton socket under $TMPDIR passes the 108 bytes a
	// Unix socket's path may have, and its launch fails.
	tmp, err := os.MkdirTemp("", "pw-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	return []string{"env", "TMPDIR=" + tmp, "node", playwrightCLI(t), "--headless", "--no-sandbox", "--isolated",
		"--executable-path", "/usr/bin/chromium", "--output-dir", tmp}
}

// recordSession records, through rote record in front of server, the
// session drive plays as a raw JSON-RPC client speaking version, and
// returns the recording once rote record has ended.
func recordSession(t *testing.T, dir string, recordArgs, server []string, version string, drive func(c *rawClient)) *recording {
	t.Helper()
	rec := startRecording(t, dir, nil, recordArgs, server...)
	c := &rawClient{t: t, rec: rec, out: bufio.NewReader(rec.stdout), version: version}
	c.handshake()
	drive(c)
	rec.stdin.Close()
	if err := rec.cmd.Wait(); err != nil {
		t.Fatalf("record: %v\n%s", err, rec.stderr)
	}
	return rec
}

// serverCommand is how a test starts one browser MCP server for a
// store in dir. It takes the (sub)test's own t: a Fatal on another
// test's t, from a subtest's goroutine, panics the whole binary.
type serverCommand func(t *testing.T, dir string) []string

// playwrightMCP starts @playwright/mcp; dir is not its store.
func playwrightMCP(t *testing.T, _ string) []string { return playwrightCommand(t) }

// roteBrowserServer starts rote mcp browser on the store in dir.
func roteBrowserServer(_ *testing.T, dir string) []string {
	return []string{roteBinary, "--data", dir, "mcp", "browser"}
}

// callText calls a tool that must succeed and returns its text content.
func callText(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || r.IsError {
		t.Fatalf("%s: %v %+v", name, err, r)
	}
	var text strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return text.String()
}

// playwrightCLI is @playwright/mcp as scripts/setup installs it.
func playwrightCLI(t *testing.T) string {
	path, err := filepath.Abs("node/node_modules/@playwright/mcp/cli.js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("@playwright/mcp is not installed (run scripts/setup): %v", err)
	}
	return path
}

// bigPage serves a page whose accessibility snapshot is well over 64 KiB,
// with a button that changes the page when clicked.
func bigPage(t *testing.T) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Inventory</title></head><body><h1>Inventory</h1>`)
	b.WriteString(`<button onclick="document.getElementById('s').textContent='Saved!'">Save all</button><p id="s">Unsaved</p><ul>`)
	for i := 0; i < 1500; i++ {
		fmt.Fprintf(&b, "<li>Item %04d: a line of text long enough to weigh something</li>", i)
	}
	b.WriteString(`</ul></body></html>`)
	page := b.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, page)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

var refPattern = regexp.MustCompile(`button "Save all" \[ref=(e\d+)\]`)

func playwrightServer(t *testing.T) mcpServer {
	return mcpServer{name: "@playwright/mcp", command: playwrightCommand(t),
		session: func(t *testing.T, ctx context.Context, cs *mcp.ClientSession) []string {
			url := bigPage(t)
			var called []string
			call := func(name string, args map[string]any) string {
				t.Helper()
				called = append(called, name)
				return callText(t, ctx, cs, name, args)
			}
			call("browser_navigate", map[string]any{"url": url})
			snap := call("browser_snapshot", map[string]any{})
			m := refPattern.FindStringSubmatch(snap)
			if m == nil {
				t.Fatalf("no Save button in the snapshot:\n%.2000s", snap)
			}
			call("browser_click", map[string]any{"element": "Save all button", "target": m[1]})
			if after := call("browser_snapshot", map[string]any{}); !strings.Contains(after, "Saved!") {
				t.Fatalf("the click did not change the page:\n%.1000s", after)
			}
			call("browser_close", map[string]any{})
			return called
		}}
}

// TestRecordInFrontOfRealServers puts the rote binary, offering no
// playbooks, between the go-sdk MCP client and (a) @playwright/mcp
// driving Chromium, (b) our fixture server. The server is wrapped in tee, so the test sees the bytes on both
// sides of the proxy in the same run.
func TestRecordInFrontOfRealServers(t *testing.T) {
	t.Parallel()
	for _, srv := range []mcpServer{playwrightServer(t), fixtureServer()} {
		t.Run(srv.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			dir := t.TempDir()
			serverIn, serverOut := filepath.Join(dir, "server.in"), filepath.Join(dir, "server.out")
			wrapped := append([]string{"sh", "-c", `in=$1; out=$2; shift 2; tee "$in" | "$@" | tee "$out"`, "sh", serverIn, serverOut}, srv.command...)
			// Offering playbooks adds to the initialize and tools/list
			// answers (tools.listChanged, the offered tools): the proxy's
			// own traffic is byte for byte the server's without it.
			rec := startRecording(t, dir, srv.env, []string{"--task", "e2e", "--target", "local", "--offer=false"}, wrapped...)
			tt := &teeTransport{r: rec}
			client := mcp.NewClient(&mcp.Implementation{Name: "rote-e2e", Version: "1.0"}, nil)
			cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(tt), Writer: tt}, nil)
			if err != nil {
				t.Fatalf("connect: %v\n%s", err, rec.stderr)
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			called := srv.session(t, ctx, cs)
			cs.Close()
			if err := rec.cmd.Wait(); err != nil {
				t.Logf("rote record exited: %v\n%s", err, rec.stderr)
			}

			// Byte-identical in both directions.
			gotIn, _ := os.ReadFile(serverIn)
			gotOut, _ := os.ReadFile(serverOut)
			if !bytes.Equal(gotIn, tt.sent.Bytes()) {
				t.Fatalf("server read %d bytes, client sent %d: not identical", len(gotIn), tt.sent.Len())
			}
			if !bytes.Equal(gotOut, tt.received.Bytes()) {
				t.Fatalf("client received %d bytes, server wrote %d: not identical", tt.received.Len(), len(gotOut))
			}

			b, err := bus.Open(ctx, bus.Config{DataDir: filepath.Join(dir)})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			envs, err := b.Runs().ReadRun(ctx, rec.runID)
			if err != nil {
				t.Fatal(err)
			}
			results := resultsByID(t, gotOut)
			var names []string
			spilled := 0
			var fingerprint string
			for _, env := range envs {
				switch e := env.Event.(type) {
				case *schema.ToolCall:
					names = append(names, e.Tool)
					raw, ok := results[string(e.RequestID)]
					if !ok || schema.Digest(raw) != e.ResultDigest || len(raw) != e.ResultSize {
						t.Errorf("%s (id %s): digest %s does not match the %d result bytes the server sent", e.Tool, e.RequestID, e.ResultDigest, len(raw))
					}
					if e.Duration <= 0 {
						t.Errorf("%s: duration %v", e.Tool, e.Duration)
					}
					if e.BlobRef != "" {
						blob, err := b.Runs().Blob(ctx, e.BlobRef)
						if err != nil || !bytes.Equal(blob, raw) {
							t.Errorf("%s: blob %s not retrievable or different: %v", e.Tool, e.BlobRef, err)
						}
						spilled++
					}
				case *schema.Inventory:
					fingerprint = e.Fingerprint
				case *schema.RunFinished:
					if e.Fingerprint == "" || e.Fingerprint != fingerprint {
						t.Errorf("manifest fingerprint %q, last inventory %q", e.Fingerprint, fingerprint)
					}
				}
			}
			if strings.Join(names, ",") != strings.Join(called, ",") {
				t.Fatalf("calls in the log %v, client made %v", names, called)
			}
			if spilled == 0 {
				t.Fatal("no result over 64 KiB went to the blob store")
			}
		})
	}
}

// resultsByID maps each response id in a server's output to the exact
// bytes of its result (or error) member.
func resultsByID(t *testing.T, out []byte) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID == nil {
			continue
		}
		if msg.Result != nil {
			m[string(msg.ID)] = msg.Result
		} else if msg.Error != nil {
			m[string(msg.ID)] = msg.Error
		}
	}
	return m
}
