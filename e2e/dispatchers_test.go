package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/replay"
	"github.com/rote-agent/rote/services/replay/replaytest"
)

// TestDispatcherConformance runs replaytest's suite against both
// backends, the browser actuator and an MCP server (rote mcp browser),
// which must not share a fingerprint.
func TestDispatcherConformance(t *testing.T) {
	t.Parallel()
	b := planes(t)
	web := newSite(t, map[string]string{"/": replaytest.Page})
	navigate := func(url string) (string, map[string]any, *schema.Target) {
		return "navigate", map[string]any{"url": url}, nil
	}
	browserFP := replaytest.TestDispatcher(t, web.URL+"/", replaytest.Backend{
		Name: "browser",
		Open: func(t *testing.T, runID string) replay.Dispatcher {
			d, err := replay.OpenBrowserDispatcher(testContext(t), b.Browsers(), runID, web.URL)
			if err != nil {
				t.Fatal(err)
			}
			return d
		},
		Navigate: navigate,
		Control: func(tool, role, name string, args map[string]any) (string, map[string]any, *schema.Target) {
			return tool, args, &schema.Target{Role: role, Name: name}
		},
		Features: replaytest.Features{UnknownTool: schema.ErrOutOfSet, Pages: true, Writes: true, Resolves: true, Looks: true, Acts: true},
	})
	mcpFP := replaytest.TestDispatcher(t, web.URL+"/", replaytest.Backend{
		Name: "mcp",
		Open: func(t *testing.T, runID string) replay.Dispatcher {
			d, err := replay.OpenMCPDispatcher(testContext(t), replay.MCPConfig{
				Command: []string{roteBinary, "--data", t.TempDir(), "mcp", "browser"}, Runs: b.Runs(), RunID: runID})
			if err != nil {
				t.Fatal(err)
			}
			return d
		},
		Navigate: navigate,
		Control: func(tool, role, name string, args map[string]any) (string, map[string]any, *schema.Target) {
			all := map[string]any{"role": role, "name": name}
			for k, v := range args {
				all[k] = v
			}
			return tool, all, nil
		},
		// rote mcp browser has no browser_evaluate to read a control's
		// contract with: its dispatcher names no control it resolved.
		Features: replaytest.Features{UnknownTool: schema.ErrNotFound, Writes: true},
	})
	if browserFP != "" && browserFP == mcpFP {
		t.Fatal("two different environments share a fingerprint")
	}
}

// TestReplayOverMCP replays the MCP flavour of B1 against `rote mcp
// browser`: each step a tool call, recorded in the replay's run.
func TestReplayOverMCP(t *testing.T) {
	t.Parallel()
	n := start(t, nil)
	b := n.Bus()
	base, site := portalSite(t, "")
	p := examplePlaybook(t, "mcp-download-latest-report")
	params := login(map[string]string{"base": base})
	open, err := n.Opener(node.Environment{Server: []string{roteBinary, "--data", t.TempDir(), "mcp", "browser"}}, p, params)
	if err != nil {
		t.Fatal(err)
	}
	res, err := n.Executor().Replay(testContext(t), replay.Request{Playbook: p, Params: params, AllowUnbound: true, Open: open})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != schema.OutcomeSuccess || len(res.Usage) != 0 {
		t.Fatalf("outcome %s at %s: %v (usage %v)", res.Outcome, res.FailedStep, res.Reason, res.Usage)
	}
	if st := site.State(); !slices.Equal(st.Downloads, []string{"RPT-2026-11"}) {
		t.Fatalf("downloads %v", st.Downloads)
	}
	calls, err := b.Runs().Read(testContext(t), schema.RunSubject(res.RunID, schema.KindCalls))
	if err != nil || len(calls) != len(p.Steps) {
		t.Fatalf("%d tool calls recorded for %d steps (%v)", len(calls), len(p.Steps), err)
	}
	for _, c := range calls {
		if strings.Contains(string(c.Event.(*schema.ToolCall).Arguments), "correct-horse-battery") {
			t.Fatal("the password was recorded in clear")
		}
	}
}
