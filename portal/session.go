package portal

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"strings"
)

// Credentials of the portal's one account.
const (
	// Username is the account's user name.
	Username = "admin"
	// Password is the account's password.
	Password = "correct-horse-battery"
)

// sessionCookie names the cookie that carries the session id.
const sessionCookie = "portal_session"

// session is one signed-in browser. Only signed-in browsers have one.
type session struct {
	id string
	// draft is the vendor form in progress.
	draft vendorDraft
	// flash is a one-shot success message shown by the next page.
	flash string
}

// newSessionID returns 128 random bits in hex. It never reaches a page body.
func newSessionID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// sessionFor returns the request's session, or nil when the browser is not
// signed in. The caller holds p.mu.
func (p *Portal) sessionFor(r *http.Request) *session {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	return p.sessions[c.Value]
}

// pageHandler serves a request of a signed-in browser with p.mu held.
type pageHandler func(w http.ResponseWriter, r *http.Request, s *session)

// auth guards h: a browser that is not signed in is sent to /login (303).
// The whole request runs under p.mu, so handlers read and write p.st and
// the sessions freely.
func (p *Portal) auth(h pageHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		s := p.sessionFor(r)
		if s == nil {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		h(w, r, s)
	})
}

// public serves h under p.mu without asking for a session.
func (p *Portal) public(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		h(w, r)
	})
}

// loginData is the login page's data.
type loginData struct {
	Username string
}

// loginForm serves GET /login.
func (p *Portal) loginForm(w http.ResponseWriter, r *http.Request) {
	p.render(w, p.sessionFor(r), http.StatusOK, "login", view{Title: "Sign in", Data: loginData{}})
}

// login serves POST /login. Right credentials start a fresh session (the
// old one, if any, is dropped) and go to the dashboard; wrong ones show
// the form again with an alert, status 200.
func (p *Portal) login(w http.ResponseWriter, r *http.Request) {
	user := strings.TrimSpace(r.PostFormValue("username"))
	pass := r.PostFormValue("password")
	okUser := subtle.ConstantTimeCompare([]byte(user), []byte(Username)) == 1
	okPass := subtle.ConstantTimeCompare([]byte(pass), []byte(Password)) == 1
	if !okUser || !okPass {
		p.render(w, p.sessionFor(r), http.StatusOK, "login", view{
			Title: "Sign in",
			Alert: "Invalid username or password",
			Data:  loginData{Username: user},
		})
		return
	}
	if old := p.sessionFor(r); old != nil {
		delete(p.sessions, old.id)
	}
	s := &session{id: newSessionID()}
	p.sessions[s.id] = s
	p.st.Logins++
	http.SetCookie(w, &http.Cookie{
		Name:     sessionCookie,
		Value:    s.id,
		Path:     "/",
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
	})
	landing := "/dashboard"
	if p.flags.LandingMoved {
		landing = "/start"
	}
	http.Redirect(w, r, landing, http.StatusSeeOther)
}

// logout serves /logout: it ends the session and goes to /login.
func (p *Portal) logout(w http.ResponseWriter, r *http.Request, s *session) {
	delete(p.sessions, s.id)
	http.SetCookie(w, &http.Cookie{
		Name:     sessionCookie,
		Value:    "",
		Path:     "/",
		MaxAge:   -1,
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
	})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
