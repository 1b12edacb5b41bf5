package e2e

import (
	"errors"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/portal"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/replay"
)

// examplePlaybook reads one of the hand-written portal playbooks.
func examplePlaybook(t testing.TB, name string) *schema.Playbook {
	t.Helper()
	data, err := os.ReadFile("../examples/portal/" + name + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := schema.DecodePlaybook(data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// login are the parameters every portal playbook takes.
func login(extra map[string]string) map[string]string {
	params := map[string]string{"username": portal.Username, "password": portal.Password}
	for k, v := range extra {
		params[k] = v
	}
	return params
}

var vendorParams = map[string]string{
	"company": "Initech", "tax_id": "DE123456789", "email": "ap@initech.example", "phone": "+49 30 1234567",
	"street": "1 Main St", "city": "Berlin", "country": "Germany", "category": "Supplier",
}

// longVendor registers a vendor whose name is 234 characters long, with
// runs of spaces in it.
var longVendor = func() map[string]string {
	v := maps.Clone(vendorParams)
	v["company"] = "Initech  Holdings   " + strings.Repeat("Consolidated Widget Manufacturing ", 6) + "GmbH"
	return v
}()

// browserReplay replays p against the portal at base in a browser of
// n's, with n's executor.
func browserReplay(t testing.TB, n *node.Node, p *schema.Playbook, base string, params map[string]string) *schema.ReplayResult {
	t.Helper()
	res, err := n.Executor().Replay(testContext(t), replay.Request{Playbook: p, Params: params, AllowUnbound: true, Open: n.BrowserOpener(base)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestReplayPortalPlaybooks replays the hand-written playbooks in real
// Chromium: every step deterministic, no model call, verify passed, and
// the portal's own state agrees.
func TestReplayPortalPlaybooks(t *testing.T) {
	t.Parallel()
	n := start(t, nil, node.Browser...)
	b := n.Bus()
	cases := []struct {
		playbook string
		params   map[string]string
		check    func(t *testing.T, st portal.State)
		answer   string
	}{
		{"download-latest-report", nil, func(t *testing.T, st portal.State) {
			if !slices.Equal(st.Downloads, []string{"RPT-2026-11"}) {
				t.Fatalf("downloads %v", st.Downloads)
			}
		}, ""},
		{"register-vendor", vendorParams, func(t *testing.T, st portal.State) {
			if len(st.Vendors) != 1 || st.Vendors[0].CompanyName != "Initech" || st.Vendors[0].Country != "Germany" || st.Vendors[0].Category != "Supplier" || st.Vendors[0].Phone != "+49 30 1234567" {
				t.Fatalf("vendors %+v", st.Vendors)
			}
		}, ""},
		// A name longer than a render shows (its field's value is checked
		// whole) with runs of spaces (shown as one by the page).
		{"register-vendor", longVendor, func(t *testing.T, st portal.State) {
			if len(st.Vendors) != 1 || st.Vendors[0].CompanyName != longVendor["company"] {
				t.Fatalf("vendors %+v", st.Vendors)
			}
		}, ""},
		{"catalog-top-results", map[string]string{"query": "desk", "n": "1"}, func(t *testing.T, st portal.State) {
			if len(st.Vendors) != 0 || len(st.Downloads) != 0 {
				t.Fatalf("reading the catalog changed the portal: %+v", st)
			}
		}, "Ergonomic Desk Lamp"},
		{"schedule-release", map[string]string{"card": "Tag the release", "date": "2026-10-26", "time": "14:30", "priority": "5"}, func(t *testing.T, st portal.State) {
			if b := st.Board; !slices.Equal(b.Moves, []string{"Tag the release: todo -> done"}) || b.Schedule.Date != "2026-10-26" || b.Schedule.Time != "14:30" || b.Schedule.Priority != 5 {
				t.Fatalf("board %+v", b)
			}
		}, ""},
	}
	for _, c := range cases {
		t.Run(c.playbook, func(t *testing.T) {
			base, p := portalSite(t, "")
			res := browserReplay(t, n, examplePlaybook(t, c.playbook), base, login(c.params))
			if res.Outcome != schema.OutcomeSuccess {
				t.Fatalf("outcome %s at %s: %v", res.Outcome, res.FailedStep, res.Reason)
			}
			if len(res.Usage) != 0 {
				t.Fatalf("deterministic replay called a model: %+v", res.Usage)
			}
			if res.Answer != c.answer {
				t.Errorf("answer %q, want %q", res.Answer, c.answer)
			}
			for _, s := range res.Steps {
				if s.Tokens.Logical() != 0 || s.Attempts != 1 {
					t.Errorf("step %s: %d attempts, %d tokens", s.StepID, s.Attempts, s.Tokens.Logical())
				}
			}
			c.check(t, p.State())
			noSecretRecorded(t, b, res.RunID, portal.Password)
			envs, err := b.Runs().ReadRun(testContext(t), res.RunID)
			if err != nil {
				t.Fatal(err)
			}
			var last *schema.RunFinished
			var verify *schema.VerifyChecked
			for _, env := range envs {
				switch e := env.Event.(type) {
				case *schema.RunFinished:
					last = e
				case *schema.VerifyChecked:
					verify = e
				}
			}
			if last == nil || last.Outcome != schema.OutcomeSuccess || last.Mode != schema.ModeReplay || verify == nil || !verify.Passed {
				t.Fatalf("the run log does not show a verified replay: %+v %+v", last, verify)
			}
		})
	}
}

// TestReplayUnderDrift replays register-vendor on every drift variant.
// Where the controls are the same it succeeds; where one changed it falls
// back before the changed step with a typed reason, reporting the steps
// that completed. The portal's state is the judge: nothing registered,
// imported or offboarded that should not be.
func TestReplayUnderDrift(t *testing.T) {
	t.Parallel()
	n := start(t, nil, node.Browser...)
	p := examplePlaybook(t, "register-vendor")
	cases := []struct {
		variant string
		stopsAt string // the step that falls back; "" when the replay succeeds
		reason  error
	}{
		{"cosmetic", "", nil},
		{"renames", "", nil},
		{"remount", "", nil},
		{"field-order", "", nil},
		{"moved-button", "", nil},
		{"label-rename", "company", schema.ErrRepairUnavailable}, // renamed: a repair would be asked for, and no planner runs
		{"interstitial", "company", schema.ErrRepairUnavailable}, // covered: a repair would be asked to clear it, and no planner runs
		{"textarea", "street", schema.ErrControlChanged},         // the example names no repair for street
		{"submit-elsewhere", "register", schema.ErrContractChanged},
		{"offboarding", "open-form", schema.ErrExpectFailed}, // the form says "Offboard a vendor": stopped before any field
	}
	for _, c := range cases {
		if testing.Short() && (c.stopsAt == "" && c.variant != "cosmetic" || c.variant == "interstitial") {
			// -short: one variant the replay survives is enough, and one
			// stop for each reason (TestCoveredControlIsCleared clears a
			// cover); TestVendorFlowUnderDrift drives them all.
			continue
		}
		t.Run(c.variant, func(t *testing.T) {
			base, site := portalSite(t, c.variant)
			res := browserReplay(t, n, p, base, login(vendorParams))
			st := site.State()
			if len(st.Imports) != 0 || len(st.Offboarded) != 0 {
				t.Fatalf("a wrong effect: imports %+v, offboarded %+v", st.Imports, st.Offboarded)
			}
			if c.stopsAt == "" {
				if res.Outcome != schema.OutcomeSuccess || len(st.Vendors) != 1 {
					t.Fatalf("outcome %s at %s (%v), vendors %+v", res.Outcome, res.FailedStep, res.Reason, st.Vendors)
				}
				return
			}
			if res.Outcome != schema.OutcomeFallback || res.FailedStep != c.stopsAt || !errors.Is(res.Reason, c.reason) {
				t.Fatalf("outcome %s at %s (%v), want fallback at %s (%v)", res.Outcome, res.FailedStep, res.Reason, c.stopsAt, c.reason)
			}
			if len(st.Vendors) != 0 {
				t.Fatalf("registered under drift: %+v", st.Vendors)
			}
			if n := len(res.Completed); n == 0 || res.Completed[n-1] == c.stopsAt {
				t.Fatalf("completed steps %v", res.Completed)
			}
			t.Logf("falls back at %s after %d completed steps: %v", res.FailedStep, len(res.Completed), res.Reason)
		})
	}
}

// TestTriageWaitsForThePlanner replays the triage playbook: its judgment
// step needs the planner, which no service answers yet, so the replay
// falls back there, after the deterministic steps, having filed nothing.
func TestTriageWaitsForThePlanner(t *testing.T) {
	t.Parallel()
	n := start(t, nil, node.Browser...)
	base, site := portalSite(t, "")
	res := browserReplay(t, n, examplePlaybook(t, "triage-message"), base, login(map[string]string{"subject": "Locked out after three attempts"}))
	if res.Outcome != schema.OutcomeFallback || res.FailedStep != "classify" || !errors.Is(res.Reason, schema.ErrUnavailable) {
		t.Fatalf("outcome %s at %s: %v", res.Outcome, res.FailedStep, res.Reason)
	}
	if !slices.Equal(res.Completed, []string{"open-login", "username", "password", "sign-in", "open-inbox", "open-message"}) {
		t.Fatalf("completed %v", res.Completed)
	}
	if st := site.State(); len(st.Triage) != 0 {
		t.Fatalf("filed without a judgment: %v", st.Triage)
	}
}

// TestRetryDoesNotRepeatAWrite: a step whose expect fails after its
// click did something is looked at again, not clicked again: a post, a
// beacon, or only a change of the page (the click may have done its
// work). The server gets one of each, and the replay stops unrepeatable,
// saying what the try did. A click that did nothing at all (the page
// ignored it) is done again, and the step passes on its second try.
func TestRetryDoesNotRepeatAWrite(t *testing.T) {
	t.Parallel()
	n := start(t, nil, node.Browser...)
	page := func(handler string) string {
		return `<main><h1>Order</h1><button id="b">Place order</button><p id="out"></p><script>
			let clicks = 0; const out = document.getElementById('out');
			document.getElementById('b').addEventListener('click', () => { clicks++; ` + handler + ` });
		</script></main>`
	}
	web := newSite(t, map[string]string{
		"/post":   page(`fetch('/api/orders', {method: 'POST'}).then(() => { out.textContent = 'Queued'; });`),
		"/beacon": page(`navigator.sendBeacon('/api/orders', 'x');`),
		"/shown":  page(`out.textContent = 'Queued';`),
		"/second": page(`if (clicks === 2) out.textContent = 'Placed';`),
	})
	for _, c := range []struct {
		path, did string
		posts     int
	}{
		{"/post", "sent POST " + web.URL + "/api/orders", 1},
		{"/beacon", "sent a beacon to /api/orders", 1},
		{"/shown", "changed the page (its DOM)", 0},
		{"/second", "", 0},
	} {
		t.Run(c.path, func(t *testing.T) {
			p, err := schema.DecodePlaybook([]byte(`name: order
intent: place an order
steps:
  - {id: open, kind: deterministic, tool: navigate, args: {url: "` + c.path + `"}}
  - {id: place, kind: deterministic, tool: click, needs: [open], target: {role: button, name: Place order}, expect: [{text_visible: Placed}], on_fail: retry(2)}
verify: [{text_visible: Placed}]
`))
			if err != nil {
				t.Fatal(err)
			}
			web.mu.Lock()
			before := len(web.to)
			web.mu.Unlock()
			res := browserReplay(t, n, p, web.URL, nil)
			web.mu.Lock()
			posts := len(web.to) - before
			web.mu.Unlock()
			if c.did == "" {
				if res.Outcome != schema.OutcomeSuccess || res.Steps[1].Attempts != 2 {
					t.Fatalf("outcome %s (%v), %d attempts: a click the page ignored was not done again", res.Outcome, res.Reason, res.Steps[1].Attempts)
				}
				return
			}
			if res.Outcome != schema.OutcomeFallback || !errors.Is(res.Reason, schema.ErrUnrepeatable) || !strings.Contains(res.Reason.Message, c.did) {
				t.Fatalf("outcome %s (%v), want a fallback, unrepeatable, saying it %s", res.Outcome, res.Reason, c.did)
			}
			if posts != c.posts {
				t.Fatalf("the server got %d posts, want %d: the retry clicked again", posts, c.posts)
			}
		})
	}
}

// TestReplayStopsAtAQuestionItNeverMet: a replayed click that meets a
// confirm its step never met when it was learned stops with CodeDialog
// (the confirm was dismissed: the page may have taken the branch the task
// did not), whatever its verify would say; a step that met the same
// confirm when it was learned goes on.
func TestReplayStopsAtAQuestionItNeverMet(t *testing.T) {
	t.Parallel()
	n := start(t, nil, node.Browser...)
	web := newSite(t, map[string]string{"/notes": `<main><h1>Notes</h1><button id="b">Close notes</button><p id="out"></p><script>
		document.getElementById('b').addEventListener('click', () => {
			const keep = confirm('Save your changes before closing?');
			fetch(keep ? '/api/save' : '/api/discard', {method: 'POST'}).then(() => { document.getElementById('out').textContent = 'Notes closed'; });
		});
	</script></main>`})
	playbook := func(dialogs string) *schema.Playbook {
		p, err := schema.DecodePlaybook([]byte(`name: close-notes
intent: close the notes
steps:
  - {id: open, kind: deterministic, tool: navigate, args: {url: /notes}}
  - {id: close, kind: deterministic, tool: click, needs: [open], target: {role: button, name: Close notes}` + dialogs + `}
verify: [{text_visible: Notes closed}]
`))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	res := browserReplay(t, n, playbook(""), web.URL, nil)
	if res.Outcome == schema.OutcomeSuccess || !errors.Is(res.Reason, schema.ErrDialog) || !strings.Contains(res.Reason.Message, "Save your changes") {
		t.Fatalf("outcome %s (%v): a confirm the step never met was dismissed and the replay went on", res.Outcome, res.Reason)
	}
	if res = browserReplay(t, n, playbook(", dialogs: [confirm]"), web.URL, nil); res.Outcome != schema.OutcomeSuccess {
		t.Fatalf("outcome %s (%v): a step that met the confirm when it was learned stopped", res.Outcome, res.Reason)
	}
}
