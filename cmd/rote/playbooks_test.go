package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
)

func TestPlaybooksCommands(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join("..", "..", "examples", "portal", "catalog-top-results.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: bad\nintent: x\nsteps:\n  - {id: a, kind: deterministic, tool: click, needs: [ghost]}\nverify: []\n"), 0o644)

	code, _, errOut := run(t, "--data", dir, "playbooks", "import", bad)
	if code != 2 || !strings.Contains(errOut, `line 4: $.steps[0].needs[0]: step a needs unknown step "ghost"`) || !strings.Contains(errOut, "$.verify: empty") {
		t.Fatalf("import of a bad file: exit %d\n%s", code, errOut)
	}
	for i := 1; i <= 2; i++ {
		if code, out, errOut := run(t, "--data", dir, "playbooks", "import", good); code != 0 || !strings.Contains(out, "as version") {
			t.Fatalf("import %d: exit %d %s %s", i, code, out, errOut)
		}
	}
	code, out, _ := run(t, "--data", dir, "playbooks", "list")
	if code != 0 || !strings.Contains(out, "catalog-top-results  unbound      2") {
		t.Fatalf("list:\n%s", out)
	}
	code, out, _ = run(t, "--data", dir, "playbooks", "show", "catalog-top-results", "-o", "yaml")
	if code != 0 || !strings.HasPrefix(out, "name: catalog-top-results") {
		t.Fatalf("show -o yaml:\n%s", out)
	}
	code, out, _ = run(t, "--data", dir, "playbooks", "show", "catalog-top-results", "--version", "1")
	if code != 0 || !strings.Contains(out, "version 1 (import") || !strings.Contains(out, `8. read  extract`) {
		t.Fatalf("show:\n%s", out)
	}
	if code, out, _ = run(t, "--data", dir, "playbooks", "rollback", "catalog-top-results", "--to", "1"); code != 0 || !strings.Contains(out, "version 3 is version 1 again") {
		t.Fatalf("rollback: %d %s", code, out)
	}
	code, out, _ = run(t, "--data", dir, "playbooks", "history", "catalog-top-results")
	if code != 0 || strings.Count(out, "\n") != 4 || !strings.Contains(out, "rollback to version 1") {
		t.Fatalf("history:\n%s", out)
	}
	if code, _, errOut = run(t, "--data", dir, "playbooks", "show", "nope"); code != 1 || !strings.Contains(errOut, "playbook not found") {
		t.Fatalf("show of a missing playbook: %d %s", code, errOut)
	}
	if code, _, errOut = run(t, "--data", dir, "replay", "catalog-top-results"); code != 2 || !strings.Contains(errOut, "needs the site to replay on (--url)") {
		t.Fatalf("browser replay without --url: %d %s", code, errOut)
	}
}

// TestPlaybooksMigrate: a playbook stored under a fingerprint that
// included the recording client's protocol version moves, with its
// history, to the fingerprint its server has now, as the run log's
// inventory records it; one bound the current way stays.
func TestPlaybooksMigrate(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	b, err := bus.Open(ctx, bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	specs := []schema.ToolSpec{{Name: "echo", InputSchema: schema.RawJSON(`{"type":"object"}`)}}
	env := schema.MCPEnvironment("fixture", "1.0.0", "t", specs)
	old := env
	old.Surfaces = map[string]string{"server_version": "1.0.0", "protocol": "2025-06-18"}
	oldFP, _ := schema.Fingerprint(old)
	newFP, _ := schema.Fingerprint(env)
	if _, err := b.Runs().Publish(ctx, &schema.Inventory{Meta: schema.Meta{ID: "R1-i", Time: time.Now()}, RunID: "R1", Seq: 1, Environment: old, Fingerprint: oldFP}); err != nil {
		t.Fatal(err)
	}
	p, err := schema.DecodePlaybook([]byte("name: greet\nintent: say hello\nfingerprint: " + oldFP + "\nsteps:\n  - {id: a, kind: deterministic, tool: echo, args: {text: hello}}\nverify: [{text_visible: hello}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := b.Playbooks().Put(ctx, p, "promote", ""); err != nil {
			t.Fatal(err)
		}
	}
	b.Close()
	code, out, errOut := run(t, "--data", dir, "playbooks", "migrate")
	if code != 0 || !strings.Contains(out, "greet: "+schema.ShortFingerprint(oldFP)+" -> "+schema.ShortFingerprint(newFP)+" (version 3)") || !strings.Contains(out, "1 playbook(s) rebound") {
		t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = run(t, "--data", dir, "playbooks", "history", "greet")
	if code != 0 || strings.Count(out, "\n") != 4 || !strings.Contains(out, "migrate") {
		t.Fatalf("history after migrate:\n%s", out)
	}
	if code, out, _ = run(t, "--data", dir, "playbooks", "migrate"); code != 0 || !strings.Contains(out, "0 playbook(s) rebound") {
		t.Fatalf("a second migrate: exit %d\n%s", code, out)
	}

	// A browser playbook learned before drag and set_value, on a site a
	// run in the log was started on, moves to the browser's fingerprint now.
	site := "http://127.0.0.1:8080"
	browserNow, _ := schema.Fingerprint(tools.BrowserEnvironment(site))
	browserOld := schema.LegacyFingerprints(tools.BrowserEnvironment(site))[0]
	b, err = bus.Open(ctx, bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	started := &schema.RunStarted{Meta: schema.Meta{ID: "R2-s", Time: time.Now()}, RunSpec: schema.RunSpec{RunID: "R2", Mode: schema.ModeAgent, Task: schema.TaskSpec{Target: site}, Fingerprint: browserOld}}
	if _, err := b.Runs().Publish(ctx, started); err != nil {
		t.Fatal(err)
	}
	p, err = schema.DecodePlaybook([]byte("name: visit\nintent: visit\nfingerprint: " + browserOld + "\nsteps:\n  - {id: a, kind: deterministic, tool: navigate, args: {url: /}}\nverify: [{url_contains: /}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Playbooks().Put(ctx, p, "promote", ""); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if code, out, errOut = run(t, "--data", dir, "playbooks", "migrate"); code != 0 || !strings.Contains(out, "visit: "+schema.ShortFingerprint(browserOld)+" -> "+schema.ShortFingerprint(browserNow)) {
		t.Fatalf("migrate a browser playbook: exit %d\n%s%s", code, out, errOut)
	}
}
