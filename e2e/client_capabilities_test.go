package e2e

//lint:file-ignore SA1019 the test's client declares roots and sampling, deprecated from protocol 2026-07-28, as clients still do

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReplayDeclaresWhatTheRecordedClientDid: server-everything lists 13
// tools to a client that declares nothing and 16 to one that can sample,
// elicit and name roots. A session recorded by either is learned (its
// shadow replay's client declares what the recorded one did, so the
// fingerprints agree) and replayed with a new value (issue 38, item 7);
// a verify whose text holds a colon is read as that text (item 8).
func TestReplayDeclaresWhatTheRecordedClientDid(t *testing.T) {
	t.Parallel()
	everything := referenceServer(t, "mcp-server-everything", world(t.TempDir()))
	everything = append(everything, "stdio")
	full := &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{ListChanged: true}},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return nil, fmt.Errorf("no model here")
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	}
	for _, c := range []struct {
		name  string
		opts  *mcp.ClientOptions
		tools int
	}{{"none", &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}, 13}, {"all", full, 16}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			data := []string{"--data", dir}
			rec := startRecording(t, dir, nil, []string{"--task", "echo", "--text", "echo the word hello", "--verify", "text_visible: Echo: hello"}, everything...)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs := rec.connectWith(t, ctx, c.opts)
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) != c.tools {
				t.Fatalf("tools listed to a client declaring %s: %d, %v", c.name, len(tools.Tools), err)
			}
			callText(t, ctx, cs, "echo", map[string]any{"message": "hello"})
			cs.Close()
			rec.cmd.Wait() // the server outlives its input, waiting on the client gone: asked to stop
			code, out := rote(t, dir, append(append(data, "learn", rec.runID, "--"), everything...)...)
			if code != 0 || !strings.Contains(out, `parameter message="hello" inferred`) || !strings.Contains(out, "promoted echo v1") {
				t.Fatalf("learn: exit %d\n%s", code, out)
			}
			code, out = rote(t, dir, append(append(data, "replay", "echo", "--param", "message=bye now", "--"), everything...)...)
			if code != 0 || !strings.Contains(out, "Echo: bye now") {
				t.Fatalf("replay: exit %d\n%s", code, out)
			}
		})
	}
}
