package e2e

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestObserveCommand runs `rote observe URL --json` and `rote observe URL`.
func TestObserveCommand(t *testing.T) {
	web := newSite(t, map[string]string{"/": actionsPage})
	code, out := rote(t, t.TempDir(), "observe", web.URL+"/", "--json")
	if code != 0 {
		t.Fatalf("observe --json: exit %d\n%s", code, out)
	}
	var got struct {
		Stats map[string]any `json:"stats"`
		Nodes []struct {
			ID, Role, Name string
		} `json:"nodes"`
		Render string `json:"render"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"dom_elements", "nodes", "actionable", "chars", "tokens", "capture_ms", "distill_ms"} {
		if _, ok := got.Stats[k]; !ok {
			t.Errorf("stats lack %s: %v", k, got.Stats)
		}
	}
	if len(got.Nodes) == 0 || got.Nodes[0].ID == "" || !strings.Contains(got.Render, `button "Place order"`) {
		t.Fatalf("observation: %+v", got)
	}
	code, out = rote(t, t.TempDir(), "observe", web.URL+"/")
	if code != 0 || !strings.Contains(out, `textbox "Name"`) || !strings.Contains(out, "DOM elements") {
		t.Fatalf("observe: exit %d\n%s", code, out)
	}
}

// TestFixtureServeCommand runs `rote fixture serve` and signs in.
func TestFixtureServeCommand(t *testing.T) {
	cmd := exec.Command(roteBinary, "fixture", "serve", "--addr", "127.0.0.1:0", "--variant", "cosmetic")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "portal (cosmetic) on http://") {
		t.Fatalf("first line %q (%v)", line, err)
	}
	base := strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(line, "portal (cosmetic) on ")), "/")
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(base + "/login")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /login: %v %v", err, resp)
	}
	resp.Body.Close()
	if code, msg := rote(t, t.TempDir(), "fixture", "serve", "--variant", "bogus"); code != 2 || !strings.Contains(msg, "variants: cosmetic") {
		t.Fatalf("unknown variant: exit %d %s", code, msg)
	}
}
