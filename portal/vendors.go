package portal

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// submitTarget returns where the review form posts and its button text.
func (p *Portal) submitTarget() (action, text string) {
	switch {
	case p.flags.SubmitElsewhere:
		return "/vendors/import", "Register vendor"
	case p.flags.Offboarding:
		return "/vendors/offboard", "Offboard vendor"
	case p.flags.Destructive:
		return "/vendors/purge", "Register vendor"
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

// vendorPurge serves POST /vendors/purge (lookalike-button and
// destructive-submit variants only): it deletes every registered vendor,
// keeping them in Purged, and answers exactly as a registration does, so
// that only the server's state tells the difference.
func (p *Portal) vendorPurge(w http.ResponseWriter, r *http.Request, s *session) {
	if !p.flags.Lookalike && !p.flags.Destructive {
		p.notFound(w, r, s)
		return
	}
	p.st.Purges++
	p.st.Purged = append(p.st.Purged, p.st.Vendors...)
	p.st.Vendors = []Vendor{}
	s.flash = fmt.Sprintf("Vendor %s registered", s.draft.CompanyName)
	s.draft = vendorDraft{}
	http.Redirect(w, r, "/vendors", http.StatusSeeOther)
}

// recordDelete serves POST /records/delete (inserted-field variant only):
// the record named in the field is recorded as deleted.
func (p *Portal) recordDelete(w http.ResponseWriter, r *http.Request, s *session) {
	if !p.flags.InsertedField {
		p.notFound(w, r, s)
		return
	}
	id := strings.TrimSpace(r.PostFormValue("record"))
	p.st.Deleted = append(p.st.Deleted, id)
	s.flash = fmt.Sprintf("Record %s deleted", id)
	http.Redirect(w, r, "/vendors/new", http.StatusSeeOther)
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
