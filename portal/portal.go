// Package portal is a small admin web portal served by Go: the fixture
// website a browser agent is tested and benchmarked on.
//
// A Portal is an http.Handler. Its pages are server-rendered, accessible
// HTML5 (landmarks, labelled fields, tables with column headers, status and
// alert regions) with deterministic output: the same requests give the same
// bytes. One account signs in (Username, Password); a session cookie keeps
// the browser signed in and holds the draft of the multi-page vendor form.
//
// Everything a test needs to check an outcome is in State, also served as
// JSON at GET /__state; POST /__reset returns the portal to its seed.
//
// Config.Variant picks one controlled change to the site (see Variants),
// so the same task can be run against a world that drifted in a known way.
package portal

import (
	"errors"
	"html/template"
	"net/http"
	"slices"
	"sync"
)

// Config configures a Portal.
type Config struct {
	// Variant is "" for the baseline site or one of Variants().
	Variant string
}

// ErrUnknownVariant is returned (wrapped, naming the variant) by New for a
// variant that Variants does not list.
var ErrUnknownVariant = errors.New("portal: unknown variant")

// Portal is the fixture web portal. It is safe for concurrent use.
type Portal struct {
	variant string
	flags   flags
	pages   map[string]*template.Template
	mux     *http.ServeMux

	// mu guards st, reports, categories and sessions. Every request but /static runs under it.
	mu      sync.Mutex
	st      State
	reports []report
	// categories are the vendor categories the form offers.
	categories []string
	sessions   map[string]*session
}

// New returns a portal in its seeded state, serving cfg.Variant.
func New(cfg Config) (*Portal, error) {
	f, err := flagsFor(cfg.Variant)
	if err != nil {
		return nil, err
	}
	pages, err := parseTemplates(f)
	if err != nil {
		return nil, err
	}
	p := &Portal{variant: cfg.Variant, flags: f, pages: pages}
	p.resetLocked()
	p.mux = p.routes()
	return p, nil
}

// routes maps every path of the portal to its handler.
func (p *Portal) routes() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /static/{file}", p.serveStatic)
	m.Handle("GET /login", p.public(p.loginForm))
	m.Handle("POST /login", p.public(p.login))
	m.HandleFunc("GET /__ping", ping)
	m.Handle("GET /__state", p.public(p.serveState))
	m.Handle("POST /__reset", p.public(p.serveReset))
	m.HandleFunc("/__state", methodNotAllowed(http.MethodGet))
	m.HandleFunc("/__reset", methodNotAllowed(http.MethodPost))

	m.Handle("/logout", p.auth(p.logout))
	m.Handle("GET /{$}", p.auth(func(w http.ResponseWriter, r *http.Request, _ *session) {
		http.Redirect(w, r, "/dashboard", http.StatusSeeOther)
	}))
	m.Handle("GET /dashboard", p.auth(p.dashboard))
	m.Handle("GET /start", p.auth(p.dashboard)) // where landing-moved signs in to

	m.Handle("GET /records", p.auth(p.recordList))
	m.Handle("GET /records/{id}", p.auth(p.recordDetail))
	m.Handle("GET /records/{id}/edit", p.auth(p.recordEdit))
	m.Handle("POST /records/{id}/archive", p.auth(p.recordArchive))

	m.Handle("GET /vendors", p.auth(p.vendorList))
	m.Handle("POST /vendors", p.auth(p.vendorRegister))
	m.Handle("POST /vendors/import", p.auth(p.vendorImport))
	m.Handle("POST /vendors/offboard", p.auth(p.vendorOffboard))
	m.Handle("POST /vendors/purge", p.auth(p.vendorPurge))
	m.Handle("POST /records/delete", p.auth(p.recordDelete))
	m.Handle("GET /vendors/{id}", p.auth(p.vendorDetail))
	m.Handle("GET /vendors/new", p.auth(p.vendorStep1))
	m.Handle("POST /vendors/new", p.auth(p.vendorStep1Post))
	m.Handle("GET /vendors/new/address", p.auth(p.vendorStep2))
	m.Handle("POST /vendors/new/address", p.auth(p.vendorStep2Post))
	m.Handle("GET /vendors/new/review", p.auth(p.vendorReview))

	m.Handle("GET /catalog", p.auth(p.catalog))
	m.Handle("GET /catalog/{sku}", p.auth(p.productDetail))
	m.Handle("POST /catalog/{sku}/cart", p.auth(p.addToCart))

	m.Handle("GET /inbox", p.auth(p.inbox))
	m.Handle("GET /inbox/{id}", p.auth(p.messageDetail))
	m.Handle("POST /inbox/{id}/triage", p.auth(p.triage))

	m.Handle("GET /settings", p.auth(p.settings))
	m.Handle("POST /settings", p.auth(p.saveSettings))

	m.Handle("GET /reports", p.auth(p.reportList))
	m.Handle("GET /reports/{id}/download", p.auth(p.reportDownload))

	m.Handle("GET /board", p.auth(p.board))
	m.Handle("POST /board/move", p.auth(p.boardMove))
	m.Handle("POST /board/archive", p.auth(p.boardArchive))
	m.Handle("POST /board/export", p.auth(p.boardExport))
	m.Handle("POST /board/schedule", p.auth(p.boardSchedule))
	m.Handle("GET /board/help", p.public(p.boardHelp))
	m.Handle("POST /board/help", p.public(p.boardHelp))

	m.Handle("GET /drills/{seed}", p.auth(p.drillPage))
	m.Handle("POST /drills/{seed}/press", p.auth(p.drillPress))
	m.Handle("POST /drills/{seed}", p.auth(p.drillSubmit))

	m.Handle("/", p.auth(p.notFound))
	return m
}

// methodNotAllowed answers 405 naming the one allowed method.
func methodNotAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Allow", allow)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// ServeHTTP serves the portal.
func (p *Portal) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mux.ServeHTTP(w, r)
}

// Variant returns the variant the portal serves, "" for the baseline.
func (p *Portal) Variant() string { return p.variant }

// State returns a deep copy of the portal's state, safe to keep.
func (p *Portal) State() State {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st.clone()
}

// Reset returns the portal to its seeded state: the State of a new portal,
// and no browser signed in.
func (p *Portal) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resetLocked()
}

// resetLocked is Reset with p.mu held (or before p is shared).
func (p *Portal) resetLocked() {
	p.st = seedState()
	p.reports = seedReports()
	p.categories = slices.Clone(vendorCategories)
	p.sessions = map[string]*session{}
}
