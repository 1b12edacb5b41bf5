package portal

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed templates/*.html
var templateFS embed.FS

// view is what every page template receives. Page-specific values are in
// Data; the layout reads the rest.
type view struct {
	// Title is the page's <title> (before the site title).
	Title string
	// Section is the nav entry marked aria-current, by its href.
	Section string
	// Status is a success message (role=status); a pending flash fills it.
	Status string
	// Alert is an error message (role=alert); Errors lists its problems.
	Alert  string
	Errors []string
	Data   any

	// Filled in by render.
	SiteTitle string
	LoggedIn  bool
	Nav       []navLink
	V         flags
}

// navLink is one entry of the main navigation.
type navLink struct {
	Href    string
	Label   string
	Current bool
}

// mainNav is the main navigation, in order.
var mainNav = []navLink{
	{Href: "/dashboard", Label: "Dashboard"},
	{Href: "/records", Label: "Records"},
	{Href: "/vendors", Label: "Vendors"},
	{Href: "/vendors/new", Label: "Register vendor"},
	{Href: "/catalog", Label: "Catalog"},
	{Href: "/inbox", Label: "Inbox"},
	{Href: "/settings", Label: "Settings"},
	{Href: "/reports", Label: "Reports"},
	{Href: "/logout", Label: "Log out"},
}

// parseTemplates parses one template set per page: the layout and the
// shared partials plus the page's own file, which defines "content". The
// id and cls functions apply the variant f.
func parseTemplates(f flags) (map[string]*template.Template, error) {
	funcs := template.FuncMap{"id": f.id, "cls": f.class}
	base, err := template.New("base").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{}
	for _, file := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(file, "templates/"), ".html")
		if name == "layout" || name == "partials" {
			continue
		}
		t, err := base.Clone()
		if err != nil {
			return nil, err
		}
		if _, err := t.ParseFS(templateFS, file); err != nil {
			return nil, err
		}
		pages[name] = t
	}
	return pages, nil
}

// render writes page with v as an HTML response with the given status.
// The caller holds p.mu. A pending flash of s becomes the status message.
func (p *Portal) render(w http.ResponseWriter, s *session, status int, page string, v view) {
	t, ok := p.pages[page]
	if !ok {
		http.Error(w, "no template "+page, http.StatusInternalServerError)
		return
	}
	v.SiteTitle = p.st.Settings.SiteTitle
	v.LoggedIn = s != nil
	v.V = p.flags
	v.Nav = make([]navLink, len(mainNav))
	for i, l := range mainNav {
		l.Current = l.Href == v.Section
		v.Nav[i] = l
	}
	if s != nil && s.flash != "" {
		if v.Status == "" {
			v.Status = s.flash
		}
		s.flash = ""
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		http.Error(w, fmt.Sprintf("render %s: %v", page, err), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// notFound serves the 404 page for any path no route claims.
func (p *Portal) notFound(w http.ResponseWriter, r *http.Request, s *session) {
	p.render(w, s, http.StatusNotFound, "notfound", view{Title: "Page not found", Data: r.URL.Path})
}
