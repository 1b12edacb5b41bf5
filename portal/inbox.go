package portal

import (
	"net/http"
	"slices"
)

// inboxCategories are the categories a message can be filed as.
var inboxCategories = []string{"Billing", "Technical", "Account", "Spam"}

// ExpectedCategory returns the category the body of inbox message id (M-01
// to M-12) calls for, and whether the message exists. Verifiers compare it
// with State.Triage.
func ExpectedCategory(id string) (string, bool) {
	m, ok := findMessage(id)
	return m.Category, ok
}

// inbox serves GET /inbox: the seeded messages in a table.
func (p *Portal) inbox(w http.ResponseWriter, _ *http.Request, s *session) {
	p.render(w, s, http.StatusOK, "inbox", view{Title: "Inbox", Section: "/inbox", Data: messages})
}

// messageData is the data of a message page.
type messageData struct {
	Message    message
	Filed      string
	Categories []choice
	Invalid    bool
}

// messageView is the view of message m, with selected preselected.
func (p *Portal) messageView(m message, selected string, invalid bool) view {
	d := messageData{Message: m, Filed: p.st.Triage[m.ID], Invalid: invalid}
	for _, c := range inboxCategories {
		d.Categories = append(d.Categories, choice{Value: c, Selected: c == selected})
	}
	return view{Title: m.Subject, Section: "/inbox", Data: d}
}

// messageDetail serves GET /inbox/{id}: the message and the form that files it.
func (p *Portal) messageDetail(w http.ResponseWriter, r *http.Request, s *session) {
	m, ok := findMessage(r.PathValue("id"))
	if !ok {
		p.notFound(w, r, s)
		return
	}
	p.render(w, s, http.StatusOK, "message", p.messageView(m, p.st.Triage[m.ID], false))
}

// triage serves POST /inbox/{id}/triage: files the message under the
// chosen category and goes to the inbox with the status
// "Filed <subject> as <category>". No category shows the message again
// with an alert.
func (p *Portal) triage(w http.ResponseWriter, r *http.Request, s *session) {
	m, ok := findMessage(r.PathValue("id"))
	if !ok {
		p.notFound(w, r, s)
		return
	}
	cat := r.PostFormValue("category")
	if !slices.Contains(inboxCategories, cat) {
		v := p.messageView(m, "", true)
		v.Alert = "Choose a category to file the message"
		p.render(w, s, http.StatusOK, "message", v)
		return
	}
	p.st.Triage[m.ID] = cat
	s.flash = "Filed " + m.Subject + " as " + cat
	http.Redirect(w, r, "/inbox", http.StatusSeeOther)
}
