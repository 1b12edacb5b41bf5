package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/portal"
)

// startMCPBrowser starts rote mcp browser on its own, as an MCP client
// configuration does, and returns its pipes (no run id: the session's run
// is found in the run log).
func startMCPBrowser(t *testing.T, dir string) *recording {
	t.Helper()
	cmd := exec.Command(roteBinary, "--data", dir, "mcp", "browser")
	cmd.Dir = dir
	return startPiped(t, cmd)
}

// TestMCPBrowserOffersTheSitesPlaybooks: a vendor registration done by
// hand through rote mcp browser, with no task and no secret declared, is
// listed by rote runs list and learned afterwards with rote learn (the
// password declared then, kept only as a digest). The next rote mcp
// browser session offers no playbook until its page is on the portal;
// then the client is told the list changed and rote_register-vendor
// registers another vendor on that page, as the portal's state confirms.
func TestMCPBrowserOffersTheSitesPlaybooks(t *testing.T) {
	t.Parallel()
	base, site := portalSite(t, "")
	dir := t.TempDir()
	data := []string{"--data", dir}

	first := startMCPBrowser(t, dir)
	c := &rawClient{t: t, rec: first, out: bufio.NewReader(first.stdout), version: "2025-11-25"}
	c.handshake()
	driveRoteBrowser(c, base)
	first.stdin.Close()
	if err := first.cmd.Wait(); err != nil {
		t.Fatalf("mcp browser: %v\n%s", err, first.stderr)
	}
	code, out := rote(t, dir, append(data, "runs", "list", "--json")...)
	var runs []struct {
		RunID string `json:"run_id"`
		Mode  string `json:"mode"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &runs) != nil || len(runs) != 1 || runs[0].Mode != "agent" {
		t.Fatalf("runs list: exit %d\n%s", code, out)
	}
	if code, out := rote(t, dir, append(data, "runs", "list")...); code != 0 || !strings.Contains(out, "(no task) fill×") {
		t.Fatalf("runs list does not show the session with its calls: exit %d\n%s", code, out)
	}
	task := fmt.Sprintf("Register the vendor %s, tax ID %s, email %s, phone %s, at %s in %s",
		recordedVendor.CompanyName, recordedVendor.TaxID, recordedVendor.Email, recordedVendor.Phone, recordedVendor.Street, recordedVendor.City)
	learn := append(append(data, "learn", runs[0].RunID, "--name", "register-vendor", "--text", task, "--secret", "password="+portal.Password,
		"--verify", "text_visible: Vendor Acme GmbH registered", "--param", "category=Supplier", "--param", "country=Germany"), vendorFlags(recordedVendor)...)
	code, out = rote(t, dir, learn...)
	for _, want := range []string{"verify PASS", "distilled register-vendor", "shadow replay of register-vendor against a browser on " + base, "promoted register-vendor v1"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("learn: exit %d, want %q in\n%s", code, want, out)
		}
	}
	if code, out := rote(t, dir, append(data, "playbooks", "show", "register-vendor", "-o", "yaml")...); code != 0 || strings.Contains(out, portal.Password) {
		t.Fatalf("the learned playbook: exit %d\n%s", code, out)
	}
	before := site.State().Vendors

	next := startMCPBrowser(t, dir)
	c = &rawClient{t: t, rec: next, out: bufio.NewReader(next.stdout), version: "2025-11-25"}
	c.handshake()
	if names := toolNames(c.tools()); strings.Contains(names, "rote_") {
		t.Fatalf("playbooks offered before the page is on their site: %s", names)
	}
	c.text("navigate", map[string]any{"url": base + "/login"})
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(c.notes, "notifications/tools/list_changed") {
		if time.Now().After(deadline) {
			t.Fatalf("no notifications/tools/list_changed once the page is on the portal; notifications read: %v", c.notes)
		}
		time.Sleep(100 * time.Millisecond)
		c.request("ping", map[string]any{})
	}
	if names := toolNames(c.tools()); !strings.Contains(names, "rote_register-vendor") {
		t.Fatalf("the portal's playbook is not offered on the portal: %s", names)
	}
	refused := c.playbook("rote_register-vendor", map[string]any{"company": "Evil Corp", "password": portal.Password})
	if !refused.IsError || refused.Structured.Reason.Code != "missing_param" {
		t.Errorf("a call without the required values: %+v", refused)
	}
	args := vendorArgs(replayedVendor)
	// Choices among the form's radios and options: parameters of a
	// browser playbook.
	args["category"], args["country"] = replayedVendor.Category, replayedVendor.Country
	result := c.playbook("rote_register-vendor", args)
	if result.IsError || result.Structured.Outcome != "success" || len(result.Structured.Verified) == 0 {
		t.Fatalf("the playbook tool did not verify: %+v\n%s", result, next.stderr)
	}
	registeredOnly(t, site, before, replayedVendor)
	// The agent carries on from the page the playbook left.
	if page := c.text("observe", map[string]any{"full": true}); !strings.Contains(page, "Vendor Initech AG registered") {
		t.Errorf("the session's page after the playbook:\n%.2000s", page)
	}
	next.stdin.Close()
	next.cmd.Wait()
	// The session's run holds the playbook's actions, the password only
	// as {{password}}.
	_, out = rote(t, dir, append(data, "runs", "list", "--json")...)
	runs = nil
	json.Unmarshal([]byte(out), &runs)
	last := ""
	for _, r := range runs {
		if r.Mode == "agent" {
			last = r.RunID
		}
	}
	export := t.TempDir()
	if code, out := rote(t, dir, append(data, "runs", "export", last, "--dir", export)...); code != 0 {
		t.Fatalf("runs export: exit %d\n%s", code, out)
	}
	log, err := os.ReadFile(filepath.Join(export, "trajectory.jsonl"))
	if err != nil || strings.Contains(string(log), portal.Password) || !strings.Contains(string(log), "Initech") || !strings.Contains(string(log), "{{password}}") {
		t.Fatalf("the second session's run holds the password, or not the replay's actions (%v):\n%.3000s", err, log)
	}
}
