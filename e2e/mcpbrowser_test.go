package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
)

// TestMCPBrowserThroughTheRecorder drives `rote mcp browser` with the
// go-sdk MCP client, through `rote record`: our browser as an MCP server,
// recorded like any other.
func TestMCPBrowserThroughTheRecorder(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	web := newSite(t, map[string]string{"/": actionsPage})
	cmd := exec.Command(roteBinary, "--data", dir, "record", "--task", "order", "--", roteBinary, "--data", dir, "mcp", "browser", "--task", "order")
	cmd.Dir = dir
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return r.Content[0].(*mcp.TextContent).Text, r.IsError
	}
	listed, err := cs.ListTools(ctx, nil)
	if err != nil || len(listed.Tools) != len(tools.Browser()) {
		t.Fatalf("tools: %v (%d)", err, len(listed.Tools))
	}
	page, isErr := call("navigate", map[string]any{"url": web.URL + "/"})
	if isErr || !strings.Contains(page, "navigate ok") || !strings.Contains(page, `textbox "Name"`) {
		t.Fatalf("navigate:\n%s", page)
	}
	id := regexp.MustCompile(`(\S+) textbox "Name"`).FindStringSubmatch(page)[1]
	diff, isErr := call("fill", map[string]any{"target": id, "value": "Grace"})
	if isErr || !strings.Contains(diff, "fill ok (target by id)") || !strings.Contains(diff, `~ `+id+` = "Grace"`) {
		t.Fatalf("fill answered:\n%s", diff)
	}
	if len(diff) > 300 {
		t.Errorf("an action answered with %d characters: diffs, not page dumps", len(diff))
	}
	refusal, isErr := call("click", map[string]any{"role": "button", "name": "Delete"})
	if !isErr || !strings.Contains(refusal, "ambiguous") {
		t.Fatalf("ambiguous click answered:\n%s", refusal)
	}
	call("click", map[string]any{"role": "button", "name": "Place order"})
	if web.lastPost().Get("name") != "Grace" {
		t.Fatalf("server got %v", web.lastPost())
	}
	call("done", map[string]any{"reason": "order placed"})
	cs.Close()

	b, err := bus.Open(ctx, bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	runs, err := b.Runs().Read(ctx, schema.RunKindFilter(schema.KindStarted))
	if err != nil || len(runs) != 2 {
		t.Fatalf("want the recorder's run and the browser's run, got %d (%v)", len(runs), err)
	}
	modes := map[schema.RunMode]string{}
	for _, env := range runs {
		st := env.Event.(*schema.RunStarted)
		modes[st.Mode] = st.RunID
	}
	calls, _ := b.Runs().Read(ctx, schema.RunSubject(modes[schema.ModeRecord], schema.KindCalls))
	actions, _ := b.Runs().Read(ctx, schema.RunSubject(modes[schema.ModeAgent], schema.KindActions))
	if len(calls) != 5 || len(actions) != 5 {
		t.Fatalf("recorded %d tool calls and %d browser actions, want 5 and 5", len(calls), len(actions))
	}
}

// TestMCPBrowserServesInOrderAndSurvivesBadLines speaks raw JSON-RPC to
// rote mcp browser: a line that is not JSON is answered with a parse
// error, a batch or a null id with an invalid-request error, and the
// session goes on; calls sent all at once run one after
// another in the order they were sent; and a server killed mid-session
// leaves a run the next one marks aborted.
func TestMCPBrowserServesInOrderAndSurvivesBadLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	web := newSite(t, map[string]string{"/": actionsPage})
	cmd := exec.Command(roteBinary, "--data", dir, "mcp", "browser", "--task", "order")
	cmd.Dir = dir
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	out := bufio.NewReader(stdout)
	read := func() map[string]any {
		t.Helper()
		line, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		return m
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
	read()
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(stdin, "{this is not json\n")
	if m := read(); m["error"] == nil || m["id"] != nil {
		t.Fatalf("a malformed line answered %v", m)
	}
	// Lines the SDK would hang on or end the session over are invalid
	// requests: each is answered, and none ends the session or holds up
	// the next call.
	invalid := map[string]string{
		"a batch":            `[{"jsonrpc":"2.0","id":7,"method":"tools/list"}]`,
		"a null id":          `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"snapshot","arguments":{}}}`,
		"an empty object":    `{}`,
		"an id over 64 bits": `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/list"}`,
	}
	for what, line := range invalid {
		io.WriteString(stdin, line+"\n")
		m := read()
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != float64(-32600) || m["id"] != nil {
			t.Fatalf("%s answered %v, want an invalid-request error", what, m)
		}
	}
	call := func(id int, tool string, args string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`+"\n", id, tool, args)
	}
	io.WriteString(stdin, call(1, "navigate", fmt.Sprintf(`{"url":%q}`, web.URL+"/")))
	nav := read()
	page := fmt.Sprint(nav["result"])
	m := regexp.MustCompile(`(\S+) textbox "Name"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("navigate: %v", nav)
	}
	// Three calls in one write: fill A, fill B, place the order.
	io.WriteString(stdin, call(2, "fill", fmt.Sprintf(`{"target":%q,"value":"Ada"}`, m[1]))+call(3, "fill", fmt.Sprintf(`{"target":%q,"value":"Grace"}`, m[1]))+
		call(4, "click", `{"role":"button","name":"Place order"}`))
	var ids []float64
	for range 3 {
		r := read()
		ids = append(ids, r["id"].(float64))
		if res, _ := r["result"].(map[string]any); res == nil || res["isError"] == true {
			t.Fatalf("call %v: %v", r["id"], r)
		}
	}
	if got := web.lastPost().Get("name"); got != "Grace" || fmt.Sprint(ids) != "[2 3 4]" {
		t.Fatalf("pipelined calls: answers %v, the order was placed for %q: want 2 3 4 and Grace", ids, got)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	// The next session, under rote record, closes the dead one's run.
	next := exec.Command(roteBinary, "--data", dir, "record", "--", roteBinary, "--data", dir, "mcp", "browser")
	next.Dir = dir
	next.Stdin = strings.NewReader("")
	if b, err := next.CombinedOutput(); err != nil {
		t.Fatalf("the next session: %v\n%s", err, b)
	}
	code, list := rote(t, dir, "--data", dir, "runs", "list", "--all")
	if code != 0 || !strings.Contains(list, "aborted") || strings.Contains(list, "running") {
		t.Fatalf("runs after a killed session:\n%s", list)
	}
	// The session with no task that rote mcp browser opened under the
	// recording is left out of the plain list, and counted; the one named
	// "order", and the recording, are listed.
	if code, plain := rote(t, dir, "--data", dir, "runs", "list"); code != 0 || !strings.Contains(plain, "order") ||
		strings.Count(plain, "\n") != strings.Count(list, "\n") ||
		!strings.Contains(plain, "(1 session(s) of rote mcp browser with no task left out: --all lists them)") {
		t.Fatalf("runs list without --all:\n%s\nwith --all:\n%s", plain, list)
	}
}
