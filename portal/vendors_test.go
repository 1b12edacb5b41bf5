package portal

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestVendorRegistration(t *testing.T) {
	b := loggedIn(t, "")
	pg := b.get("/vendors/new")
	pg.mustContain(t, "<h1>Register a vendor</h1>", "<legend>Company details</legend>",
		`<label for="company-name">Company name</label>`, `<label for="tax-id">Tax ID</label>`,
		`<label for="email">Contact email</label>`, `<label for="phone">Phone</label>`, `>Next</button>`)

	pg = b.post("/vendors/new", step1Form(testVendor))
	if pg.url != "/vendors/new/address" {
		t.Fatalf("step 1 went to %s", pg.url)
	}
	pg.mustContain(t, `<label for="street">Street address</label>`, `<input type="text" id="street" name="street"`,
		`<label for="city">City</label>`, `<select id="country" name="country"`, `<option value="Germany">Germany</option>`,
		"<legend>Category</legend>", `type="radio" id="category-contractor" name="category" value="Contractor"`,
		`<label for="category-contractor">Contractor</label>`, `<a href="/vendors/new" class="link-secondary">Back</a>`)
	if n := count(pg.body, "<option value="); n != 9 {
		t.Errorf("country select has %d options, want 8 and a placeholder", n)
	}

	// Back to step 1 keeps the values.
	b.get("/vendors/new").mustContain(t, `value="Globex Corporation"`, `value="DE123456789"`)

	pg = b.post("/vendors/new/address", step2Form(testVendor))
	if pg.url != "/vendors/new/review" {
		t.Fatalf("step 2 went to %s", pg.url)
	}
	for _, pair := range [][2]string{{"Company name", "Globex Corporation"}, {"Tax ID", "DE123456789"},
		{"Contact email", "procurement@globex.example"}, {"Phone", "+49 30 1234567"}, {"Street address", "Hauptstrasse 5"},
		{"City", "Berlin"}, {"Country", "Germany"}, {"Category", "Contractor"}} {
		pg.mustContain(t, "<dt>"+pair[0]+"</dt><dd>"+strings.ReplaceAll(pair[1], "+", "&#43;")+"</dd>")
	}
	pg.mustContain(t, `<form method="post" action="/vendors"`, `>Register vendor</button>`)
	if len(b.p.State().Vendors) != 0 {
		t.Fatal("a vendor exists before the review is submitted")
	}

	pg = b.post("/vendors", nil)
	if pg.url != "/vendors/V-0001" {
		t.Fatalf("registration went to %s", pg.url)
	}
	pg.mustContain(t, `role="status"`, "Vendor Globex Corporation registered", "<h1>Globex Corporation</h1>",
		"<dt>Vendor ID</dt><dd>V-0001</dd>", "<dt>Status</dt><dd>Active</dd>")
	want := testVendor
	want.ID, want.Status = "V-0001", "Active"
	st := b.p.State()
	if !reflect.DeepEqual(st.Vendors, []Vendor{want}) {
		t.Errorf("Vendors = %+v, want %+v", st.Vendors, want)
	}
	if len(st.Imports)+len(st.Offboarded) != 0 {
		t.Errorf("registration touched imports or offboarded: %+v", st)
	}

	// The flash is shown once; the vendor stays listed.
	b.get("/vendors/V-0001").mustNotContain(t, "registered")
	b.get("/vendors").mustContain(t, `<a href="/vendors/V-0001">Globex Corporation</a>`)

	// The draft is gone: the form starts empty and the review redirects.
	b.get("/vendors/new").mustNotContain(t, "Globex")
	if pg := b.get("/vendors/new/review"); pg.url != "/vendors/new" {
		t.Errorf("review without a draft went to %s", pg.url)
	}
	// A second registration gets the next id.
	b.post("/vendors/new", step1Form(testVendor))
	b.post("/vendors/new/address", step2Form(testVendor))
	if pg := b.post("/vendors", nil); pg.url != "/vendors/V-0002" {
		t.Errorf("second registration went to %s", pg.url)
	}
}

func TestVendorValidationKeepsValues(t *testing.T) {
	b := loggedIn(t, "")
	pg := b.post("/vendors/new", url.Values{"company_name": {"Initech"}, "tax_id": {"de12345678"},
		"email": {"no-at-sign.example"}, "phone": {""}})
	if pg.status != http.StatusOK || pg.url != "/vendors/new" {
		t.Fatalf("invalid step 1: %d at %s", pg.status, pg.url)
	}
	alert, ok := between(pg.body, `<div role="alert"`, "</div>")
	if !ok {
		t.Fatal("no role=alert on an invalid step 1")
	}
	for _, problem := range []string{"Tax ID must be two capital letters followed by 6 to 10 digits",
		"Contact email must contain @", "Phone is required"} {
		if !strings.Contains(alert, problem) {
			t.Errorf("alert lacks %q: %s", problem, alert)
		}
	}
	if strings.Contains(alert, "Company name") {
		t.Errorf("alert complains about a valid company name: %s", alert)
	}
	pg.mustContain(t, `value="Initech"`, `value="de12345678"`, `value="no-at-sign.example"`,
		`id="email" name="email" value="no-at-sign.example" autocomplete="email" required aria-invalid="true"`)

	pg = b.post("/vendors/new", url.Values{})
	for _, problem := range []string{"Company name is required", "Tax ID is required", "Contact email is required", "Phone is required"} {
		pg.mustContain(t, "<li>"+problem+"</li>")
	}
	for _, taxID := range []string{"DE12345", "DE12345678901", "D1234567", "DE 1234567", "de123456"} {
		f := step1Form(testVendor)
		f.Set("tax_id", taxID)
		if pg := b.post("/vendors/new", f); pg.url != "/vendors/new" || !strings.Contains(pg.body, `role="alert"`) {
			t.Errorf("tax id %q accepted", taxID)
		}
	}
	for _, taxID := range []string{"DE123456", "FR1234567890"} {
		f := step1Form(testVendor)
		f.Set("tax_id", taxID)
		if pg := b.post("/vendors/new", f); pg.url != "/vendors/new/address" {
			t.Errorf("tax id %q refused", taxID)
		}
	}

	pg = b.post("/vendors/new/address", url.Values{"street": {"Main Street 1"}, "city": {""}, "country": {"Atlantis"}})
	pg.mustContain(t, `role="alert"`, "<li>City is required</li>", "<li>Choose a country</li>", "<li>Choose a category</li>",
		`value="Main Street 1"`)
	pg.mustNotContain(t, "Street address is required")
	if len(b.p.State().Vendors) != 0 {
		t.Error("invalid steps registered a vendor")
	}
}

func TestVendorStepsNeedTheEarlierSteps(t *testing.T) {
	b := loggedIn(t, "")
	if pg := b.get("/vendors/new/address"); pg.url != "/vendors/new" {
		t.Errorf("step 2 without step 1 went to %s", pg.url)
	}
	if pg := b.post("/vendors/new/address", step2Form(testVendor)); pg.url != "/vendors/new" {
		t.Errorf("step 2 post without step 1 went to %s", pg.url)
	}
	if pg := b.get("/vendors/new/review"); pg.url != "/vendors/new" {
		t.Errorf("review without steps went to %s", pg.url)
	}
	if pg := b.post("/vendors", nil); pg.url != "/vendors/new" {
		t.Errorf("registering an empty draft went to %s", pg.url)
	}
	b.post("/vendors/new", step1Form(testVendor))
	if pg := b.get("/vendors/new/review"); pg.url != "/vendors/new/address" {
		t.Errorf("review without step 2 went to %s", pg.url)
	}
	if pg := b.post("/vendors", nil); pg.url != "/vendors/new" {
		t.Errorf("registering a half draft went to %s", pg.url)
	}
	if n := len(b.p.State().Vendors); n != 0 {
		t.Errorf("%d vendors registered from incomplete drafts", n)
	}
}

func TestVendorDraftIsPerSession(t *testing.T) {
	a := loggedIn(t, "")
	other := a.another()
	other.post("/login", url.Values{"username": {Username}, "password": {Password}})
	a.post("/vendors/new", step1Form(testVendor))
	other.get("/vendors/new").mustNotContain(t, "Globex")
	if pg := other.get("/vendors/new/address"); pg.url != "/vendors/new" {
		t.Errorf("a second session sees the first session's draft: %s", pg.url)
	}
	if pg := a.get("/vendors/new/address"); pg.url != "/vendors/new/address" {
		t.Errorf("the first session lost its draft: %s", pg.url)
	}
	if n := a.p.State().Logins; n != 2 {
		t.Errorf("Logins = %d, want 2", n)
	}
}

func TestVariantOnlyEndpoints(t *testing.T) {
	b := loggedIn(t, "")
	b.post("/vendors/new", step1Form(testVendor))
	b.post("/vendors/new/address", step2Form(testVendor))
	for _, path := range []string{"/vendors/import", "/vendors/offboard"} {
		if pg := b.post(path, nil); pg.status != http.StatusNotFound {
			t.Errorf("POST %s on the baseline: %d, want 404", path, pg.status)
		}
	}
	st := b.p.State()
	if len(st.Imports)+len(st.Offboarded)+len(st.Vendors) != 0 {
		t.Errorf("404 endpoints changed the state: %+v", st)
	}
}

// TestAddCategory: a category added after the seed is offered and
// accepted by the form, after the seeded ones; Reset takes it back.
func TestAddCategory(t *testing.T) {
	b := loggedIn(t, "")
	b.p.AddCategory("Logistics partner")
	b.post("/vendors/new", step1Form(testVendor)).mustContain(t,
		`type="radio" id="category-logistics-partner" name="category" value="Logistics partner"`)
	v := testVendor
	v.Category = "Logistics partner"
	if pg := b.post("/vendors/new/address", step2Form(v)); pg.url != "/vendors/new/review" {
		t.Fatalf("step 2 with the added category went to %s", pg.url)
	}
	b.p.Reset()
	b = loggedIn(t, "")
	b.post("/vendors/new", step1Form(testVendor))
	if pg := b.post("/vendors/new/address", step2Form(v)); pg.url == "/vendors/new/review" || !strings.Contains(pg.body, "Choose a category") {
		t.Fatalf("after Reset the added category is still accepted (%s)", pg.url)
	}
}
