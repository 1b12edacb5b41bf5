package portal

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// browser is a test client with a cookie jar against one portal.
type browser struct {
	t    *testing.T
	p    *Portal
	srv  *httptest.Server
	http *http.Client
}

// page is one response as the tests see it.
type page struct {
	status int
	url    string // the final URL path and query, after redirects
	body   string
	header http.Header
}

// newBrowser serves a new portal of the given variant and returns a
// signed-out browser for it.
func newBrowser(t *testing.T, variant string) *browser {
	t.Helper()
	p, err := New(Config{Variant: variant})
	if err != nil {
		t.Fatalf("New(%q): %v", variant, err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, p: p, srv: srv, http: &http.Client{Jar: jar}}
}

// loggedIn returns a browser already signed in.
func loggedIn(t *testing.T, variant string) *browser {
	t.Helper()
	b := newBrowser(t, variant)
	pg := b.post("/login", url.Values{"username": {Username}, "password": {Password}})
	want := "/dashboard"
	if variant == variantLandingMoved {
		want = "/start"
	}
	if pg.url != want {
		b.t.Fatalf("login landed on %s, want %s", pg.url, want)
	}
	return b
}

// another returns a second, signed-out browser on the same portal.
func (b *browser) another() *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return &browser{t: b.t, p: b.p, srv: b.srv, http: &http.Client{Jar: jar}}
}

// do sends req, following redirects, and reads the whole response.
func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	resp, err := b.http.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return page{status: resp.StatusCode, url: resp.Request.URL.RequestURI(), body: string(body), header: resp.Header}
}

// get fetches path.
func (b *browser) get(path string) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.srv.URL+path, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.do(req)
}

// post submits form to path as a browser would.
func (b *browser) post(path string, form url.Values) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.srv.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

// setCookie puts a cookie into the browser's jar, as page script would.
func (b *browser) setCookie(name, value string) {
	u, _ := url.Parse(b.srv.URL)
	b.http.Jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/"}})
}

// mustContain fails unless every want is in the body.
func (pg page) mustContain(t *testing.T, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(pg.body, w) {
			t.Errorf("%s: body lacks %q", pg.url, w)
		}
	}
}

// mustNotContain fails if any unwanted string is in the body.
func (pg page) mustNotContain(t *testing.T, unwanted ...string) {
	t.Helper()
	for _, u := range unwanted {
		if strings.Contains(pg.body, u) {
			t.Errorf("%s: body has %q", pg.url, u)
		}
	}
}

var (
	scriptOrStyle = regexp.MustCompile(`(?s)<(script|style)\b.*?</(script|style)>`)
	anyTag        = regexp.MustCompile(`<[^>]*>`)
	spaces        = regexp.MustCompile(`\s+`)
)

// visibleText is the page's text with scripts, styles and tags removed and
// whitespace collapsed.
func visibleText(html string) string {
	s := scriptOrStyle.ReplaceAllString(html, " ")
	s = anyTag.ReplaceAllString(s, " ")
	return strings.TrimSpace(spaces.ReplaceAllString(s, " "))
}

// between returns the text between the first open and the following close.
func between(s, open, close string) (string, bool) {
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	s = s[i+len(open):]
	j := strings.Index(s, close)
	if j < 0 {
		return "", false
	}
	return s[:j], true
}

// element returns the inner HTML of the first <tag ...> element, assuming
// it does not nest in itself.
func element(html, tag string) (string, bool) {
	re := regexp.MustCompile(`(?s)<` + tag + `\b[^>]*>(.*?)</` + tag + `>`)
	m := re.FindStringSubmatch(html)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// attrValues returns every value of attribute attr in document order.
func attrValues(html, attr string) []string {
	re := regexp.MustCompile(`\s` + regexp.QuoteMeta(attr) + `="([^"]*)"`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(html, -1) {
		out = append(out, m[1])
	}
	return out
}

// count is how many times sub occurs in s.
func count(s, sub string) int { return strings.Count(s, sub) }
