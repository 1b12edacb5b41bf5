// Package replaytest is the conformance suite of replay.Dispatcher:
// the executor replays through the browser and through any MCP server
// alike, so every backend must behave the same wherever the executor
// relies on it. A backend's tests call TestDispatcher with a Backend
// that says how to open one and how its steps are written, as
// watermill's pubsub/tests does for its publishers.
package replaytest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/replay"
)

// Page is the page TestDispatcher drives: the environment under test
// must serve it at the URL TestDispatcher is given.
const Page = `<!doctype html><title>Form</title><main><h1>Order</h1>
<form method="post" action="/order">
<label for="n">Name</label><input id="n" name="name">
<label for="c">Color</label><select id="c" name="color"><option value="r">Red</option><option value="g">Green</option></select>
<input type="checkbox" id="g" name="gift"><label for="g">Gift wrap</label>
<label for="m">Message</label><textarea id="m" name="msg"></textarea>
<button>Place order</button></form>
<p id="hov" onmouseover="this.textContent='Hovered'">Hover target</p>
<div id="cover" style="position:fixed;inset:0;display:none;background:#fff8"></div>
<button onclick="document.getElementById('cover').style.display='block'">Show overlay</button>
<button>Delete</button><button>Delete</button>
</main>`

// Backend is one Dispatcher implementation under the suite.
type Backend struct {
	Name string
	// Open opens a dispatcher whose events belong to run runID; the
	// suite closes it.
	Open func(t *testing.T, runID string) replay.Dispatcher
	// Navigate is the step that loads url.
	Navigate func(url string) (tool string, args map[string]any, target *schema.Target)
	// Control is the step that does tool (fill, click, ...) to the
	// control with role and name, with args.
	Control func(tool, role, name string, args map[string]any) (string, map[string]any, *schema.Target)
	// UnknownTool is the code a tool the environment does not have
	// gives.
	UnknownTool error
}

// TestDispatcher runs the suite against be, whose environment serves
// Page at url, and returns the environment's fingerprint.
func TestDispatcher(t *testing.T, url string, be Backend) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	d := be.Open(t, "conformance-"+be.Name)
	defer d.Close(context.Background())

	fp, err := d.Fingerprint(ctx)
	again, _ := d.Fingerprint(ctx)
	if err != nil || schema.ValidateFingerprint(fp) != nil || fp != again {
		t.Fatalf("%s: fingerprint %q, again %q (%v)", be.Name, fp, again, err)
	}

	tool, args, target := be.Navigate(url)
	w, err := d.Dispatch(ctx, "open", tool, args, target)
	if err != nil || !strings.Contains(w.Text, "Order") {
		t.Fatalf("%s: navigate: %v, world text %q", be.Name, err, w.Text)
	}
	tool, args, target = be.Control("fill", "textbox", "Name", map[string]any{"value": "Ada"})
	if w, err = d.Dispatch(ctx, "name", tool, args, target); err != nil {
		t.Fatalf("%s: fill: %v", be.Name, err)
	}
	if !shows(w, "Ada") {
		t.Fatalf("%s: the world after fill does not show the value: %+v", be.Name, w)
	}
	if now, err := d.World(ctx); err != nil || !shows(now, "Ada") {
		t.Fatalf("%s: World() does not show the last state (%v)", be.Name, err)
	}

	var typed *schema.Error
	_, err = d.Dispatch(ctx, "x", "teleport", map[string]any{}, nil)
	if !errors.As(err, &typed) || !errors.Is(err, be.UnknownTool) {
		t.Fatalf("%s: unknown tool: %v, want %v", be.Name, err, be.UnknownTool)
	}
	tool, args, target = be.Control("click", "button", "Delete", nil)
	_, err = d.Dispatch(ctx, "del", tool, args, target)
	if !errors.As(err, &typed) || !strings.Contains(err.Error(), "ambiguous") {
		t.Fatalf("%s: an ambiguous click is not a typed refusal: %v", be.Name, err)
	}
	if now, err := d.World(ctx); err != nil || !shows(now, "Ada") {
		t.Fatalf("%s: a refused step changed the world (%v)", be.Name, err)
	}
	return fp
}

// shows reports whether a value is visible in a world: as a node's value
// on a page, or in a tool result's text.
func shows(w schema.World, value string) bool {
	return strings.Contains(w.Text, value) || slices.ContainsFunc(w.Nodes, func(n schema.WorldNode) bool { return n.Value == value })
}
