package portal

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// The vendor form is three pages: company details (/vendors/new), address
// and category (/vendors/new/address), and review (/vendors/new/review),
// whose form submits to /vendors (or, per variant, /vendors/import or
// /vendors/offboard; see vendors.go). The draft lives in the session
// between pages.

// vendorDraft is the vendor form in progress.
type vendorDraft struct {
	CompanyName, TaxID, Email, Phone string
	Street, City, Country, Category  string
	// step1, step2 record which pages were submitted valid.
	step1, step2 bool
}

// vendor returns the draft as a vendor with the given id and status.
func (d vendorDraft) vendor(id, status string) Vendor {
	return Vendor{
		ID: id, CompanyName: d.CompanyName, TaxID: d.TaxID, Email: d.Email, Phone: d.Phone,
		Street: d.Street, City: d.City, Country: d.Country, Category: d.Category, Status: status,
	}
}

var (
	taxIDPattern    = regexp.MustCompile(`^[A-Z]{2}[0-9]{6,10}$`)
	vendorCountries = []string{"France", "Germany", "Italy", "Japan", "Netherlands", "Spain", "United Kingdom", "United States"}
	// vendorCategories are the seeded categories; AddCategory adds one.
	vendorCategories = []string{"Supplier", "Contractor", "Reseller"}
)

// noticeCookie is set by the interstitial's Continue button.
const noticeCookie = "portal_notice"

// formField is one labelled input of a form.
type formField struct {
	ID, Name, Label, Type, Autocomplete, Value string
	Hint                                       string
	Invalid                                    bool
}

// choice is one option of a select or radio group.
type choice struct {
	ID, Value string
	Selected  bool
}

// vendorPage is what all three vendor pages share.
type vendorPage struct {
	Heading string
	Step    string
	// Notice shows the interstitial dialog (interstitial variant, not yet
	// dismissed).
	Notice bool
	Fields []formField
	// Step 2.
	Street, City    string
	StreetInvalid   bool
	CityInvalid     bool
	Countries       []choice
	Categories      []choice
	CountryInvalid  bool
	CategoryInvalid bool
	// Review.
	Draft              vendorDraft
	Action, SubmitText string
}

// heading is the h1 (and title) of the vendor form pages.
func (p *Portal) heading() string {
	if p.flags.Offboarding {
		return "Offboard a vendor"
	}
	return "Register a vendor"
}

// companyNameLabel is the label of the company name field on step 1.
func (p *Portal) companyNameLabel() string {
	if p.flags.LabelRename {
		return "Legal entity name"
	}
	return "Company name"
}

// step1Fields returns the four fields of step 1 holding d's values, in
// the order the variant shows them.
func (p *Portal) step1Fields(d vendorDraft, invalid map[string]bool) []formField {
	fields := []formField{
		{ID: "company-name", Name: "company_name", Label: p.companyNameLabel(), Type: "text", Autocomplete: "organization", Value: d.CompanyName},
		{ID: "tax-id", Name: "tax_id", Label: "Tax ID", Type: "text", Autocomplete: "off", Value: d.TaxID,
			Hint: "Two capital letters followed by 6 to 10 digits, for example DE123456789."},
		{ID: "email", Name: "email", Label: "Contact email", Type: "email", Autocomplete: "email", Value: d.Email},
		{ID: "phone", Name: "phone", Label: "Phone", Type: "tel", Autocomplete: "tel", Value: d.Phone},
	}
	for i := range fields {
		fields[i].Invalid = invalid[fields[i].Name]
	}
	if p.flags.FieldOrder {
		slices.Reverse(fields)
	}
	if p.flags.SwappedFields {
		fields[2], fields[3] = fields[3], fields[2]
	}
	return fields
}

// step1View is the view of step 1.
func (p *Portal) step1View(r *http.Request, d vendorDraft, invalid map[string]bool, problems []string) view {
	v := view{Title: p.heading(), Section: "/vendors/new", Errors: problems}
	if len(problems) > 0 {
		v.Alert = "Please correct the following problems:"
	}
	notice := false
	if p.flags.Interstitial {
		c, err := r.Cookie(noticeCookie)
		notice = err != nil || c.Value != "dismissed"
	}
	v.Data = vendorPage{Heading: p.heading(), Step: "Step 1 of 3: Company details", Notice: notice,
		Fields: p.step1Fields(d, invalid)}
	return v
}

// vendorStep1 serves GET /vendors/new with the draft's values.
func (p *Portal) vendorStep1(w http.ResponseWriter, r *http.Request, s *session) {
	p.render(w, s, http.StatusOK, "vendor_step1", p.step1View(r, s.draft, nil, nil))
}

// vendorStep1Post serves POST /vendors/new: all four fields are required,
// the email needs an @ and the tax id must match taxIDPattern. Problems
// show the page again with the values kept; else on to step 2.
func (p *Portal) vendorStep1Post(w http.ResponseWriter, r *http.Request, s *session) {
	d := s.draft
	d.CompanyName = strings.TrimSpace(r.PostFormValue("company_name"))
	d.TaxID = strings.TrimSpace(r.PostFormValue("tax_id"))
	d.Email = strings.TrimSpace(r.PostFormValue("email"))
	d.Phone = strings.TrimSpace(r.PostFormValue("phone"))
	invalid := map[string]bool{}
	var problems []string
	bad := func(name, problem string) {
		invalid[name] = true
		problems = append(problems, problem)
	}
	if d.CompanyName == "" {
		bad("company_name", p.companyNameLabel()+" is required")
	}
	switch {
	case d.TaxID == "":
		bad("tax_id", "Tax ID is required")
	case !taxIDPattern.MatchString(d.TaxID):
		bad("tax_id", "Tax ID must be two capital letters followed by 6 to 10 digits")
	}
	switch {
	case d.Email == "":
		bad("email", "Contact email is required")
	case !strings.Contains(d.Email, "@"):
		bad("email", "Contact email must contain @")
	}
	if d.Phone == "" {
		bad("phone", "Phone is required")
	}
	if len(problems) > 0 {
		p.render(w, s, http.StatusOK, "vendor_step1", p.step1View(r, d, invalid, problems))
		return
	}
	d.step1 = true
	s.draft = d
	http.Redirect(w, r, "/vendors/new/address", http.StatusSeeOther)
}

// step2View is the view of step 2.
func (p *Portal) step2View(d vendorDraft, invalid map[string]bool, problems []string) view {
	v := view{Title: p.heading(), Section: "/vendors/new", Errors: problems}
	if len(problems) > 0 {
		v.Alert = "Please correct the following problems:"
	}
	page := vendorPage{Heading: p.heading(), Step: "Step 2 of 3: Address and category",
		Street: d.Street, City: d.City,
		StreetInvalid: invalid["street"], CityInvalid: invalid["city"],
		CountryInvalid: invalid["country"], CategoryInvalid: invalid["category"]}
	for _, c := range vendorCountries {
		page.Countries = append(page.Countries, choice{Value: c, Selected: c == d.Country})
	}
	for _, c := range p.categories {
		page.Categories = append(page.Categories,
			choice{ID: "category-" + strings.ReplaceAll(strings.ToLower(c), " ", "-"), Value: c, Selected: c == d.Category})
	}
	v.Data = page
	return v
}

// vendorStep2 serves GET /vendors/new/address; without a valid step 1 it
// goes back there.
func (p *Portal) vendorStep2(w http.ResponseWriter, r *http.Request, s *session) {
	if !s.draft.step1 {
		http.Redirect(w, r, "/vendors/new", http.StatusSeeOther)
		return
	}
	p.render(w, s, http.StatusOK, "vendor_step2", p.step2View(s.draft, nil, nil))
}

// vendorStep2Post serves POST /vendors/new/address: street and city are
// required, country and category must be among the choices.
func (p *Portal) vendorStep2Post(w http.ResponseWriter, r *http.Request, s *session) {
	if !s.draft.step1 {
		http.Redirect(w, r, "/vendors/new", http.StatusSeeOther)
		return
	}
	d := s.draft
	d.Street = strings.TrimSpace(r.PostFormValue("street"))
	d.City = strings.TrimSpace(r.PostFormValue("city"))
	d.Country = r.PostFormValue("country")
	d.Category = r.PostFormValue("category")
	invalid := map[string]bool{}
	var problems []string
	bad := func(name, problem string) {
		invalid[name] = true
		problems = append(problems, problem)
	}
	if d.Street == "" {
		bad("street", "Street address is required")
	}
	if d.City == "" {
		bad("city", "City is required")
	}
	if !slices.Contains(vendorCountries, d.Country) {
		bad("country", "Choose a country")
	}
	if !slices.Contains(p.categories, d.Category) {
		bad("category", "Choose a category")
	}
	if len(problems) > 0 {
		p.render(w, s, http.StatusOK, "vendor_step2", p.step2View(d, invalid, problems))
		return
	}
	d.step2 = true
	s.draft = d
	http.Redirect(w, r, "/vendors/new/review", http.StatusSeeOther)
}

// AddCategory adds a vendor category to the registration form, after
// the seeded ones: a value a playbook learned before it existed must
// choose it when the task names it. Reset takes it back.
func (p *Portal) AddCategory(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.categories, name) {
		p.categories = append(p.categories, name)
	}
}
