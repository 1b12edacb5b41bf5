package portal

import (
	"fmt"
	"net/http"
	"net/url"
)

// submitTarget returns where the review form posts and its button text.
func (p *Portal) submitTarget() (action, text string) {
	switch {
	case p.flags.SubmitElsewhere:
		return "/vendors/import", "Register vendor"
	case p.flags.Offboarding:
		return "/vendors/offboard", "Offboard vendor"
	}
	return "/vendors", "Register vendor"
}

// vendorReview serves GET /vendors/new/review: the draft as a definition
// list and the form that submits it.
func (p *Portal) vendorReview(w http.ResponseWriter, r *http.Request, s *session) {
	if !s.draft.step1 || !s.draft.step2 {
		http.Redirect(w, r, "/vendors/new/address", http.StatusSeeOther)
		return
	}
	action, text := p.submitTarget()
	p.render(w, s, http.StatusOK, "vendor_review", view{Title: p.heading(), Section: "/vendors/new",
		Data: vendorPage{Heading: p.heading(), Step: "Step 3 of 3: Review", Draft: s.draft,
			Action: action, SubmitText: text}})
}

// submitDraft turns the session's complete draft into a vendor, appends it
// to *list with an id of prefix and the list's next number, clears the
// draft and shows the vendor with the status message. An incomplete draft
// goes back to the form.
func (p *Portal) submitDraft(w http.ResponseWriter, r *http.Request, s *session, list *[]Vendor, prefix, status, message string) {
	if !s.draft.step1 || !s.draft.step2 {
		http.Redirect(w, r, "/vendors/new", http.StatusSeeOther)
		return
	}
	v := s.draft.vendor(fmt.Sprintf("%s-%04d", prefix, len(*list)+1), status)
	*list = append(*list, v)
	s.draft = vendorDraft{}
	s.flash = fmt.Sprintf(message, v.CompanyName)
	http.Redirect(w, r, "/vendors/"+url.PathEscape(v.ID), http.StatusSeeOther)
}

// vendorRegister serves POST /vendors: registers the draft (every variant).
func (p *Portal) vendorRegister(w http.ResponseWriter, r *http.Request, s *session) {
	p.submitDraft(w, r, s, &p.st.Vendors, "V", "Active", "Vendor %s registered")
}

// vendorImport serves POST /vendors/import (submit-elsewhere variant only):
// queues the draft as an import instead of registering it.
func (p *Portal) vendorImport(w http.ResponseWriter, r *http.Request, s *session) {
	if !p.flags.SubmitElsewhere {
		p.notFound(w, r, s)
		return
	}
	p.submitDraft(w, r, s, &p.st.Imports, "IMP", "Queued for import", "Vendor %s queued for import")
}

// vendorOffboard serves POST /vendors/offboard (offboarding variant only):
// records the draft as offboarded.
func (p *Portal) vendorOffboard(w http.ResponseWriter, r *http.Request, s *session) {
	if !p.flags.Offboarding {
		p.notFound(w, r, s)
		return
	}
	p.submitDraft(w, r, s, &p.st.Offboarded, "OFF", "Offboarded", "Vendor %s offboarded")
}

// vendorList serves GET /vendors: the registered vendors.
func (p *Portal) vendorList(w http.ResponseWriter, _ *http.Request, s *session) {
	p.render(w, s, http.StatusOK, "vendors", view{Title: "Vendors", Section: "/vendors", Data: p.st.Vendors})
}

// vendorDetail serves GET /vendors/{id} for a registered, queued or
// offboarded vendor.
func (p *Portal) vendorDetail(w http.ResponseWriter, r *http.Request, s *session) {
	id := r.PathValue("id")
	for _, list := range [][]Vendor{p.st.Vendors, p.st.Imports, p.st.Offboarded} {
		for _, v := range list {
			if v.ID == id {
				p.render(w, s, http.StatusOK, "vendor", view{Title: v.CompanyName, Section: "/vendors", Data: v})
				return
			}
		}
	}
	p.notFound(w, r, s)
}
