package distiller

import (
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/rote-agent/rote/schema"
)

// Transitions are what a site's verified runs show about getting around
// it: on one page, acting on a control led to another. Each is a fact
// with the runs that showed it. One that runs disagree on (the control
// led elsewhere) is no fact, nor is one from or to an address that names
// a record (a segment with a digit: /vendors/V-0042), which the next run
// will not see.
func Transitions(fingerprint string, runs []*schema.RunFold, now time.Time) []schema.Fact {
	var out []schema.Fact
	contradicted := map[string]bool{}
	for _, r := range runs {
		for _, t := range transitionsOf(r) {
			t.Fingerprint, t.Learned = fingerprint, now
			t.Name = schema.MemoryName(t.From + " " + t.Via)
			i := slices.IndexFunc(out, func(f schema.Fact) bool { return f.Name == t.Name })
			switch {
			case i < 0:
				out = append(out, t)
			case out[i].From != t.From || out[i].Via != t.Via || out[i].To != t.To:
				contradicted[t.Name] = true
			default:
				out[i].Evidence = schema.Distinct(append(out[i].Evidence, t.Evidence...))
			}
		}
	}
	out = slices.DeleteFunc(out, func(f schema.Fact) bool { return contradicted[f.Name] || f.Name == "" })
	slices.SortFunc(out, func(a, b schema.Fact) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// transitionsOf are the page changes of one run: each click or key press
// on a named control that worked, with the page observed before it and
// the first one observed after.
func transitionsOf(r *schema.RunFold) []schema.Fact {
	var out []schema.Fact
	for _, a := range r.Actions {
		t := a.Action.Target
		if a.Error != nil || t == nil || t.Role == "" || t.Name == "" || (a.Action.Kind != schema.ActClick && a.Action.Kind != schema.ActPress) {
			continue
		}
		var before, after string
		for _, o := range r.Observations {
			if o.Seq < a.Seq {
				before = o.URL
			} else if after == "" {
				after = o.URL
			}
		}
		from, to := stablePath(before), stablePath(after)
		if from == "" || to == "" || from == to {
			continue
		}
		out = append(out, schema.Fact{From: from, Via: schema.Selector{Role: t.Role, Name: t.Name}.String(), To: to, Evidence: []string{r.RunID}})
	}
	return out
}

// stablePath is the path of address u, or "" when it names a record or
// is no http address.
func stablePath(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Path == "" {
		return ""
	}
	if strings.ContainsFunc(p.Path, unicode.IsDigit) {
		return ""
	}
	return p.Path
}
