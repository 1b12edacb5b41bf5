package portal

import (
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// allVariants is the baseline and every variant.
func allVariants() []string { return append([]string{""}, Variants()...) }

// registerThroughForm walks the vendor form with testVendor and submits
// the review page's form wherever it posts. It returns the final page.
func registerThroughForm(t *testing.T, b *browser) page {
	t.Helper()
	if pg := b.post("/vendors/new", step1Form(testVendor)); pg.url != "/vendors/new/address" {
		t.Fatalf("step 1 went to %s", pg.url)
	}
	review := b.post("/vendors/new/address", step2Form(testVendor))
	if review.url != "/vendors/new/review" {
		t.Fatalf("step 2 went to %s", review.url)
	}
	m := vendorFormAction.FindStringSubmatch(review.body)
	if m == nil {
		t.Fatal("no vendor form on the review page")
	}
	return b.post(m[1], nil)
}

// vendorFormAction is the action of the vendor form, not of any other
// form the page holds.
var vendorFormAction = regexp.MustCompile(`<form method="post" action="([^"]+)" id="[^"]*vendor-form`)

func TestVariantVendorFlow(t *testing.T) {
	for _, v := range allVariants() {
		t.Run("variant="+v, func(t *testing.T) {
			b := loggedIn(t, v)
			pg := registerThroughForm(t, b)
			st := b.p.State()
			want := testVendor
			var list []Vendor
			var message string
			switch v {
			case "submit-elsewhere":
				want.ID, want.Status, list, message = "IMP-0001", "Queued for import", st.Imports, "Vendor Globex Corporation queued for import"
			case "offboarding":
				want.ID, want.Status, list, message = "OFF-0001", "Offboarded", st.Offboarded, "Vendor Globex Corporation offboarded"
			case "destructive-submit":
				// Purged and answered as if registered: only the state knows.
				if len(st.Vendors) != 0 || st.Purges != 1 || pg.url != "/vendors" {
					t.Errorf("destructive-submit: %+v at %s", st, pg.url)
				}
				if status, _ := between(pg.body, `<div role="status"`, "</div>"); !strings.Contains(status, "Vendor Globex Corporation registered") {
					t.Errorf("destructive-submit answered %q", status)
				}
				return
			default:
				want.ID, want.Status, list, message = "V-0001", "Active", st.Vendors, "Vendor Globex Corporation registered"
			}
			if !reflect.DeepEqual(list, []Vendor{want}) {
				t.Errorf("recorded %+v, want %+v", list, want)
			}
			if n := len(st.Vendors) + len(st.Imports) + len(st.Offboarded); n != 1 {
				t.Errorf("%d vendors recorded in all, want 1: %+v", n, st)
			}
			if pg.url != "/vendors/"+want.ID {
				t.Errorf("final page %s", pg.url)
			}
			status, ok := between(pg.body, `<div role="status"`, "</div>")
			if !ok || !strings.Contains(status, message) {
				t.Errorf("final page status %q, want %q", status, message)
			}
		})
	}
}

// accessibleSurface is what a screen reader reads from a page, roughly:
// the visible text and every role, aria-label, heading and form field name.
func accessibleSurface(body string) []string {
	out := []string{visibleText(body)}
	for _, attr := range []string{"role", "aria-label", "aria-modal", "aria-current", "name", "type", "action", "href", "alt", "scope"} {
		vals := attrValues(body, attr)
		if attr == "href" {
			// Fragments follow the ids; the stylesheet is not read.
			vals = slices.DeleteFunc(vals, func(h string) bool {
				return strings.HasPrefix(h, "#") || strings.HasPrefix(h, "/static/")
			})
		}
		out = append(out, attr+": "+strings.Join(vals, "|"))
	}
	for _, m := range regexp.MustCompile(`<(h[1-6]|main|nav|header|footer|label|legend|button|table|th|search|form|fieldset)\b`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestCosmeticAndRenamesKeepWhatIsRead(t *testing.T) {
	base := tour(t, "")
	for _, v := range []string{"cosmetic", "renames"} {
		other := tour(t, v)
		for i, pg := range base {
			got, want := accessibleSurface(other[i].body), accessibleSurface(pg.body)
			if got[0] != want[0] {
				t.Errorf("variant %s %s: visible text differs\n got %s\nwant %s", v, pg.name, got[0], want[0])
				continue
			}
			for j := 1; j < len(want) && j < len(got); j++ {
				if v == "cosmetic" && strings.HasPrefix(want[j], "alt:") && got[j] == "alt: " {
					continue // the decorative banner's alt="", which is not read
				}
				if got[j] != want[j] {
					t.Errorf("variant %s %s: %s\nwant %s", v, pg.name, got[j], want[j])
				}
			}
			if len(got) != len(want) {
				t.Errorf("variant %s %s: %d landmarks/headings/fields, want %d", v, pg.name, len(got), len(want))
			}
		}
	}
}

// idsAndClasses returns every id value and class token of a page.
func idsAndClasses(body string) []string {
	out := attrValues(body, "id")
	for _, c := range attrValues(body, "class") {
		out = append(out, strings.Fields(c)...)
	}
	return out
}

func TestRenamesChangeEveryIDAndClass(t *testing.T) {
	base, renamed := tour(t, ""), tour(t, "renames")
	baseline := map[string]bool{}
	for _, pg := range base {
		for _, s := range idsAndClasses(pg.body) {
			baseline[s] = true
		}
	}
	for i, pg := range renamed {
		got := idsAndClasses(pg.body)
		if len(got) != len(idsAndClasses(base[i].body)) {
			t.Errorf("%s: %d ids and classes, baseline has %d", pg.name, len(got), len(idsAndClasses(base[i].body)))
		}
		for _, s := range got {
			if baseline[s] {
				t.Errorf("%s: %q is also a baseline id or class", pg.name, s)
			}
		}
		if a, b := attrValues(pg.body, "name"), attrValues(base[i].body, "name"); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: field names %v, baseline %v", pg.name, a, b)
		}
	}
	step1 := renamed[slices.IndexFunc(renamed, func(p namedPage) bool { return p.name == "vendor-step1" })]
	step1.mustContain(t, `<label for="qx-company-name-r7">Company name</label>`,
		`id="qx-company-name-r7" name="company_name"`, `id="qx-vendor-form-r7"`)
}

func TestRenamesStylesheetFollows(t *testing.T) {
	b := newBrowser(t, "renames")
	css := b.get("/static/portal.css").body
	for _, want := range []string{".qx-btn-r7 {", ".qx-btn-primary-r7 {", ".qx-table-r7 th, .qx-table-r7 td {",
		"body.qx-page-r7 {", "var(--accent)", "#1f5fbf", "0 10px 40px rgba(0, 0, 0, .3)", ".5rem", "@media (max-width: 40rem)",
		`.qx-nav-item-r7 a[aria-current="page"]`} {
		if !strings.Contains(css, want) {
			t.Errorf("renamed stylesheet lacks %q", want)
		}
	}
	if strings.Contains(css, ".btn {") {
		t.Error("renamed stylesheet keeps .btn")
	}
	if got := renameStylesheet("#main .a-b:hover{color:#fff}@media (x){.c.d>e{x:1.5em}}"); got !=
		"#qx-main-r7 .qx-a-b-r7:hover{color:#fff}@media (x){.qx-c-r7.qx-d-r7>e{x:1.5em}}" {
		t.Errorf("renameStylesheet: %s", got)
	}
}

func TestCosmeticMarkup(t *testing.T) {
	base, cos := tour(t, ""), tour(t, "cosmetic")
	for i, pg := range cos {
		pg.mustContain(t, `href="/static/cosmetic.css"`, `<img class="app-banner" src="/static/banner.svg" alt=""`,
			`<span class="app-nav-sep" aria-hidden="true"></span>`, `<hr class="app-rule" aria-hidden="true">`,
			`<div class="app-frame">`, `class="colophon"`, `<main id="main" class="app-main">`)
		pg.mustNotContain(t, "portal.css", `class="site-footer"`)
		if count(pg.body, "<div") < count(base[i].body, "<div")+6 {
			t.Errorf("%s: %d divs, baseline %d: not deeper", pg.name, count(pg.body, "<div"), count(base[i].body, "<div"))
		}
		if strings.Contains(base[i].body, `class="btn btn-primary"`) && !strings.Contains(pg.body, `class="button button-accent"`) {
			t.Errorf("%s: buttons not restyled", pg.name)
		}
	}
	b := newBrowser(t, "cosmetic")
	if pg := b.get("/static/cosmetic.css"); !strings.Contains(pg.body, ".button-accent") {
		t.Error("cosmetic.css not served")
	}
	if pg := b.get("/static/banner.svg"); pg.header.Get("Content-Type") != "image/svg+xml" {
		t.Errorf("banner: %s", pg.header.Get("Content-Type"))
	}
}

func TestRemountRendersTheSameMainClientSide(t *testing.T) {
	base, re := tour(t, ""), tour(t, "remount")
	for i, pg := range re {
		pg.mustContain(t, `<main id="main" class="main"></main>`, `<template id="main-template">`,
			`document.getElementById("main-template")`, `main.replaceChildren(source.content.cloneNode(true))`,
			`document.addEventListener("DOMContentLoaded"`, `fetch("/__ping").then(mount)`)
		want, _ := element(base[i].body, "main")
		got, ok := element(pg.body, "template")
		if !ok || strings.TrimSpace(got) != strings.TrimSpace(want) {
			t.Errorf("%s: template content differs from the baseline main\n got %s\nwant %s", pg.name, got, want)
		}
		outside := strings.Replace(pg.body, got, "", 1)
		if strings.Contains(outside, "<h1>") {
			t.Errorf("%s: an h1 outside the template", pg.name)
		}
	}
}

// variantPage fetches the vendor page of a variant: "step1", "step2" or
// "review".
func variantPage(t *testing.T, variant, step string) page {
	t.Helper()
	b := loggedIn(t, variant)
	if step == "step1" {
		return b.get("/vendors/new")
	}
	pg := b.post("/vendors/new", step1Form(testVendor))
	if step == "step2" {
		return pg
	}
	return b.post("/vendors/new/address", step2Form(testVendor))
}

func TestLabelRename(t *testing.T) {
	pg := variantPage(t, "label-rename", "step1")
	pg.mustContain(t, `<label for="company-name">Legal entity name</label>`, `id="company-name" name="company_name"`)
	pg.mustNotContain(t, "Company name")
	base := variantPage(t, "", "step1")
	if strings.Replace(pg.body, "Legal entity name", "Company name", 1) != base.body {
		t.Error("label-rename changes more than the label")
	}
	variantPage(t, "label-rename", "review").mustContain(t, "<dt>Company name</dt>")
	// The error names the field as its label does.
	loggedIn(t, "label-rename").post("/vendors/new", url.Values{}).mustContain(t, "<li>Legal entity name is required</li>")
}

func TestFieldOrder(t *testing.T) {
	names := func(body string) []string {
		form, _ := between(body, `<form method="post" action="/vendors/new"`, "</form>")
		return attrValues(form, "name")
	}
	if got := names(variantPage(t, "", "step1").body); !reflect.DeepEqual(got, []string{"company_name", "tax_id", "email", "phone"}) {
		t.Errorf("baseline order %v", got)
	}
	pg := variantPage(t, "field-order", "step1")
	if got := names(pg.body); !reflect.DeepEqual(got, []string{"phone", "email", "tax_id", "company_name"}) {
		t.Errorf("field-order order %v", got)
	}
	pg.mustContain(t, `<label for="company-name">Company name</label>`)
}

func TestMovedButton(t *testing.T) {
	for step, label := range map[string]string{"step1": "Next", "step2": "Next", "review": "Register vendor"} {
		pg := variantPage(t, "moved-button", step)
		toolbar := strings.Index(pg.body, `<div role="toolbar" aria-label="Form actions"`)
		button := strings.Index(pg.body, `<button type="submit" form="vendor-form" class="btn btn-primary">`+label+`</button>`)
		form := strings.Index(pg.body, `<form method="post" action="/vendors`)
		if toolbar < 0 || button < toolbar || form < button {
			t.Errorf("%s: toolbar %d, button %d, form %d: want the button in a toolbar above the form", step, toolbar, button, form)
		}
		pg.mustContain(t, `id="vendor-form"`)
		inside, _ := between(pg.body[form:], ">", "</form>")
		if strings.Contains(inside, "<button") {
			t.Errorf("%s: a button is still inside the form", step)
		}
		base := variantPage(t, "", step)
		base.mustNotContain(t, `role="toolbar"`, `form="vendor-form"`)
	}
}

func TestInterstitial(t *testing.T) {
	b := loggedIn(t, "interstitial")
	pg := b.get("/vendors/new")
	pg.mustContain(t, `role="dialog" aria-modal="true" aria-labelledby="notice-title"`,
		`<h2 id="notice-title">Before you continue</h2>`, `<button type="button" id="notice-continue"`,
		`>Continue</button>`, `<div id="notice-overlay" class="overlay"></div>`,
		`document.cookie = "portal_notice=dismissed; path=/; SameSite=Lax"`)
	// The overlay comes before the form and covers the viewport.
	if strings.Index(pg.body, "notice-overlay") > strings.Index(pg.body, "<form") {
		t.Error("the overlay is not before the form")
	}
	css := b.get("/static/portal.css").body
	if !strings.Contains(css, ".overlay { position: fixed; inset: 0;") {
		t.Error("the overlay is not a fixed full-page layer")
	}
	// Still there on reload until dismissed; gone afterwards.
	b.get("/vendors/new").mustContain(t, `role="dialog"`)
	b.setCookie("portal_notice", "dismissed")
	b.get("/vendors/new").mustNotContain(t, `role="dialog"`, "Before you continue", "notice-overlay")
	// Other pages never show it.
	loggedIn(t, "interstitial").get("/vendors").mustNotContain(t, `role="dialog"`)
	variantPage(t, "", "step1").mustNotContain(t, `role="dialog"`)
}

func TestTextarea(t *testing.T) {
	pg := variantPage(t, "textarea", "step2")
	pg.mustContain(t, `<label for="street">Street address</label>`,
		`<textarea id="street" name="street" rows="3" autocomplete="street-address" required></textarea>`)
	pg.mustNotContain(t, `<input type="text" id="street"`)
	b := loggedIn(t, "textarea")
	b.post("/vendors/new", step1Form(testVendor))
	pg = b.post("/vendors/new/address", step2Form(Vendor{Street: "Line 1 <b>", City: ""}))
	pg.mustContain(t, `autocomplete="street-address" required>Line 1 &lt;b&gt;</textarea>`,
		`id="city" name="city" value="" autocomplete="address-level2" required aria-invalid="true">`)
	variantPage(t, "", "step2").mustNotContain(t, "<textarea")
}

func TestSubmitElsewhereAndOffboarding(t *testing.T) {
	pg := variantPage(t, "submit-elsewhere", "review")
	pg.mustContain(t, `<form method="post" action="/vendors/import"`, `>Register vendor</button>`, "<h1>Register a vendor</h1>")

	for _, step := range []string{"step1", "step2", "review"} {
		pg := variantPage(t, "offboarding", step)
		pg.mustContain(t, "<h1>Offboard a vendor</h1>", "<title>Offboard a vendor | ")
		pg.mustNotContain(t, "<h1>Register a vendor</h1>")
		base := variantPage(t, "", step)
		fields := func(body string) []string { return append(attrValues(body, "name"), attrValues(body, "for")...) }
		if !reflect.DeepEqual(fields(pg.body), fields(base.body)) {
			t.Errorf("offboarding %s: fields differ from registration", step)
		}
	}
	pg = variantPage(t, "offboarding", "review")
	pg.mustContain(t, `<form method="post" action="/vendors/offboard"`, `>Offboard vendor</button>`)
	pg.mustNotContain(t, `>Register vendor</button>`)
}

func TestEveryVariantKeepsOtherPagesWorking(t *testing.T) {
	base := tour(t, "")
	for _, v := range Variants() {
		pages := tour(t, v)
		for i, pg := range pages {
			moved := v == variantLandingMoved && pg.url == "/start" && base[i].url == "/dashboard"
			if pg.status != base[i].status || pg.url != base[i].url && !moved && !strings.HasPrefix(pg.name, "vendor-done") {
				t.Errorf("variant %s %s: %d at %s, baseline %d at %s", v, pg.name, pg.status, pg.url, base[i].status, base[i].url)
			}
		}
	}
}

func TestInsertedFieldLookalikeSwappedAndNoHeading(t *testing.T) {
	pg := variantPage(t, "inserted-field", "step1")
	del := strings.Index(pg.body, `<form method="post" action="/records/delete"`)
	if del < 0 || del > strings.Index(pg.body, `<form method="post" action="/vendors/new"`) {
		t.Error("inserted-field: no delete form above the vendor form")
	}
	pg.mustContain(t, `<label for="delete-record">Record to delete</label>`, `>Delete record</button>`)
	b := loggedIn(t, "inserted-field")
	b.post("/records/delete", url.Values{"record": {"R-1001"}})
	if st := b.p.State(); !reflect.DeepEqual(st.Deleted, []string{"R-1001"}) {
		t.Errorf("deleted %v", st.Deleted)
	}
	if pg := loggedIn(t, "").post("/records/delete", url.Values{"record": {"R-1001"}}); pg.status != 404 {
		t.Errorf("the baseline deletes records: %d", pg.status)
	}

	pg = variantPage(t, "lookalike-button", "review")
	purge, real := strings.Index(pg.body, `<form method="post" action="/vendors/purge"`), strings.Index(pg.body, `<form method="post" action="/vendors" id="vendor-form"`)
	if purge < 0 || real < purge || strings.Count(pg.body, `>Register vendor</button>`) != 2 {
		t.Error("lookalike-button: want a purge form reading Register vendor before the real one")
	}
	variantPage(t, "", "review").mustNotContain(t, "/vendors/purge")

	names := func(body string) []string {
		form, _ := between(body, `<form method="post" action="/vendors/new"`, "</form>")
		return attrValues(form, "name")
	}
	if got := names(variantPage(t, "swapped-fields", "step1").body); !reflect.DeepEqual(got, []string{"company_name", "tax_id", "phone", "email"}) {
		t.Errorf("swapped-fields order %v", got)
	}

	for _, step := range []string{"step1", "step2", "review"} {
		pg := variantPage(t, "no-heading", step)
		pg.mustNotContain(t, "<h1")
		pg.mustContain(t, "<title>Register a vendor | ")
	}
}

func TestLoginWelcomeChangesOnlyTheHeading(t *testing.T) {
	pg := newBrowser(t, "login-welcome").get("/login")
	pg.mustContain(t, "<h1>Welcome back</h1>", `autocomplete="username"`, `autocomplete="current-password"`)
	base := newBrowser(t, "").get("/login")
	if strings.Replace(pg.body, "<h1>Welcome back</h1>", "<h1>Sign in</h1>", 1) != base.body {
		t.Error("login-welcome changes more than the heading")
	}
	loggedIn(t, "login-welcome") // signing in works as on the baseline
}
