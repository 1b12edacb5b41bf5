package e2e

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/schema"
)

// TestTypedSecretsAreMasked replays a playbook that types a secret into a
// plain text field of a page that shows it back, sends it in a GET form
// (so it is in the next page's address) and echoes it URL-encoded and in
// base64. The replay verifies; what it saw shows {{token}}; and no form
// of the secret is anywhere in the run log or the blob store.
func TestTypedSecretsAreMasked(t *testing.T) {
	t.Parallel()
	const secret = "tok-3x4mple&Z/9"
	page := `<!doctype html><title>Token</title><main><h1>Token</h1>
<form action="/show" method="get"><label>Token <input name="token" type="text"></label>
<output aria-label="Preview"></output><button>Show</button></form>
<script>document.querySelector('input').addEventListener('input', e => document.querySelector('output').textContent = e.target.value)</script></main>`
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/show" {
			tok := r.URL.Query().Get("token")
			fmt.Fprintf(w, `<!doctype html><title>Shown %s</title><main><h1>Your token</h1><p>Your token is %s</p><p>Encoded %s</p><p>Base64 %s</p><a href="/use?t=%s">Use it</a></main>`,
				tok, tok, url.QueryEscape(tok), base64.StdEncoding.EncodeToString([]byte(tok)), url.QueryEscape(tok))
			return
		}
		fmt.Fprint(w, page)
	}))
	t.Cleanup(site.Close)
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
