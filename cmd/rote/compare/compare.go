// Package compare compares what Rote's perception makes of a page with
// @playwright/mcp's snapshot of the same page, in one run: the size of
// each in o200k tokens, how long each takes to load the page and to read
// it, and the controls each shows that the other does not. Both drive
// the same Chromium binary, each in a browser of its own, signed in the
// same way.
package compare

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/tiktoken-go/tokenizer"
)

// Site is a site whose pages are compared, signed in first when SignIn
// says how.
type Site struct {
	Name   string
	Base   string // scheme://host:port
	SignIn *SignIn
	Pages  []Page
}

// Page is one page of a site: Path is relative to the site's base.
type Page struct {
	Name, Path string
}

// SignIn is how both browsers sign in: the login page, the fields'
// accessible names (Rote) and CSS selectors (@playwright/mcp), and the
// account.
type SignIn struct {
	Path                         string
	UserName, PassName, Submit   string // accessible names: textbox, textbox, button
	UserField, PassField, Button string // CSS selectors
	Username, Password           string
}

// Row is the comparison of one page.
type Row struct {
	Site, Page, URL string
	// Rote's observation of the page, and its sizes.
	DOMElements, Nodes, Actionable int
	RoteTokens                     int
	// @playwright/mcp's snapshot's size, as a client reads it.
	PlaywrightTokens int
	// Times, medians over the repetitions, in milliseconds: loading the
	// page (navigate, settled) and reading it (observe, snapshot).
	RoteNavigateMS, RoteObserveMS, PlaywrightNavigateMS, PlaywrightSnapshotMS float64
	// Controls each shows that the other does not, by name.
	MissingInRote, MissingInPlaywright []string
}

// Ratio is how many times smaller Rote's render is.
func (r Row) Ratio() float64 {
	if r.RoteTokens == 0 {
		return 0
	}
	return float64(r.PlaywrightTokens) / float64(r.RoteTokens)
}

// Config says what to compare and with what.
type Config struct {
	Sites []Site
	// Playwright is the command that starts @playwright/mcp over stdio.
	Playwright []string
	// Reps is how many times each page is loaded and read by each; the
	// times are medians, the sizes those of the last.
	Reps int
	// Progress, when set, hears a line per page.
	Progress func(string)
}

// Compare compares every page of every site.
func Compare(ctx context.Context, browsers *bus.Browsers, cfg Config) ([]Row, error) {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil, err
	}
	count := func(s string) int {
		ids, _, _ := enc.Encode(s)
		return len(ids)
	}
	reps := max(cfg.Reps, 1)
	var rows []Row
	for _, site := range cfg.Sites {
		rote, err := openRote(ctx, browsers, site)
		if err != nil {
			return nil, fmt.Errorf("%s, Rote: %w", site.Name, err)
		}
		pw, err := openPlaywright(ctx, cfg.Playwright, site)
		if err != nil {
			rote.close(ctx)
			return nil, fmt.Errorf("%s, @playwright/mcp: %w", site.Name, err)
		}
		for _, p := range site.Pages {
			row := Row{Site: site.Name, Page: p.Name, URL: site.Base + p.Path}
			var rn, ro, pn, ps []float64
			var obs *schema.Observation
			var snap string
			for range reps {
				o, nav, read, err := rote.read(ctx, row.URL)
				if err != nil {
					return nil, fmt.Errorf("%s %s, Rote: %w", site.Name, p.Name, err)
				}
				text, pnav, pread, err := pw.read(ctx, row.URL)
				if err != nil {
					return nil, fmt.Errorf("%s %s, @playwright/mcp: %w", site.Name, p.Name, err)
				}
				obs, snap = o, text
				rn, ro, pn, ps = append(rn, ms(nav)), append(ro, ms(read)), append(pn, ms(pnav)), append(ps, ms(pread))
			}
			row.DOMElements, row.Nodes, row.Actionable = obs.Stats.DOMElements, obs.Stats.Nodes, obs.Stats.Actionable
			row.RoteTokens, row.PlaywrightTokens = count(obs.Render), count(snap)
			row.RoteNavigateMS, row.RoteObserveMS, row.PlaywrightNavigateMS, row.PlaywrightSnapshotMS = median(rn), median(ro), median(pn), median(ps)
			row.MissingInRote, row.MissingInPlaywright = missing(roteControls(obs), snapshotControls(snap))
			rows = append(rows, row)
			if cfg.Progress != nil {
				cfg.Progress(fmt.Sprintf("%s %s: Rote %d tokens, @playwright/mcp %d (%.1fx)", site.Name, p.Name, row.RoteTokens, row.PlaywrightTokens, row.Ratio()))
			}
		}
		rote.close(ctx)
		pw.close()
	}
	return rows, nil
}

// roteControls are the names of the controls Rote's observation shows.
func roteControls(o *schema.Observation) []string {
	var out []string
	for _, n := range o.Nodes {
		if n.Actionable {
			out = append(out, n.Name)
		}
	}
	return out
}

// missing returns the names of controls of a that b lacks and of b that a
// lacks, compared as a person reads them (case and spacing aside), each
// sorted and without repeats. A name that the other side's extends after
// a colon is the same control named once its value loaded ("Select
// template" read before the editor named it "Select template: Single").
func missing(rote, playwright []string) (inRote, inPlaywright []string) {
	norm := func(names []string) map[string]string {
		m := map[string]string{}
		for _, n := range names {
			if k := strings.ToLower(strings.Join(strings.Fields(n), " ")); k != "" {
				m[k] = n
			}
		}
		return m
	}
	r, p := norm(rote), norm(playwright)
	lacks := func(in map[string]string, k string) bool {
		if _, ok := in[k]; ok {
			return false
		}
		for other := range in {
			if strings.HasPrefix(other, k+": ") || strings.HasPrefix(k, other+": ") {
				return false
			}
		}
		return true
	}
	for k, n := range p {
		if lacks(r, k) {
			inRote = append(inRote, n)
		}
	}
	for k, n := range r {
		if lacks(p, k) {
			inPlaywright = append(inPlaywright, n)
		}
	}
	slices.Sort(inRote)
	slices.Sort(inPlaywright)
	return inRote, inPlaywright
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
