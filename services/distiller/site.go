package distiller

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// LearnSite learns the memory of the site with fingerprint (tier 2) from
// its promoted playbooks and the verified runs they came from: the
// routines its task classes share, the transitions its runs took, and the
// brief rendered from both; and writes what changed to sites. A routine
// learned again as it was keeps its suspicion: only a new fragment (a
// site that changed, relearned) clears it. Only the distiller role calls
// it: the planner reads site memory, never writes it.
func LearnSite(ctx context.Context, playbooks *bus.PlaybookStore, runs *bus.RunLog, sites *bus.SiteStore, fingerprint string) (*bus.SiteMemory, error) {
	now := time.Now().UTC()
	entries, err := playbooks.Bound(ctx, fingerprint)
	if err != nil {
		return nil, err
	}
	evidence, err := promotionRuns(ctx, runs, fingerprint)
	if err != nil {
		return nil, err
	}
	var books []SitePlaybook
	var learnedFrom []string
	for _, e := range entries {
		p, err := e.Decode()
		if err != nil || len(evidence[e.Name]) == 0 {
			continue // imported, or undecodable: nothing verified it here
		}
		books = append(books, SitePlaybook{Playbook: p, Evidence: evidence[e.Name]})
		learnedFrom = append(learnedFrom, evidence[e.Name]...)
	}
	had, err := sites.Site(ctx, fingerprint)
	if err != nil {
		return nil, err
	}
	routines := Routines(fingerprint, books, now)
	for i := range routines {
		r := &routines[i]
		if old := had.Routine(r.Name); old != nil && string(old.Document) == string(r.Document) {
			r.Suspect = old.Suspect
		}
		if err := sites.PutRoutine(ctx, r); err != nil {
			return nil, err
		}
	}
	var folds []*schema.RunFold
	for _, id := range schema.Distinct(learnedFrom) {
		f, err := runs.Fold(ctx, id)
		if err != nil {
			return nil, err
		}
		folds = append(folds, f)
	}
	facts := Transitions(fingerprint, folds, now)
	for i := range facts {
		if err := sites.PutFact(ctx, &facts[i]); err != nil {
			return nil, err
		}
	}
	if err := sites.PutBrief(ctx, RenderBrief(fingerprint, routines, facts, now)); err != nil {
		return nil, err
	}
	return sites.Site(ctx, fingerprint)
}

// promotionRuns are, by playbook name, the runs that verified each of the
// site's promotions: the run it was distilled from and its shadow replay.
func promotionRuns(ctx context.Context, runs *bus.RunLog, fingerprint string) (map[string][]string, error) {
	envs, err := runs.Read(ctx, schema.RunKindFilter(schema.KindPlaybook))
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, env := range envs {
		e, ok := env.Event.(*schema.PlaybookPromoted)
		if !ok || e.Fingerprint != fingerprint {
			continue
		}
		ids := []string{e.RunID}
		if e.SourceRun != "" {
			ids = append(ids, e.SourceRun)
		}
		out[e.Name] = schema.Distinct(append(out[e.Name], ids...))
	}
	return out, nil
}

// RenderBrief is the site brief: the routines Rote may run whole (the
// suspect ones left out) and the transitions runs showed, each with how
// many runs showed it, in a stable order and within MaxBriefBytes.
func RenderBrief(fingerprint string, routines []schema.Routine, facts []schema.Fact, now time.Time) *schema.Brief {
	b := &schema.Brief{Fingerprint: fingerprint, Rendered: now}
	var lines []string
	add := func(line string) bool {
		if len(strings.Join(append(slices.Clone(lines), line), "\n")) > schema.MaxBriefBytes {
			return false
		}
		lines = append(lines, line)
		return true
	}
	for _, r := range routines {
		p, err := r.Fragment()
		if r.Suspect != nil || err != nil {
			continue
		}
		if len(b.Routines) == 0 {
			add("Routines verified runs share (Rote runs one whole, with no model, when the page shows its first controls and the task gives its values):")
		}
		if add(fmt.Sprintf("- %s(%s): %s", r.Name, strings.Join(slices.Sorted(maps.Keys(p.Params)), ", "), p.Intent)) {
			b.Routines = append(b.Routines, r.Name)
		}
	}
	for _, f := range facts {
		if len(b.Facts) == 0 {
			add("How pages led to pages in verified runs (each holds until the page says otherwise):")
		}
		if add(fmt.Sprintf("- %s (%d runs)", f.Text(), len(f.Evidence))) {
			b.Facts = append(b.Facts, f.Name)
		}
	}
	b.Text = strings.Join(lines, "\n")
	return b
}
