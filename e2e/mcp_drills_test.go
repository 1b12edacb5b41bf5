package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/rote-agent/rote/portal"
)

// drillFlags are the parameters of the portal's drill of seed.
func drillFlags(seed int) []string {
	d := portal.DrillFor(seed)
	return []string{"--param", "seed=" + strconv.Itoa(seed), "--param", "button=" + d.Button, "--param", "date=" + d.Date,
		"--param", "quantity=" + d.Quantity, "--param", "item=" + d.Item}
}

// TestDrillsFollowTheInstruction learns one of the portal's drills
// (press the button the instruction names, set a date and a quantity,
// pick an item, submit) through @playwright/mcp and through rote mcp
// browser, and replays it on drills of other seeds with their values:
// every drill submitted must be right by the portal's own grading (a
// stop that submitted nothing is no wrong outcome, but these pages
// differ only in the values the instruction names: every one must
// replay). A replay that kept the form address of the learned drill
// stopped on every other one.
func TestDrillsFollowTheInstruction(t *testing.T) {
	long(t, "drills through both browser MCP servers")
	t.Parallel()
	const learned = 101
	for _, srv := range []struct {
		name    string
		command serverCommand
		drive   func(c *rawClient, base string, d portal.Drill)
	}{
		{"@playwright/mcp", playwrightMCP, func(c *rawClient, base string, d portal.Drill) {
			t := c.t
			c.text("browser_navigate", map[string]any{"url": base + "/login"})
			snap := c.text("browser_snapshot", map[string]any{})
			c.text("browser_type", map[string]any{"element": "Username", "target": snapshotRef(t, snap, "textbox", "Username"), "text": portal.Username})
			c.text("browser_type", map[string]any{"element": "Password", "target": snapshotRef(t, snap, "textbox", "Password"), "text": portal.Password})
			c.text("browser_click", map[string]any{"element": "Sign in", "target": snapshotRef(t, snap, "button", "Sign in")})
			c.text("browser_navigate", map[string]any{"url": fmt.Sprintf("%s/drills/%d", base, d.Seed)})
			snap = c.text("browser_snapshot", map[string]any{})
			c.text("browser_click", map[string]any{"element": d.Button, "target": snapshotRef(t, snap, "button", d.Button)})
			snap = c.text("browser_snapshot", map[string]any{})
			c.text("browser_type", map[string]any{"element": "Date", "target": snapshotRef(t, snap, "textbox", "Date (YYYY-MM-DD)"), "text": d.Date})
			c.text("browser_type", map[string]any{"element": "Quantity", "target": snapshotRef(t, snap, "spinbutton", "Quantity"), "text": d.Quantity})
			c.text("browser_select_option", map[string]any{"element": "Item", "target": snapshotRef(t, snap, "combobox", "Item"), "values": []string{d.Item}})
			c.text("browser_click", map[string]any{"element": "Submit", "target": snapshotRef(t, snap, "button", "Submit")})
			c.text("browser_snapshot", map[string]any{})
		}},
		{"rote mcp browser", roteBrowserServer, func(c *rawClient, base string, d portal.Drill) {
			t := c.t
			page := c.text("navigate", map[string]any{"url": base + "/login"})
			c.text("fill", map[string]any{"target": roteID(t, page, "textbox", "Username"), "value": portal.Username})
			c.text("fill", map[string]any{"target": roteID(t, page, "textbox", "Password"), "value": portal.Password})
			c.text("click", map[string]any{"target": roteID(t, page, "button", "Sign in")})
			page = c.text("navigate", map[string]any{"url": fmt.Sprintf("%s/drills/%d", base, d.Seed)})
			c.text("click", map[string]any{"target": roteID(t, page, "button", d.Button)})
			page = c.text("observe", map[string]any{"full": true})
			c.text("fill", map[string]any{"target": roteID(t, page, "textbox", "Date (YYYY-MM-DD)"), "value": d.Date})
			c.text("fill", map[string]any{"target": roteID(t, page, "spinbutton", "Quantity"), "value": d.Quantity})
			c.text("select", map[string]any{"target": roteID(t, page, "combobox", "Item"), "value": d.Item})
			c.text("click", map[string]any{"target": roteID(t, page, "button", "Submit")})
			c.text("done", map[string]any{"reason": "submitted"})
		}},
	} {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			base, site := portalSite(t, "")
			dir := t.TempDir()
			server := srv.command(t, dir)
			d := portal.DrillFor(learned)
			args := append([]string{"--task", "drill", "--text", fmt.Sprintf("Sign in, open drill %d and %s", learned, strings.ToLower(d.Instruction()[:1])+d.Instruction()[1:]),
				"--param", "username=" + portal.Username, "--secret", "password=" + portal.Password, "--target", "portal",
				"--verify", fmt.Sprintf("text_visible: Drill %d submitted", learned)}, drillFlags(learned)...)
			rec := recordSession(t, dir, args, server, "2025-06-18", func(c *rawClient) { srv.drive(c, base, d) })
			if got := site.State().Drills; len(got) != 1 || !got[0].Right() {
				t.Fatalf("the recorded session submitted %+v", got)
			}
			data := []string{"--data", dir}
			code, out := rote(t, dir, append(append(data, "promote", rec.runID, "--target", "portal", "--param", "password="+portal.Password, "--"), server...)...)
			if code != 0 || !strings.Contains(out, "promoted drill v1") {
				t.Fatalf("promote: exit %d\n%s", code, out)
			}
			var wrong []string
			replayed := 0
			for seed := 102; seed < 108; seed++ {
				site.Reset()
				args := append(append(append(data, "replay", "drill", "--target", "portal", "--param", "username="+portal.Username, "--param", "password="+portal.Password), drillFlags(seed)...), "--")
				code, out := rote(t, dir, append(args, server...)...)
				got := site.State().Drills
				switch {
				case code == 0 && len(got) == 1 && got[0].Right():
					replayed++
				case code != 0 && len(got) == 0:
					t.Logf("seed %d stopped:\n%s", seed, out)
				default:
					wrong = append(wrong, fmt.Sprintf("seed %d: exit %d, submitted %+v, want %+v\n%s", seed, code, got, portal.DrillFor(seed), out))
				}
			}
			t.Logf("%s: %d of 6 drills replayed right, %d wrong", srv.name, replayed, len(wrong))
			if len(wrong) > 0 {
				t.Fatalf("wrong outcomes:\n%s", strings.Join(wrong, "\n\n"))
			}
			if replayed != 6 {
				t.Errorf("%d of 6 drills stopped: nothing on their pages differs but the values the instruction names", 6-replayed)
			}
		})
	}
}
