package portal

import (
	"net/url"
	"regexp"
	"testing"
)

// namedPage is one stop of a tour.
type namedPage struct {
	name string
	page
}

// testVendor is the vendor the tests register.
var testVendor = Vendor{
	CompanyName: "Globex Corporation",
	TaxID:       "DE123456789",
	Email:       "procurement@globex.example",
	Phone:       "+49 30 1234567",
	Street:      "Hauptstrasse 5",
	City:        "Berlin",
	Country:     "Germany",
	Category:    "Contractor",
}

// step1Form and step2Form are the vendor form's pages filled with v.
func step1Form(v Vendor) url.Values {
	return url.Values{"company_name": {v.CompanyName}, "tax_id": {v.TaxID}, "email": {v.Email}, "phone": {v.Phone}}
}

func step2Form(v Vendor) url.Values {
	return url.Values{"street": {v.Street}, "city": {v.City}, "country": {v.Country}, "category": {v.Category}}
}

var formAction = regexp.MustCompile(`<form method="post" action="([^"]+)"`)

// tour visits every page of a fresh portal of the variant in a fixed
// order, submitting every form once (errors included), and returns what
// it saw. The same tour of two variants visits the same pages in the same
// states, so pages can be compared by position.
func tour(t *testing.T, variant string) []namedPage {
	t.Helper()
	b := newBrowser(t, variant)
	var out []namedPage
	add := func(name string, pg page) {
		if pg.status >= 500 {
			t.Fatalf("variant %q %s: status %d: %s", variant, name, pg.status, pg.body)
		}
		out = append(out, namedPage{name: name, page: pg})
	}
	add("login", b.get("/login"))
	add("login-error", b.post("/login", url.Values{"username": {"admin"}, "password": {"nope"}}))
	add("dashboard", b.post("/login", url.Values{"username": {Username}, "password": {Password}}))
	add("records", b.get("/records"))
	add("records-2", b.get("/records?page=2"))
	add("record", b.get("/records/R-1001"))
	add("record-edit", b.get("/records/R-1001/edit"))
	add("records-archived", b.post("/records/R-1002/archive", url.Values{"page": {"1"}}))
	add("vendors-empty", b.get("/vendors"))
	add("vendor-step1", b.get("/vendors/new"))
	add("vendor-step1-error", b.post("/vendors/new", url.Values{"company_name": {""}, "tax_id": {"de12"}, "email": {"nobody"}, "phone": {""}}))
	add("vendor-step2", b.post("/vendors/new", step1Form(testVendor)))
	add("vendor-step2-error", b.post("/vendors/new/address", url.Values{"street": {""}, "city": {"Berlin"}}))
	review := b.post("/vendors/new/address", step2Form(testVendor))
	add("vendor-review", review)
	m := formAction.FindStringSubmatch(review.body)
	if m == nil {
		t.Fatalf("variant %q: no form on the review page", variant)
	}
	add("vendor-done", b.post(m[1], nil))
	add("vendors", b.get("/vendors"))
	add("catalog", b.get("/catalog"))
	add("catalog-search", b.get("/catalog?q=desk"))
	add("catalog-none", b.get("/catalog?q=zzz"))
	add("product", b.get("/catalog/SKU-001"))
	add("catalog-added", b.post("/catalog/SKU-002/cart", url.Values{"q": {"desk"}}))
	add("inbox", b.get("/inbox"))
	add("message", b.get("/inbox/M-01"))
	add("message-error", b.post("/inbox/M-01/triage", url.Values{"category": {""}}))
	add("inbox-filed", b.post("/inbox/M-01/triage", url.Values{"category": {"Billing"}}))
	add("message-filed", b.get("/inbox/M-01"))
	add("settings", b.get("/settings"))
	add("settings-error", b.post("/settings", url.Values{"site_title": {""}, "timezone": {"UTC"}}))
	add("settings-saved", b.post("/settings", url.Values{"site_title": {"Acme Ops"}, "timezone": {"Asia/Tokyo"}, "weekly_digest": {"on"}}))
	add("reports", b.get("/reports"))
	add("notfound", b.get("/no/such/page"))
	add("dashboard-after", b.get("/dashboard"))
	return out
}
