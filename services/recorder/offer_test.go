package recorder

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
)

// fakeOffer offers rote_twice, which echoes its text twice through the
// server, and rote_hang, which waits until it is cancelled; after more()
// it offers rote_more too.
type fakeOffer struct {
	changed chan struct{}

	mu        sync.Mutex
	extra     bool
	envs      []schema.Environment
	cancelled chan struct{}
}

func (f *fakeOffer) Tools(_ context.Context, env schema.Environment) ([]schema.ToolSpec, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.envs = append(f.envs, env)
	tools := []schema.ToolSpec{
		{Name: "rote_twice", Description: "echo twice", InputSchema: schema.RawJSON(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
		{Name: "rote_hang", Description: "wait", InputSchema: schema.RawJSON(`{"type":"object"}`)},
	}
	if f.extra {
		tools = append(tools, schema.ToolSpec{Name: "rote_more", Description: "more", InputSchema: schema.RawJSON(`{"type":"object"}`)})
	}
	return tools, nil
}

func (f *fakeOffer) more() {
	f.mu.Lock()
	f.extra = true
	f.mu.Unlock()
	f.changed <- struct{}{}
}

func (f *fakeOffer) Changed() <-chan struct{} { return f.changed }

func (f *fakeOffer) Call(ctx context.Context, tool string, args json.RawMessage, down Downstream) json.RawMessage {
	if tool == "rote_hang" {
		// Its request outlives the client's patience: the late answer
		// must not reach the client.
		down.Call(ctx, "tools/call", map[string]any{"name": "slow", "arguments": map[string]any{"ms": 600, "text": "late"}})
		<-ctx.Done()
		close(f.cancelled)
		return json.RawMessage(`{"content":[]}`)
	}
	var a struct {
		Text string `json:"text"`
	}
	json.Unmarshal(args, &a)
	down.Secrets([]string{"zebra-secret"})
	var parts []string
	for range 2 {
		raw, err := down.Call(ctx, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": a.Text}})
		if err != nil {
			return json.RawMessage(`{"isError":true,"content":[{"type":"text","text":"` + err.Error() + `"}]}`)
		}
		var r mcp.CallToolResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return json.RawMessage(`{"isError":true,"content":[]}`)
		}
		parts = append(parts, r.Content[0].(*mcp.TextContent).Text)
	}
	_, err := down.Call(ctx, "no/such/method", nil)
	out, _ := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(parts, "|") + " on " + down.Env.Identity.Server + "; " + err.Error()}}})
	return out
}

// TestOfferedToolsRunOverTheSession: with an Offer, the client sees the
// offered tools after the server's own and a tools.listChanged
// capability; a call to one is answered by the offer, whose own calls go
// to the server on the same session and never reach the client or the
// recording (which notes the offered call and its answer, not its
// arguments), and the secrets it was given are redacted from the
// client's later calls; a client's cancellation reaches the offered call; a change
// of the offer sends notifications/tools/list_changed. The inventory,
// and so the fingerprint, is the server's alone.
func TestOfferedToolsRunOverTheSession(t *testing.T) {
	ctx := testCtx(t)
	b := bustest.Start(t)
	offer := &fakeOffer{changed: make(chan struct{}, 1), cancelled: make(chan struct{})}
	h := startRecorder(t, attach(b), fixture(t), func(c *Config) { c.Offer = offer })

	listChanged := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { listChanged <- struct{}{} }})
	var read lockedBytes
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(io.TeeReader(h.out, &read)), Writer: h.in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if caps := cs.InitializeResult().Capabilities; caps.Tools == nil || !caps.Tools.ListChanged {
		t.Errorf("the initialize answer does not say the tool list changes: %+v", caps.Tools)
	}
	names := func() []string {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tool := range res.Tools {
			out = append(out, tool.Name)
		}
		return out
	}
	if got := strings.Join(names(), ","); !strings.HasPrefix(got, "big,") || !strings.HasSuffix(got, ",slow,rote_twice,rote_hang") {
		t.Fatalf("tools listed: %s", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "rote_twice", Arguments: map[string]any{"text": "ab"}})
	if err != nil || res.IsError {
		t.Fatalf("rote_twice: %v %+v", err, res)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; !strings.HasPrefix(got, "ab|ab on rote-fixture; no/such/method: JSON-RPC error -32601") {
		t.Fatalf("rote_twice answered %q", got)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "mine zebra-secret"}}); err != nil {
		t.Fatal(err)
	}

	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = cs.CallTool(short, &mcp.CallToolParams{Name: "rote_hang", Arguments: map[string]any{}})
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a cancelled offered call: %v", err)
	}
	select {
	case <-offer.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the client's cancellation did not reach the offered call")
	}

	time.Sleep(700 * time.Millisecond)
	if got := read.String(); strings.Contains(got, `"id":"rote-`) || strings.Contains(got, `"text":"late"`) {
		t.Fatalf("the client read an answer to the proxy's own request:\n%s", got)
	}

	offer.more()
	select {
	case <-listChanged:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed after the offer changed")
	}
	if got := strings.Join(names(), ","); !strings.HasSuffix(got, ",rote_more") {
		t.Fatalf("tools listed after the change: %s", got)
	}
	cs.Close()
	h.wait(t)

	f, err := b.Runs().Fold(ctx, h.rec.RunID())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range f.Calls {
		got = append(got, c.Tool+" "+string(c.Arguments))
	}
	if len(f.Calls) != 2 || f.Calls[0].Tool != "rote_twice" || !f.Calls[0].Offered || len(f.Calls[0].Arguments) != 0 || !strings.Contains(string(f.Calls[0].Result), "ab|ab") ||
		f.Calls[1].Tool != "echo" || f.Calls[1].Offered || !strings.Contains(string(f.Calls[1].Arguments), "mine") ||
		strings.Contains(string(f.Calls[1].Arguments)+string(f.Calls[1].Result), "zebra-secret") {
		t.Fatalf("the recording holds %v, want the offered call (its answer, no arguments) and the client's echo, the secret redacted", got)
	}
	if last := f.LastResult(); last == nil || last.Tool != "echo" {
		t.Errorf("the last result to verify is %+v, want the server's echo", last)
	}
	if n := len(f.Inventories); n == 0 || len(f.Inventories[n-1].Environment.Tools) != 7 {
		t.Fatalf("the inventory is not the server's own seven tools: %+v", f.Inventories)
	}
	if f.Finished.ToolCalls["echo"] != 1 || f.Finished.ToolCalls["rote_twice"] != 1 || len(f.Finished.ToolCalls) != 2 {
		t.Errorf("the manifest counts %v", f.Finished.ToolCalls)
	}
	offer.mu.Lock()
	defer offer.mu.Unlock()
	if env := offer.envs[0]; env.Identity.Server != "rote-fixture" || len(env.Tools) != 7 || env.Identity.Target != "test" {
		t.Errorf("the offer was asked for %+v", env.Identity)
	}
}

// lockedBytes is a buffer written by one goroutine and read by another.
type lockedBytes struct {
	mu sync.Mutex
	b  []byte
}

func (l *lockedBytes) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b = append(l.b, p...)
	return len(p), nil
}

func (l *lockedBytes) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}
