package e2e

import (
	"bufio"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/rote-agent/rote/bench/scripted"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/planner"
)

// secret is what the tests type into tokenSite: characters that every
// encoding changes.
const secret = "tok-3x4mple&Z/9"

// tokenSite is a page with a plain text field, Token, that shows what is
// typed back, and a GET form that puts it in the next page's address and
// echoes it in clear, in a link, and in every form of
// bustest.SecretEncodings (URL, base64 at any alignment, hex, HTML
// entities, JSON escapes, case, and two of these in a row).
func tokenSite(t *testing.T) *httptest.Server {
	page := `<!doctype html><title>Token</title><main><h1>Token</h1>
<form action="/show" method="get"><label>Token <input name="token" type="text"></label>
<output aria-label="Preview"></output><button>Show</button></form>
<script>document.querySelector('input').addEventListener('input', e => document.querySelector('output').textContent = e.target.value)</script></main>`
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/show" {
			tok := r.URL.Query().Get("token")
			fmt.Fprintf(w, `<!doctype html><title>Shown %s</title><main><h1>Your token</h1><p>Your token is %s</p><a href="/use?t=%s">Use it</a><ul>`,
				html.EscapeString(tok), html.EscapeString(tok), url.QueryEscape(tok))
			for _, e := range bustest.SecretEncodings(tok) {
				fmt.Fprintf(w, `<li><a href="/use?as=%s">%s</a></li>`, url.QueryEscape(e.How), html.EscapeString(e.Text))
			}
			fmt.Fprint(w, "</ul></main>")
			return
		}
		fmt.Fprint(w, page)
	}))
	t.Cleanup(site.Close)
	return site
}

// TestTypedSecretsAreMasked replays a playbook that types a secret into a
// plain text field of a page that shows it back, sends it in a GET form
// (so it is in the next page's address) and echoes it in every form
// bustest.SecretEncodings names, each a link the render shows. The replay verifies; what it saw shows {{token}}; and no form
// of the secret is anywhere in the run log or the blob store.
func TestTypedSecretsAreMasked(t *testing.T) {
	t.Parallel()
	site := tokenSite(t)
	n := start(t, nil, node.Browser...)
	p := decodeOrFail(t, `name: show-token
intent: show my token
params: {token: {type: secret, required: true}}
steps:
  - {id: open, kind: deterministic, tool: navigate, args: {url: /}}
  - {id: type, kind: deterministic, needs: [open], tool: fill, target: {role: textbox, name: Token}, args: {value: "{{token}}"}}
  - {id: show, kind: deterministic, needs: [type], tool: click, target: {role: button, name: Show}, expect: [{url_contains: /show}]}
verify: [{text_visible: Your token is}]
`)
	res := browserReplay(t, n, p, site.URL, map[string]string{"token": secret})
	if res.Outcome != schema.OutcomeSuccess {
		t.Fatalf("outcome %s at %s (%v)", res.Outcome, res.FailedStep, res.Reason)
	}
	ctx := testContext(t)
	obs, err := n.Bus().Runs().ReadRun(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	masked := false
	for _, e := range obs {
		if o, ok := e.Event.(*schema.BrowserObserved); ok && strings.Contains(o.Render, "{{token}}") {
			masked = true
		}
	}
	if !masked {
		t.Error("no observation shows {{token}} where the page showed the secret")
	}
	sc := bustest.ScanForSecret(t, n.Bus(), secret)
	t.Logf("scanned %d run-log messages and %d blobs (%d bytes) for %d forms of the secret", sc.Messages, sc.Blobs, sc.Bytes, sc.Forms)
}

// TestModelNeverSeesASecret: an agent types a secret parameter into the
// token page's plain field (the model names it {{token}}), the page shows
// it back in every form and puts it in the address; no request the model
// is sent, and nothing in the run log or blob store, holds any form of it.
func TestModelNeverSeesASecret(t *testing.T) {
	t.Parallel()
	site := tokenSite(t)
	var mu sync.Mutex
	var requests []string
	answers := []scripted.Call{
		{Name: "fill", Arguments: `{"role":"textbox","name":"Token","value":"{{token}}"}`},
		{Name: "click", Arguments: `{"role":"button","name":"Show"}`},
		{Name: "done", Arguments: `{"reason":"the token is shown"}`},
	}
	logs := &lockedBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg := node.Config{Roles: []string{node.Perception, node.Actuator, node.Planner}, Browser: sharedBrowser, Log: log}
	n := startWith(t, bustest.Start(t), cfg, scripted.OracleFunc(func(r scripted.Request) (scripted.Answer, error) {
		mu.Lock()
		defer mu.Unlock()
		var text strings.Builder
		for _, m := range r.Messages {
			text.WriteString(m.Content + "\n")
		}
		requests = append(requests, text.String())
		call := answers[min(len(requests), len(answers))-1]
		return scripted.Answer{Call: &call}, nil
	}))
	res, err := n.Agent().Run(testContext(t), planner.Task{Name: "show-token", Text: "show my token", StartURL: site.URL,
		Params: map[string]string{"token": secret}, Secrets: []string{"token"},
		Verify: []schema.Expect{{Op: schema.OpTextVisible, Arg: "Your token is"}}}, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != schema.OutcomeSuccess {
		t.Fatalf("outcome %s (%v)", res.Outcome, res.Reason)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(requests) < 3 || !strings.Contains(requests[len(requests)-1], "{{token}}") {
		t.Fatalf("%d model requests; the last shows no {{token}} where the page shows the secret:\n%s", len(requests), requests[len(requests)-1])
	}
	size := 0
	for i, r := range requests {
		for _, f := range bustest.SecretForms(secret) {
			if strings.Contains(r, string(f)) {
				t.Errorf("model request %d holds the secret as %q", i+1, f)
			}
		}
		size += len(r)
	}
	lines := logs.String()
	for _, f := range bustest.SecretForms(secret) {
		if strings.Contains(lines, string(f)) {
			t.Errorf("the debug log holds the secret as %q", f)
		}
	}
	if !strings.Contains(lines, "agent run finished") {
		t.Fatalf("the debug log misses the run:\n%s", lines)
	}
	sc := bustest.ScanForSecret(t, n.Bus(), secret)
	t.Logf("scanned %d model requests (%d bytes), %d bytes of debug log, %d run-log messages and %d blobs (%d bytes) for %d forms of the secret",
		len(requests), size, len(lines), sc.Messages, sc.Blobs, sc.Bytes, sc.Forms)
}

// TestRecordedBrowserSessionMasksSecrets: a client types a secret into the
// token page's plain field through rote mcp browser, recorded with
// --secret. The page shows it back in every form and puts it in the
// address; what the client reads shows {{token}}, and neither the
// recorder's run nor the browser session's holds any form of it.
func TestRecordedBrowserSessionMasksSecrets(t *testing.T) {
	t.Parallel()
	site := tokenSite(t)
	dir := t.TempDir()
	rec := startRecording(t, dir, nil, []string{"--task", "show-token", "--secret", "token=" + secret}, roteBinary, "--data", dir, "mcp", "browser")
	c := &rawClient{t: t, rec: rec, out: bufio.NewReader(rec.stdout), version: "2025-11-25"}
	c.handshake()
	page := c.text("navigate", map[string]any{"url": site.URL + "/"})
	c.text("fill", map[string]any{"target": roteID(t, page, "textbox", "Token"), "value": secret})
	shown := c.text("click", map[string]any{"target": roteID(t, page, "button", "Show")})
	if !strings.Contains(shown, "{{token}}") {
		t.Fatalf("the page the client reads does not show {{token}} where the secret is:\n%s", shown)
	}
	rec.stdin.Close()
	if err := rec.cmd.Wait(); err != nil {
		t.Fatalf("record: %v\n%s", err, rec.stderr)
	}
	b, err := bus.Open(testContext(t), bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	sc := bustest.ScanForSecret(t, b, secret)
	t.Logf("scanned %d run-log messages and %d blobs (%d bytes) for %d forms of the secret", sc.Messages, sc.Blobs, sc.Bytes, sc.Forms)
}
