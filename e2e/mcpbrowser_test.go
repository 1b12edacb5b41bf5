package e2e

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
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
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 11 {
		t.Fatalf("tools: %v (%d)", err, len(tools.Tools))
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
