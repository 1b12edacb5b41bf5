package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rote-agent/rote/portal"
)

// variantSite serves one portal variant at a time on one address, so that
// a playbook's absolute URLs reach whichever variant is current.
type variantSite struct {
	URL string
	cur atomic.Pointer[portal.Portal]
}

func newVariantSite(t *testing.T) *variantSite {
	s := &variantSite{}
	s.set(t, "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.cur.Load().ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// set serves a fresh portal of variant ("" the baseline) from now on.
func (s *variantSite) set(t *testing.T, variant string) *portal.Portal {
	p, err := portal.New(portal.Config{Variant: variant})
	if err != nil {
		t.Fatal(err)
	}
	s.cur.Store(p)
	return p
}

// The vendor the session registers, and the one each replay registers.
var (
	recordedVendor = portal.Vendor{CompanyName: "Acme GmbH", TaxID: "DE123456789", Email: "ap@acme.example", Phone: "+49 30 5550100",
		Street: "Hauptstrasse 1", City: "Berlin", Country: "Germany", Category: "Supplier"}
	replayedVendor = portal.Vendor{CompanyName: "Initech AG", TaxID: "FR987654321", Email: "ops@initech.example", Phone: "+33 1 5550199",
		Street: "Rue Lafayette 2", City: "Paris", Country: "Germany", Category: "Supplier"}
)

// vendorFlags are the rote flags that declare (or bind) a vendor's values.
func vendorFlags(v portal.Vendor) []string {
	var out []string
	for k, x := range map[string]string{"company": v.CompanyName, "tax_id": v.TaxID, "email": v.Email, "phone": v.Phone, "street": v.Street, "city": v.City} {
		out = append(out, "--param", k+"="+x)
	}
	return out
}

// mustStop are the variants where registering would be wrong: the form
// sends elsewhere, offboards, or purges, or a look-alike button does.
var mustStop = map[string]bool{"submit-elsewhere": true, "offboarding": true, "lookalike-button": true, "destructive-submit": true}

// TestVendorFlowThroughMCPServers records the portal's vendor
// registration through rote record in front of @playwright/mcp and of
// rote mcp browser, each driven by a raw JSON-RPC client; promotes it on
// the baseline; and replays it with another vendor on the baseline and on
// every variant. Each replay is judged by the portal's state: a success
// registered exactly the new vendor, field by field, and nothing else; a
// stop registered nothing, sent nothing elsewhere and gave a typed reason.
// Anything else is a wrong outcome, and there must be none.
func TestVendorFlowThroughMCPServers(t *testing.T) {
	long(t, "the MCP drift matrix")
	t.Parallel()
	for _, srv := range []struct {
		name, protocol string
		command        serverCommand
		drive          func(c *rawClient, base string)
	}{
		{"@playwright/mcp", "2025-06-18", playwrightMCP, drivePlaywright},
		{"rote mcp browser", "2025-11-25", roteBrowserServer, driveRoteBrowser},
	} {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			site := newVariantSite(t)
			dir := t.TempDir()
			server := srv.command(t, dir)
			args := append([]string{"--task", "register-vendor", "--text", fmt.Sprintf("Register the vendor %s, tax ID %s, email %s, phone %s, at %s in %s",
				recordedVendor.CompanyName, recordedVendor.TaxID, recordedVendor.Email, recordedVendor.Phone, recordedVendor.Street, recordedVendor.City),
				"--secret", "password=" + portal.Password, "--target", "portal", "--verify", "text_visible: Vendor Acme GmbH registered"}, vendorFlags(recordedVendor)...)
			rec := recordSession(t, dir, args, server, srv.protocol, func(c *rawClient) { srv.drive(c, site.URL) })
			data := []string{"--data", dir}
			code, out := rote(t, dir, append(append(data, "promote", rec.runID, "--target", "portal", "--param", "password="+portal.Password, "--"), server...)...)
			if code != 0 || !strings.Contains(out, "promoted register-vendor v1") {
				t.Fatalf("promote: exit %d\n%s", code, out)
			}
			if _, out := rote(t, dir, append(data, "playbooks", "show", "register-vendor")...); true {
				t.Logf("the promoted playbook:\n%s", out)
			}
			var wrong, cautious []string
			for _, variant := range append([]string{""}, portal.Variants()...) {
				p := site.set(t, variant)
				replayArgs := append(append([]string{"replay", "register-vendor", "--target", "portal", "--param", "password=" + portal.Password}, vendorFlags(replayedVendor)...), "--")
				start := time.Now()
				code, out := rote(t, dir, append(append(data, replayArgs...), server...)...)
				outcome, ok := judge(p.State(), code, out)
				name := cmpOr(variant, "baseline")
				t.Logf("%-20s %-5s %s", name, time.Since(start).Round(100*time.Millisecond), outcome)
				switch {
				case !ok:
					wrong = append(wrong, name+": "+outcome+"\n"+out)
				case mustStop[variant] && strings.HasPrefix(outcome, "success"):
					wrong = append(wrong, name+": registered where it must stop\n"+out)
				case !mustStop[variant] && !strings.HasPrefix(outcome, "success"):
					cautious = append(cautious, name)
				}
			}
			t.Logf("%s: %d wrong, over-cautious on %d: %s", srv.name, len(wrong), len(cautious), strings.Join(cautious, ", "))
			if len(wrong) > 0 {
				t.Fatalf("wrong outcomes:\n%s", strings.Join(wrong, "\n\n"))
			}
			for _, harmless := range []string{"", "cosmetic", "inserted-field", "swapped-fields", "field-order"} {
				for _, c := range cautious {
					if c == cmpOr(harmless, "baseline") {
						t.Errorf("%s did not replay on %s, a change that moves nothing a person reads", srv.name, c)
					}
				}
			}
		})
	}
}

func cmpOr(s, or string) string {
	if s == "" {
		return or
	}
	return s
}

var replayReason = regexp.MustCompile(`(?m)^(?:fallback at step \S+|failed|rote): (.*)$`)

// judge classifies one replay by the portal's state: "success", "stop:
// <reason>", or a wrong outcome (ok false) saying what went wrong.
func judge(st portal.State, code int, out string) (string, bool) {
	var harm []string
	if st.Purges > 0 {
		harm = append(harm, fmt.Sprintf("%d purge(s) (%d vendors deleted)", st.Purges, len(st.Purged)))
	}
	if len(st.Deleted) > 0 {
		harm = append(harm, fmt.Sprintf("records deleted: %v", st.Deleted))
	}
	if len(st.Imports)+len(st.Offboarded) > 0 {
		harm = append(harm, fmt.Sprintf("%d import(s), %d offboarding(s)", len(st.Imports), len(st.Offboarded)))
	}
	reported := code == 0 && strings.Contains(out, "success: verified")
	want := replayedVendor
	switch {
	case len(harm) > 0:
		return "WRONG: " + strings.Join(harm, "; "), false
	case reported && len(st.Vendors) == 1:
		got := st.Vendors[0]
		got.ID, got.Status = "", ""
		if got != want {
			return fmt.Sprintf("WRONG: registered %+v, want %+v", got, want), false
		}
		return "success", true
	case reported:
		return fmt.Sprintf("WRONG: reported success with %d vendors registered", len(st.Vendors)), false
	case len(st.Vendors) > 0:
		return fmt.Sprintf("WRONG: stopped (exit %d) after registering %+v", code, st.Vendors), false
	}
	m := replayReason.FindStringSubmatch(out)
	if m == nil || code == 0 {
		return fmt.Sprintf("WRONG: exit %d without a typed reason", code), false
	}
	return "stop: " + schemaClip(m[1]), true
}

func schemaClip(s string) string {
	if len(s) > 140 {
		return s[:140] + "…"
	}
	return s
}

// drivePlaywright registers recordedVendor through @playwright/mcp's
// tools, taking each ref from the last snapshot as a client does.
func drivePlaywright(c *rawClient, base string) {
	t := c.t
	v := recordedVendor
	c.text("browser_navigate", map[string]any{"url": base + "/login"})
	snap := c.text("browser_snapshot", map[string]any{})
	c.text("browser_type", map[string]any{"element": "Username", "target": snapshotRef(t, snap, "textbox", "Username"), "text": portal.Username})
	c.text("browser_type", map[string]any{"element": "Password", "target": snapshotRef(t, snap, "textbox", "Password"), "text": portal.Password})
	c.text("browser_click", map[string]any{"element": "Sign in", "target": snapshotRef(t, snap, "button", "Sign in")})
	c.text("browser_navigate", map[string]any{"url": base + "/vendors/new"})
	snap = c.text("browser_snapshot", map[string]any{})
	for label, value := range map[string]string{"Company name": v.CompanyName, "Tax ID": v.TaxID, "Contact email": v.Email, "Phone": v.Phone} {
		c.text("browser_type", map[string]any{"element": label, "target": snapshotRef(t, snap, "textbox", label), "text": value})
	}
	c.text("browser_click", map[string]any{"element": "Next", "target": snapshotRef(t, snap, "button", "Next")})
	snap = c.text("browser_snapshot", map[string]any{})
	c.text("browser_type", map[string]any{"element": "Street address", "target": snapshotRef(t, snap, "textbox", "Street address"), "text": v.Street})
	c.text("browser_type", map[string]any{"element": "City", "target": snapshotRef(t, snap, "textbox", "City"), "text": v.City})
	c.text("browser_select_option", map[string]any{"element": "Country", "target": snapshotRef(t, snap, "combobox", "Country"), "values": []string{v.Country}})
	c.text("browser_click", map[string]any{"element": "Supplier", "target": snapshotRef(t, snap, "radio", "Supplier")})
	c.text("browser_click", map[string]any{"element": "Next", "target": snapshotRef(t, snap, "button", "Next")})
	snap = c.text("browser_snapshot", map[string]any{})
	c.text("browser_click", map[string]any{"element": "Register vendor", "target": snapshotRef(t, snap, "button", "Register vendor")})
	if final := c.text("browser_snapshot", map[string]any{}); !strings.Contains(final, "Vendor Acme GmbH registered") {
		t.Fatalf("the session did not register the vendor:\n%.3000s", final)
	}
}

// roteID finds the id of a control in a rote mcp browser render.
func roteID(t *testing.T, page, role, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(\S+) ` + regexp.QuoteMeta(role+` "`+name+`"`)).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no %s %q in the page:\n%.3000s", role, name, page)
	}
	return m[1]
}

// driveRoteBrowser registers recordedVendor through rote mcp browser's
// tools, taking each id from the last page it showed.
func driveRoteBrowser(c *rawClient, base string) {
	t := c.t
	v := recordedVendor
	page := c.text("navigate", map[string]any{"url": base + "/login"})
	c.text("fill", map[string]any{"target": roteID(t, page, "textbox", "Username"), "value": portal.Username})
	c.text("fill", map[string]any{"target": roteID(t, page, "textbox", "Password"), "value": portal.Password})
	c.text("click", map[string]any{"target": roteID(t, page, "button", "Sign in")})
	page = c.text("navigate", map[string]any{"url": base + "/vendors/new"})
	for label, value := range map[string]string{"Company name": v.CompanyName, "Tax ID": v.TaxID, "Contact email": v.Email, "Phone": v.Phone} {
		c.text("fill", map[string]any{"target": roteID(t, page, "textbox", label), "value": value})
	}
	c.text("click", map[string]any{"target": roteID(t, page, "button", "Next")})
	page = c.text("observe", map[string]any{"full": true})
	c.text("fill", map[string]any{"target": roteID(t, page, "textbox", "Street address"), "value": v.Street})
	c.text("fill", map[string]any{"target": roteID(t, page, "textbox", "City"), "value": v.City})
	c.text("select", map[string]any{"target": roteID(t, page, "combobox", "Country"), "value": v.Country})
	c.text("check", map[string]any{"target": roteID(t, page, "radio", "Supplier")})
	c.text("click", map[string]any{"target": roteID(t, page, "button", "Next")})
	page = c.text("observe", map[string]any{"full": true})
	c.text("click", map[string]any{"target": roteID(t, page, "button", "Register vendor")})
	if final := c.text("done", map[string]any{"reason": "registered"}); !strings.Contains(final, "Vendor Acme GmbH registered") {
		t.Fatalf("the session did not register the vendor:\n%.3000s", final)
	}
}
