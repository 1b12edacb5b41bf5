package distiller

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rote-agent/rote/schema"
)

// Places finds, in each playbook of a site, the way it goes to where its
// work is done: after its leading navigations and the routine it opens
// with (one of shared, signing in), the steps that only move from page to
// page (a link clicked, by name or picked among links; a search form,
// whose method is GET, filled and sent), up to the first step that does
// more, and never the playbook's last step when it acts (a link that
// downloads the report is the task, not the way to it; a search whose
// results the task then reads is the way). Two steps at
// least, the first a named control: one click is no shorter as a
// routine. Its precondition is the page it starts on (what the step
// before it checked) and the control it starts with; its postcondition what the playbook checked after its
// last step, or, where it checked nothing there, the control its next
// step acts on, or the playbook's verify when every step after it only
// reads. Such a routine has no words of its own (Said ""): Rote never
// runs it by itself; the model may, by name. It holds the runs that
// verified its playbook: the source run and the shadow replay.
func Places(fingerprint string, books []SitePlaybook, shared []schema.Routine, now time.Time) []schema.Routine {
	var out []schema.Routine
	for _, b := range books {
		steps, _ := pastNavigations(b.Playbook.Steps)
		for _, r := range shared {
			steps = after(steps, r)
		}
		// The page it starts on is what the step before it checked (the
		// sign-in's landing): a link in the site's header also shows
		// on pages it does not lead from, signed out among them.
		before := len(b.Playbook.Steps) - len(steps) - 1
		if before < 0 {
			continue
		}
		page := fixed(b.Playbook.Steps[before].Expect)
		if len(page) == 0 {
			continue
		}
		n := 0
		for n < len(steps) && moves(&steps[n]) {
			n++
		}
		if last := lastAct(steps); last == len(steps)-1 {
			n = min(n, last) // its last act is the task's work, not the way to it
		}
		if n < 2 || steps[0].Target.Pick != nil {
			continue // one click is no shorter as a routine; a pick first starts nowhere it names
		}
		post := placeReached(steps, n, b.Playbook.Verify)
		if len(post) == 0 {
			continue
		}
		if k := slices.IndexFunc(out, func(r schema.Routine) bool { return sameSteps(r, steps[:n], post) }); k >= 0 {
			// Another class goes the same way: one routine, both its runs.
			out[k].Classes = schema.Distinct(append(out[k].Classes, b.Playbook.Name))
			out[k].Evidence = schema.Distinct(append(out[k].Evidence, b.Evidence...))
			continue
		}
		name := placeName(steps[:n])
		for i := 2; slices.ContainsFunc(append(slices.Clone(shared), out...), func(x schema.Routine) bool { return x.Name == name }); i++ {
			name = schema.MemoryName(placeName(steps[:n]) + " " + strconv.Itoa(i))
		}
		r, ok := fragmentOf(fingerprint, b.Playbook, name, steps[:n], post, now)
		if !ok {
			continue
		}
		r.Pre = append(page, r.Pre...)
		r.Classes, r.Evidence = []string{b.Playbook.Name}, slices.Clone(b.Evidence)
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b schema.Routine) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// after is steps past the routine r they open with, or steps as they are
// when they do not open with it.
func after(steps []schema.Step, r schema.Routine) []schema.Step {
	p, err := r.Fragment()
	if err != nil || len(p.Steps) > len(steps) {
		return steps
	}
	for i := range p.Steps {
		if signature(&p.Steps[i]) != signature(&steps[i]) {
			return steps
		}
	}
	return steps[len(p.Steps):]
}

// moves reports whether s only moves between pages: a deterministic click
// on a link (named, or picked among links by parameters), or a search
// form's fill or send (a form whose method is GET).
func moves(s *schema.Step) bool {
	if s.Target == nil || !selfContained(s) {
		return false
	}
	get := s.Target.Contract != nil && strings.EqualFold(s.Target.Contract.FormMethod, "get")
	switch schema.ActionKind(s.Tool) {
	case schema.ActClick:
		return s.Target.Role == "link" || get
	case schema.ActFill, schema.ActPress:
		return get && s.Target.Pick == nil
	}
	return false
}

// lastAct is the index of the last step of steps that acts on the page
// (neither reads it nor asks a model), -1 when none does.
func lastAct(steps []schema.Step) int {
	for i := len(steps) - 1; i >= 0; i-- {
		if readsOnly(&steps[i]) {
			continue
		}
		return i
	}
	return -1
}

// readsOnly reports whether s leaves the page as it is: an extract, or a
// judgment or slot step.
func readsOnly(s *schema.Step) bool {
	return s.Kind != schema.StepDeterministic || schema.ActionKind(s.Tool) == schema.ActExtract
}

// placeReached is what must hold once the first n of steps ran: the
// expects of the nth, else the control the next step that names one acts
// on, else verify when every later step only reads.
func placeReached(steps []schema.Step, n int, verify []schema.Expect) []schema.Expect {
	if e := steps[n-1].Expect; len(e) > 0 {
		return slices.Clone(e)
	}
	for _, s := range steps[n:] {
		if s.Target != nil && s.Target.Name != "" && !strings.Contains(s.Target.Name, "{{") {
			return []schema.Expect{{Op: schema.OpSelectorVisible, Arg: schema.Selector{Role: s.Target.Role, Name: s.Target.Name}.String()}}
		}
		if !readsOnly(&s) {
			return nil
		}
	}
	return slices.Clone(verify)
}

// placeName names a place routine by the link it starts with and the
// values it takes: to-inbox-subject.
func placeName(steps []schema.Step) string {
	words := []string{"to", steps[0].Target.Name}
	for i := range steps {
		refs, _ := stepRefs(&steps[i])
		for _, r := range refs {
			if r.Param != "" && !slices.Contains(words, r.Param) {
				words = append(words, r.Param)
			}
		}
	}
	return schema.MemoryName(strings.Join(words, " "))
}
