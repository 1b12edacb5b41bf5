package widgets

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
)

// Site serves every kind's page for the seed it is set to, and keeps
// what each kind's page sent.
//
//	GET  /w/{kind}         the page (its query, for a search page)
//	POST /w/{kind}/next    a wizard's first step, kept until the submit
//	GET|POST /w/{kind}/submit  the answer, kept and acknowledged
type Site struct {
	mu      sync.Mutex
	seeds   map[string]int
	pending map[string]url.Values
	sent    map[string][]url.Values
}

// NewSite returns a site with every kind on seed 0.
func NewSite() *Site {
	return &Site{seeds: map[string]int{}, pending: map[string]url.Values{}, sent: map[string][]url.Values{}}
}

// Use sets kind's page to seed's instance and forgets what it sent.
func (s *Site) Use(kind string, seed int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seeds[kind] = seed
	delete(s.pending, kind)
	delete(s.sent, kind)
}

// Sent returns every answer kind's page sent since Use.
func (s *Site) Sent(kind string) []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.sent[kind])
}

func (s *Site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 2 || parts[0] != "w" {
		http.NotFound(w, r)
		return
	}
	k, ok := Lookup(parts[1])
	if !ok {
		http.NotFound(w, r)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 1<<16)
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	seed := s.seeds[k.Name]
	s.mu.Unlock()
	in := k.Instance(seed)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	switch {
	case len(parts) == 2 && r.Method == http.MethodGet:
		fmt.Fprint(w, page(k.Title, in.Page(r.Form)))
	case len(parts) == 3 && parts[2] == "next" && r.Method == http.MethodPost && in.Next != "":
		s.mu.Lock()
		s.pending[k.Name] = r.PostForm
		s.mu.Unlock()
		fmt.Fprint(w, page(k.Title, in.Next))
	case len(parts) == 3 && parts[2] == "submit":
		got := url.Values{}
		s.mu.Lock()
		for key, v := range s.pending[k.Name] {
			got[key] = v
		}
		delete(s.pending, k.Name)
		for key, v := range r.Form {
			got[key] = v
		}
		s.sent[k.Name] = append(s.sent[k.Name], got)
		s.mu.Unlock()
		fmt.Fprint(w, page("Saved", `<p role="status">Saved</p>`))
	default:
		http.NotFound(w, r)
	}
}

func page(title, body string) string {
	return fmt.Sprintf(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s</title></head><body><main><h1>%[1]s</h1>
%s
</main></body></html>`, html.EscapeString(title), body)
}

// Right reports whether the answers sent are exactly one, and it is
// what in wants: every graded field holds the wanted values (in any
// order; a field left out is empty).
func (in Instance) Right(sent []url.Values) bool {
	if in.Want == nil || len(sent) != 1 {
		return false
	}
	for key, want := range in.Want {
		if !sameValues(sent[0][key], want) {
			return false
		}
	}
	return true
}

func sameValues(got, want []string) bool {
	nonEmpty := func(vs []string) []string {
		var out []string
		for _, v := range vs {
			if v != "" {
				out = append(out, v)
			}
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(nonEmpty(got), nonEmpty(want))
}
