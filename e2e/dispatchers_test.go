package e2e

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/actuator"
)

// backend is one Dispatcher implementation under the conformance suite,
// with how its steps are written.
type backend struct {
	name        string
	open        func(t *testing.T, runID string) actuator.Dispatcher
	navigate    func(url string) (string, map[string]any, *schema.Target)
	control     func(tool, role, name string, args map[string]any) (string, map[string]any, *schema.Target)
	unknownTool error // the code an unknown tool gives
}

// browserBackend replays in Chromium through an actuator on b.
func browserBackend(b *bus.Bus, base string) backend {
	return backend{
		name: "browser",
		open: func(t *testing.T, runID string) actuator.Dispatcher {
			d, err := actuator.OpenBrowserDispatcher(testContext(t), b, runID, base)
			if err != nil {
				t.Fatal(err)
			}
			return d
		},
		navigate: func(url string) (string, map[string]any, *schema.Target) {
			return "navigate", map[string]any{"url": url}, nil
		},
		control: func(tool, role, name string, args map[string]any) (string, map[string]any, *schema.Target) {
			return tool, args, &schema.Target{Role: role, Name: name}
		},
		unknownTool: schema.ErrOutOfSet,
	}
}

// mcpBackend replays against `rote mcp browser`, an MCP server.
func mcpBackend(b *bus.Bus) backend {
	return backend{
		name: "mcp",
		open: func(t *testing.T, runID string) actuator.Dispatcher {
			d, err := actuator.OpenMCPDispatcher(testContext(t), actuator.MCPConfig{
				Command: []string{roteBinary, "--data", t.TempDir(), "mcp", "browser"}, Bus: b, RunID: runID})
			if err != nil {
				t.Fatal(err)
			}
			return d
		},
		navigate: func(url string) (string, map[string]any, *schema.Target) {
			return "navigate", map[string]any{"url": url}, nil
		},
		control: func(tool, role, name string, args map[string]any) (string, map[string]any, *schema.Target) {
			all := map[string]any{"role": role, "name": name}
			for k, v := range args {
				all[k] = v
			}
			return tool, all, nil
		},
		unknownTool: schema.ErrNotFound,
	}
}

// TestDispatcherConformance runs one suite against both backends: the
// browser actuator and an MCP server.
func TestDispatcherConformance(t *testing.T) {
	b := planes(t)
	web := newSite(t, map[string]string{"/": actionsPage})
	fingerprints := map[string]string{}
	for _, be := range []backend{browserBackend(b, web.URL), mcpBackend(b)} {
		t.Run(be.name, func(t *testing.T) {
			ctx := testContext(t)
			runID := bus.NewID()
			d := be.open(t, runID)
			defer d.Close(context.Background())

			fp, err := d.Fingerprint(ctx)
			again, _ := d.Fingerprint(ctx)
			if err != nil || schema.ValidateFingerprint(fp) != nil || fp != again {
				t.Fatalf("fingerprint %q, again %q (%v)", fp, again, err)
			}
			fingerprints[be.name] = fp

			tool, args, target := be.navigate(web.URL + "/")
			w, err := d.Dispatch(ctx, "open", tool, args, target)
			if err != nil || !strings.Contains(w.Text, "Order") {
				t.Fatalf("navigate: %v, world text %q", err, w.Text)
			}
			tool, args, target = be.control("fill", "textbox", "Name", map[string]any{"value": "Ada"})
			if w, err = d.Dispatch(ctx, "name", tool, args, target); err != nil {
				t.Fatalf("fill: %v", err)
			}
			if !worldShows(w, "Ada") {
				t.Fatalf("the world after fill does not show the value: %+v", w)
			}
			if now, err := d.World(ctx); err != nil || !worldShows(now, "Ada") {
				t.Fatalf("World() does not show the last state (%v)", err)
			}

			var typed *schema.Error
			_, err = d.Dispatch(ctx, "x", "teleport", map[string]any{}, nil)
			if !errors.As(err, &typed) || !errors.Is(err, be.unknownTool) {
				t.Fatalf("unknown tool: %v", err)
			}
			tool, args, target = be.control("click", "button", "Delete", nil)
			_, err = d.Dispatch(ctx, "del", tool, args, target)
			if !errors.As(err, &typed) || !strings.Contains(err.Error(), "ambiguous") {
				t.Fatalf("an ambiguous click is not a typed refusal: %v", err)
			}
		})
	}
	if fingerprints["browser"] == fingerprints["mcp"] {
		t.Fatal("two different environments share a fingerprint")
	}
}

// worldShows reports whether a value is visible in a world: as a node's
// value on a page, or in a tool result's text.
func worldShows(w schema.World, value string) bool {
	return strings.Contains(w.Text, value) || slices.ContainsFunc(w.Nodes, func(n schema.WorldNode) bool { return n.Value == value })
}

// TestReplayOverMCP replays the MCP flavour of B1 against `rote mcp
// browser`: each step a tool call, recorded in the replay's run.
func TestReplayOverMCP(t *testing.T) {
	b := bustest.Start(t)
	base, site := portalSite(t, "")
	ex := actuator.NewExecutor(actuator.ExecutorConfig{SecretKey: []byte("k")}, b)
	p := examplePlaybook(t, "mcp-download-latest-report")
	res, err := ex.Replay(testContext(t), actuator.Replay{
		Playbook: p, Params: login(map[string]string{"base": base}), AllowUnbound: true,
		Open: func(ctx context.Context, runID string) (actuator.Dispatcher, error) {
			return actuator.OpenMCPDispatcher(ctx, actuator.MCPConfig{Command: []string{roteBinary, "--data", t.TempDir(), "mcp", "browser"}, Bus: b, RunID: runID,
				Redactor: schema.Redactor{Key: []byte("k"), Values: []string{"correct-horse-battery"}}})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != schema.OutcomeSuccess || len(res.Usage) != 0 {
		t.Fatalf("outcome %s at %s: %v (usage %v)", res.Outcome, res.FailedStep, res.Reason, res.Usage)
	}
	if st := site.State(); !slices.Equal(st.Downloads, []string{"RPT-2026-11"}) {
		t.Fatalf("downloads %v", st.Downloads)
	}
	calls, err := b.Read(testContext(t), schema.RunSubject(res.RunID, schema.KindCalls))
	if err != nil || len(calls) != len(p.Steps) {
		t.Fatalf("%d tool calls recorded for %d steps (%v)", len(calls), len(p.Steps), err)
	}
	for _, c := range calls {
		if strings.Contains(string(c.Event.(*schema.ToolCall).Arguments), "correct-horse-battery") {
			t.Fatal("the password was recorded in clear")
		}
	}
}
