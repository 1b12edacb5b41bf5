package distiller

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// LearnSite learns the memory of the site with fingerprint (tier 2) from
// its promoted playbooks and the verified runs they came from: the
// routines its task classes share and the ways each goes to where its
// work is done (Places), the transitions its runs took, and the brief
// rendered from both; and writes them to sites. An item learned
// again from no new run keeps when it was learned, so that a failure
// since (a memory.checked that did not hold) still makes it suspect: only
// runs newer than the failure, showing it anew, trust it again. Only the
// distiller role calls it: the planner reads site memory, never writes.
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
	checks, err := runs.MemoryChecks(ctx)
	if err != nil {
		return nil, err
	}
	shared := Routines(fingerprint, books, now)
	learned := &bus.SiteMemory{Fingerprint: fingerprint, Routines: append(shared, Places(fingerprint, books, shared, now)...)}
	for i := range learned.Routines {
		r := &learned.Routines[i]
		if old := had.Routine(r.Name); old != nil && string(old.Document) == string(r.Document) && !grew(old.Evidence, r.Evidence) {
			r.Learned = old.Learned
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
	learned.Facts = Transitions(fingerprint, folds, now)
	for i := range learned.Facts {
		f := &learned.Facts[i]
		if old := had.Fact(f.Name); old != nil && old.To == f.To && !grew(old.Evidence, f.Evidence) {
			f.Learned = old.Learned
		}
	}
	learned.Distrust(checks)
	started := map[string]time.Time{}
	for _, f := range folds {
		if f.Started != nil {
			started[f.RunID] = f.Started.Time
		}
	}
	// What a person forgot stays forgotten until a run newer than the
	// forgetting shows it again.
	keep := func(key string, evidence []string) (bool, error) {
		at, forgotten, err := sites.ForgottenAt(ctx, key)
		return !forgotten || slices.ContainsFunc(evidence, func(id string) bool { return started[id].After(at) }), err
	}
	var routines []schema.Routine
	for _, r := range learned.Routines {
		ok, err := keep(schema.SiteKey(fingerprint, schema.MemoryRoutine, r.Name), r.Evidence)
		if err == nil && ok {
			routines, err = append(routines, r), sites.PutRoutine(ctx, &r)
		}
		if err != nil {
			return nil, err
		}
	}
	var facts []schema.Fact
	for _, f := range learned.Facts {
		ok, err := keep(schema.SiteKey(fingerprint, schema.MemoryFact, f.Name), f.Evidence)
		if err == nil && ok {
			facts, err = append(facts, f), sites.PutFact(ctx, &f)
		}
		if err != nil {
			return nil, err
		}
	}
	learned.Routines, learned.Facts = routines, facts
	// What no verified playbook or run teaches any more (a playbook
	// deleted or rolled back) is forgotten.
	for _, r := range had.Routines {
		if learned.Routine(r.Name) == nil {
			if err := sites.Forget(ctx, fingerprint, schema.MemoryRoutine, r.Name); err != nil && !errors.Is(err, bus.ErrMemoryNotFound) {
				return nil, err
			}
		}
	}
	for _, f := range had.Facts {
		if learned.Fact(f.Name) == nil {
			if err := sites.Forget(ctx, fingerprint, schema.MemoryFact, f.Name); err != nil && !errors.Is(err, bus.ErrMemoryNotFound) {
				return nil, err
			}
		}
	}
	if err := sites.PutBrief(ctx, schema.RenderBrief(fingerprint, learned.Routines, learned.Facts, now)); err != nil {
		return nil, err
	}
	return sites.Site(ctx, fingerprint)
}

// grew reports whether now holds a run was does not.
func grew(was, now []string) bool {
	return slices.ContainsFunc(now, func(id string) bool { return !slices.Contains(was, id) })
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
