package portal

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestNewRejectsUnknownVariant(t *testing.T) {
	for _, name := range []string{"nope", "Cosmetic", " renames", "baseline"} {
		p, err := New(Config{Variant: name})
		if !errors.Is(err, ErrUnknownVariant) {
			t.Errorf("New(%q) error = %v, want ErrUnknownVariant", name, err)
		}
		if err != nil && !strings.Contains(err.Error(), name) {
			t.Errorf("New(%q) error %q does not name the variant", name, err)
		}
		if p != nil {
			t.Errorf("New(%q) returned a portal", name)
		}
	}
}

func TestVariantsAreValidAndFixed(t *testing.T) {
	want := []string{"cosmetic", "renames", "remount", "label-rename", "field-order", "moved-button",
		"interstitial", "textarea", "submit-elsewhere", "offboarding", "inserted-field", "lookalike-button", "swapped-fields",
		"destructive-submit", "no-heading", "landing-moved", "login-welcome"}
	if got := Variants(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Variants() = %v, want %v", got, want)
	}
	for _, v := range append([]string{""}, want...) {
		p, err := New(Config{Variant: v})
		if err != nil {
			t.Fatalf("New(%q): %v", v, err)
		}
		if p.Variant() != v {
			t.Errorf("Variant() = %q, want %q", p.Variant(), v)
		}
	}
}

func TestLoginWrongCredentials(t *testing.T) {
	b := newBrowser(t, "")
	pg := b.get("/login")
	pg.mustContain(t, `<label for="username">Username</label>`, `type="password"`,
		`<label for="password">Password</label>`, `>Sign in</button>`)
	for _, creds := range [][2]string{{"admin", "wrong"}, {"root", Password}, {"", ""}} {
		pg = b.post("/login", url.Values{"username": {creds[0]}, "password": {creds[1]}})
		if pg.status != http.StatusOK || pg.url != "/login" {
			t.Errorf("wrong login: status %d at %s, want 200 at /login", pg.status, pg.url)
		}
		pg.mustContain(t, `role="alert"`, "Invalid username or password")
	}
	if n := b.p.State().Logins; n != 0 {
		t.Errorf("Logins = %d after failed attempts, want 0", n)
	}
	if pg := b.get("/dashboard"); pg.url != "/login" {
		t.Errorf("after failed logins /dashboard landed on %s, want /login", pg.url)
	}
}

func TestLoginRightCredentials(t *testing.T) {
	b := newBrowser(t, "")
	pg := b.post("/login", url.Values{"username": {Username}, "password": {Password}})
	if pg.url != "/dashboard" || pg.status != http.StatusOK {
		t.Fatalf("login landed on %s (%d), want /dashboard", pg.url, pg.status)
	}
	pg.mustContain(t, "<h1>Dashboard</h1>", "Signed in as admin")
	pg.mustNotContain(t, "Invalid username")
	if n := b.p.State().Logins; n != 1 {
		t.Errorf("Logins = %d, want 1", n)
	}
	u, _ := url.Parse(b.srv.URL)
	var sid string
	for _, c := range b.http.Jar.Cookies(u) {
		if c.Name == "portal_session" {
			sid = c.Value
		}
	}
	if sid == "" {
		t.Fatal("no portal_session cookie after login")
	}
	pg.mustNotContain(t, sid)
}

func TestLoggedOutRedirectsToLogin(t *testing.T) {
	b := newBrowser(t, "")
	b.http.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	paths := []string{"/", "/dashboard", "/records", "/records?page=2", "/records/R-1001", "/vendors",
		"/vendors/new", "/vendors/new/address", "/vendors/new/review", "/vendors/V-0001", "/catalog",
		"/catalog/SKU-001", "/inbox", "/inbox/M-01", "/settings", "/reports",
		"/reports/RPT-2026-11/download", "/no/such/page", "/logout"}
	for _, path := range paths {
		pg := b.get(path)
		if pg.status != http.StatusSeeOther || pg.header.Get("Location") != "/login" {
			t.Errorf("GET %s: %d to %q, want 303 to /login", path, pg.status, pg.header.Get("Location"))
		}
	}
	for _, path := range []string{"/vendors", "/vendors/new", "/records/R-1001/archive", "/settings", "/inbox/M-01/triage"} {
		pg := b.post(path, url.Values{"x": {"y"}})
		if pg.status != http.StatusSeeOther || pg.header.Get("Location") != "/login" {
			t.Errorf("POST %s: %d to %q, want 303 to /login", path, pg.status, pg.header.Get("Location"))
		}
	}
	st := b.p.State()
	if len(st.Archived) != 0 || len(st.Triage) != 0 || st.Settings != seedState().Settings {
		t.Errorf("signed-out posts changed the state: %+v", st)
	}
	if pg := b.get("/login"); pg.status != http.StatusOK {
		t.Errorf("GET /login signed out: %d", pg.status)
	}
	if pg := b.get("/static/portal.css"); pg.status != http.StatusOK || !strings.HasPrefix(pg.header.Get("Content-Type"), "text/css") {
		t.Errorf("GET /static/portal.css signed out: %d %s", pg.status, pg.header.Get("Content-Type"))
	}
}

func TestLogout(t *testing.T) {
	b := loggedIn(t, "")
	pg := b.get("/logout")
	if pg.url != "/login" {
		t.Fatalf("logout landed on %s", pg.url)
	}
	pg.mustNotContain(t, "Signed in as admin")
	if pg := b.get("/dashboard"); pg.url != "/login" {
		t.Errorf("after logout /dashboard landed on %s", pg.url)
	}
}

func TestEveryPageHasTheChrome(t *testing.T) {
	for _, pg := range tour(t, "") {
		pg.mustContain(t, "<header", `<nav aria-label="Main"`, "<main", "<h1>", "</footer>")
		nav, _ := element(pg.body, "nav")
		for _, l := range []string{"Dashboard", "Records", "Vendors", "Register vendor", "Catalog", "Inbox", "Settings", "Reports", "Log out"} {
			if !strings.Contains(nav, ">"+l+"</a>") {
				t.Errorf("%s: main nav lacks %q", pg.name, l)
			}
		}
		if count(pg.body, "<h1>") != 1 {
			t.Errorf("%s: %d h1 elements", pg.name, count(pg.body, "<h1>"))
		}
	}
}

func TestNotFound(t *testing.T) {
	b := loggedIn(t, "")
	for _, path := range []string{"/no/such/page", "/records/R-9999", "/vendors/V-0001", "/catalog/SKU-999",
		"/inbox/M-99", "/reports/RPT-1999-01/download", "/records/"} {
		pg := b.get(path)
		if pg.status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, pg.status)
		}
		pg.mustContain(t, "<h1>Page not found</h1>")
	}
}

func TestStateEndpointAndReset(t *testing.T) {
	b := loggedIn(t, "")
	b.post("/records/R-1003/archive", url.Values{"page": {"1"}})
	b.post("/inbox/M-02/triage", url.Values{"category": {"Technical"}})

	// /__state needs no session.
	anon := &http.Client{}
	resp, err := anon.Get(b.srv.URL + "/__state")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("/__state content type %q", resp.Header.Get("Content-Type"))
	}
	for _, key := range []string{"logins", "vendors", "offboarded", "imports", "triage", "settings", "downloads", "archived"} {
		if _, ok := raw[key]; !ok {
			t.Errorf("/__state lacks %q: %v", key, raw)
		}
	}
	settings, _ := raw["settings"].(map[string]any)
	for _, key := range []string{"site_title", "timezone", "email_notifications", "weekly_digest"} {
		if _, ok := settings[key]; !ok {
			t.Errorf("/__state settings lack %q", key)
		}
	}
	if got := raw["archived"]; !reflect.DeepEqual(got, []any{"R-1003"}) {
		t.Errorf("archived = %v", got)
	}
	if got := raw["triage"]; !reflect.DeepEqual(got, map[string]any{"M-02": "Technical"}) {
		t.Errorf("triage = %v", got)
	}
	if got := raw["logins"]; got != 1.0 {
		t.Errorf("logins = %v", got)
	}

	if resp, err := anon.Get(b.srv.URL + "/__reset"); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /__reset: %v %v, want 405", resp.StatusCode, err)
	}
	resp, err = anon.Post(b.srv.URL+"/__reset", "", nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /__reset: %v %v", resp.StatusCode, err)
	}
	resp.Body.Close()
	if got, want := b.p.State(), seedState(); !reflect.DeepEqual(got, want) {
		t.Errorf("state after reset = %+v, want the seed %+v", got, want)
	}
	if pg := b.get("/dashboard"); pg.url != "/login" {
		t.Errorf("reset kept the session: /dashboard landed on %s", pg.url)
	}
}

func TestResetMethodAndStateCopy(t *testing.T) {
	b := loggedIn(t, "")
	b.post("/records/R-1001/archive", nil)
	st := b.p.State()
	st.Archived[0] = "changed"
	st.Triage["M-01"] = "changed"
	if got := b.p.State(); got.Archived[0] != "R-1001" || len(got.Triage) != 0 {
		t.Errorf("State() shares memory with the portal: %+v", got)
	}
	b.p.Reset()
	if got := b.p.State(); !reflect.DeepEqual(got, seedState()) {
		t.Errorf("after Reset: %+v", got)
	}
}

func TestOutputIsDeterministic(t *testing.T) {
	for _, v := range append([]string{""}, Variants()...) {
		a, b := tour(t, v), tour(t, v)
		for i := range a {
			if a[i].body != b[i].body {
				t.Errorf("variant %q page %s differs between two portals", v, a[i].name)
			}
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	b := loggedIn(t, "")
	errs := make(chan error, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 {
			_ = b.p.State()
		}
	}()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			id := records[i].ID
			resp, err := b.http.PostForm(b.srv.URL+"/records/"+id+"/archive", url.Values{"page": {"1"}})
			if err != nil {
				errs <- err
				return
			}
			resp.Body.Close()
			for _, path := range []string{"/records", "/dashboard", "/__state"} {
				resp, err := b.http.Get(b.srv.URL + path)
				if err != nil {
					errs <- err
					return
				}
				if resp.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("GET %s: %d", path, resp.StatusCode)
				}
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	<-done
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := len(b.p.State().Archived); n != 8 {
		t.Errorf("%d archived, want 8", n)
	}
}
