package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/bus"
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
	messages, blobs, scanned := scanForSecret(t, n.Bus(), secret)
	t.Logf("scanned %d run-log messages and %d blobs (%d bytes): no form of the secret", messages, blobs, scanned)
}

// scanForSecret reads every message of ROTE_RUNS and every object of
// ROTE_BLOBS and fails the test where any form of secret (clear,
// JSON-escaped, URL-encoded, base64) appears.
func scanForSecret(t *testing.T, b *bus.Bus, secret string) (messages, blobs, scanned int) {
	t.Helper()
	ctx := testContext(t)
	raw := []byte(secret)
	var needles [][]byte
	for _, f := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret), base64.StdEncoding.EncodeToString(raw),
		base64.RawStdEncoding.EncodeToString(raw), base64.URLEncoding.EncodeToString(raw), base64.RawURLEncoding.EncodeToString(raw)} {
		quoted, _ := json.Marshal(f)
		needles = append(needles, []byte(f), quoted[1:len(quoted)-1])
	}
	check := func(where string, data []byte) {
		for _, n := range needles {
			if bytes.Contains(data, n) {
				t.Errorf("%s holds the secret as %q", where, n)
			}
		}
	}
	cons, err := b.JetStream().OrderedConsumer(ctx, bus.StreamRuns, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for left := info.NumPending; left > 0; left-- {
		m, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		check(m.Subject(), m.Data())
		messages++
		scanned += len(m.Data())
	}
	store, err := b.JetStream().ObjectStore(ctx, bus.BucketBlobs)
	if err != nil {
		t.Fatal(err)
	}
	list, err := store.List(ctx)
	if err != nil && err != jetstream.ErrNoObjectsFound {
		t.Fatal(err)
	}
	for _, o := range list {
		data, err := store.GetBytes(ctx, o.Name)
		if err != nil {
			t.Fatal(err)
		}
		check("blob "+o.Name, data)
		blobs++
		scanned += len(data)
	}
	if messages == 0 {
		t.Fatal("the run log is empty: nothing was scanned")
	}
	return messages, blobs, scanned
}
