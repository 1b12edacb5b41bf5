package distiller

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/rote-agent/rote/schema"
)

// SitePlaybook is one of a site's promoted playbooks and the verified runs
// it came from (its source run and its shadow replay).
type SitePlaybook struct {
	Playbook *schema.Playbook
	Evidence []string
}

// Routines finds the procedures a site's task classes share: for every two
// playbooks of different classes, the longest run of steps they open with
// alike, after the navigations that bring each to where it starts (the
// sign-in every task of a portal begins with). A run ends at its last step
// that has an expect, which becomes the routine's postcondition; its
// precondition is the controls its first page must show. Only
// deterministic steps that act on the page by what the steps themselves
// say (no pick, no value from an earlier step, no list) can be in one. A
// routine names the control its last step acts on, and holds every run
// that verified the playbooks it came from.
func Routines(fingerprint string, books []SitePlaybook, now time.Time) []schema.Routine {
	var out []schema.Routine
	for i := range books {
		for j := i + 1; j < len(books); j++ {
			a, b := books[i], books[j]
			if a.Playbook.Name == b.Playbook.Name {
				continue
			}
			stepsA, pageA := opening(a.Playbook)
			stepsB, pageB := opening(b.Playbook)
			steps, page := sharedOpening(stepsA, stepsB), samePage(pageA, pageB)
			words := said(a.Playbook.Intent, b.Playbook.Intent, steps)
			if len(steps) == 0 || len(page) == 0 || words == "" {
				continue
			}
			if k := slices.IndexFunc(out, func(r schema.Routine) bool { return sameSteps(r, steps, steps[len(steps)-1].Expect) }); k >= 0 {
				out[k].Classes = schema.Distinct(append(out[k].Classes, a.Playbook.Name, b.Playbook.Name))
				out[k].Evidence = schema.Distinct(append(append(out[k].Evidence, a.Evidence...), b.Evidence...))
				continue
			}
			r, ok := routineOf(fingerprint, a.Playbook, steps, now)
			if !ok {
				continue
			}
			r.Pre, r.Said = append(page, r.Pre...), words
			r.Classes = []string{a.Playbook.Name, b.Playbook.Name}
			r.Evidence = schema.Distinct(append(slices.Clone(a.Evidence), b.Evidence...))
			out = append(out, r)
		}
	}
	names := map[string]int{}
	for i := range out {
		// Two routines ending on controls of one name are told apart by
		// number, in the order they were found.
		if n := names[out[i].Name]; n > 0 {
			out[i].Name = schema.MemoryName(out[i].Name + " " + strconv.Itoa(n+1))
			renamed(&out[i])
		}
		names[out[i].Name]++
	}
	slices.SortFunc(out, func(a, b schema.Routine) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// opening is the steps a playbook opens with that a routine may hold:
// after its leading navigations, up to the first step that is no plain
// action on the page.
// It also returns what the last of those navigations checked of the
// page it reached (its address, its heading): the page a routine starts
// on.
func opening(p *schema.Playbook) (steps []schema.Step, page []schema.Expect) {
	steps, page = pastNavigations(p.Steps)
	for i, s := range steps {
		if !plainAction(&s) {
			return steps[:i], page
		}
	}
	return steps, page
}

// pastNavigations is steps past the navigations they open with, and what
// the last of those checked of the page it reached.
func pastNavigations(steps []schema.Step) ([]schema.Step, []schema.Expect) {
	var page []schema.Expect
	for len(steps) > 0 && steps[0].Tool == string(schema.ActNavigate) {
		page = steps[0].Expect
		steps = steps[1:]
	}
	return steps, page
}

// fixed is the expects of es that take no value: they check the same
// thing on every run.
func fixed(es []schema.Expect) []schema.Expect {
	var out []schema.Expect
	for _, e := range es {
		if !strings.Contains(e.Arg, "{{") {
			out = append(out, e)
		}
	}
	return out
}

// samePage is what both a and b check of the page they start on, in a's
// order; a routine with nothing of it is not learned: controls alone can
// stand on another page (a look-alike form that purges).
func samePage(a, b []schema.Expect) []schema.Expect {
	var out []schema.Expect
	for _, e := range fixed(a) {
		if slices.ContainsFunc(b, func(x schema.Expect) bool { return x.String() == e.String() }) {
			out = append(out, e)
		}
	}
	return out
}

// said is the words the intents of a and b share around the parameters
// steps take ("Sign in as {{username}}"): a task is offered the routine
// only when its own words, values slotted out, say it too. "" when they
// share no such words.
func said(a, b string, steps []schema.Step) string {
	var params []string
	for i := range steps {
		refs, _ := stepRefs(&steps[i])
		for _, r := range refs {
			params = append(params, "{{"+r.String()+"}}")
		}
	}
	x, y := strings.Fields(a), strings.Fields(b)
	best := ""
	for i := range x {
		for j := range y {
			n := 0
			for i+n < len(x) && j+n < len(y) && x[i+n] == y[j+n] {
				n++
			}
			// Up to its last word that is a parameter the steps take.
			for n > 0 && !slices.Contains(params, strings.Trim(x[i+n-1], ".,;:()")) {
				n--
			}
			// A value alone says nothing of what it is for.
			words := slices.ContainsFunc(x[i:i+n], func(w string) bool { return !strings.Contains(w, "{{") && strings.ContainsFunc(w, unicode.IsLetter) })
			if phrase := strings.Join(x[i:i+n], " "); words && len(phrase) > len(best) {
				best = phrase
			}
		}
	}
	return strings.Trim(best, ".,;:()")
}

// plainAction reports whether s acts on the page by what it says alone:
// a deterministic browser action on a named control, or a navigation,
// with no pick, list, output or value from an earlier step.
func plainAction(s *schema.Step) bool {
	switch schema.ActionKind(s.Tool) {
	case schema.ActClick, schema.ActFill, schema.ActSelect, schema.ActCheck, schema.ActPress, schema.ActNavigate:
	default:
		return false
	}
	return selfContained(s) && (s.Target == nil || s.Target.Pick == nil && s.Target.Name != "")
}

// selfContained reports whether s can run apart from the steps around
// it: a deterministic step over no list, with no output or dialog, that
// takes no value from an earlier step.
func selfContained(s *schema.Step) bool {
	if s.Kind != schema.StepDeterministic || s.Each != "" || s.Except != "" || len(s.Outputs) > 0 || len(s.Dialogs) > 0 {
		return false
	}
	refs, err := stepRefs(s)
	return err == nil && !slices.ContainsFunc(refs, func(r schema.Ref) bool { return r.Step != "" })
}

// stepRefs are the template references in what s acts on and with: its
// target's name and context, its arguments and its expects.
func stepRefs(s *schema.Step) ([]schema.Ref, error) {
	texts := []any{s.Args}
	if s.Target != nil {
		texts = append(texts, s.Target.Name, s.Target.Near)
		if s.Target.Pick != nil {
			for _, r := range s.Target.Pick.Rules {
				texts = append(texts, r.Value)
			}
		}
	}
	for _, e := range s.Expect {
		refs, err := e.Refs()
		if err != nil {
			return nil, err
		}
		for _, r := range refs {
			texts = append(texts, "{{"+r.String()+"}}")
		}
	}
	return schema.RefsIn(texts)
}

// signature is what makes two steps the same action: the tool, the
// control and the arguments, never the step's id.
func signature(s *schema.Step) string {
	data, _ := json.Marshal(struct {
		Tool   string
		Target *schema.Target
		Args   map[string]any
	}{s.Tool, s.Target, s.Args})
	return string(data)
}

// sharedOpening is the longest run of steps a and b open with alike,
// ending on a step with expects both checked alike: a postcondition one
// of them did not see (signing in landed elsewhere) is neither's.
func sharedOpening(a, b []schema.Step) []schema.Step {
	n := 0
	for n < len(a) && n < len(b) && signature(&a[n]) == signature(&b[n]) {
		n++
	}
	for n > 0 && (len(a[n-1].Expect) == 0 || fmt.Sprint(a[n-1].Expect) != fmt.Sprint(b[n-1].Expect)) {
		n--
	}
	return a[:n]
}

// sameSteps reports whether routine r is steps with postcondition post.
func sameSteps(r schema.Routine, steps []schema.Step, post []schema.Expect) bool {
	p, err := r.Fragment()
	if err != nil || len(p.Steps) != len(steps) || fmt.Sprint(p.Verify) != fmt.Sprint(post) {
		return false
	}
	for i := range steps {
		if signature(&p.Steps[i]) != signature(&steps[i]) {
			return false
		}
	}
	return true
}

// routineOf makes steps of playbook p a routine named by the control its
// last step acts on, with that step's expects as its postcondition.
func routineOf(fingerprint string, p *schema.Playbook, steps []schema.Step, now time.Time) (schema.Routine, bool) {
	last := steps[len(steps)-1]
	if last.Target == nil || schema.MemoryName(last.Target.Name) == "" {
		return schema.Routine{}, false
	}
	return fragmentOf(fingerprint, p, schema.MemoryName(last.Target.Name), steps, last.Expect, now)
}

// fragmentOf makes steps of playbook p the routine name: a fragment with
// the parameters the steps use, no on_fail (a routine is not repaired: it
// holds or stops), and post as its postcondition, checked once after
// its last step. Its precondition is the controls its first page shows:
// those it acts on by name up to the first step that may leave the page.
func fragmentOf(fingerprint string, p *schema.Playbook, name string, steps []schema.Step, post []schema.Expect, now time.Time) (schema.Routine, bool) {
	frag := &schema.Playbook{Name: name, Fingerprint: fingerprint, Origins: p.Origins, Params: map[string]schema.Param{}, Verify: slices.Clone(post)}
	var does []string
	var pre []schema.Expect
	leaves := false // a step so far may have left the first page
	for i, s := range steps {
		s.OnFail, s.Needs = schema.OnFail{}, nil
		if i > 0 {
			s.Needs = []string{steps[i-1].ID}
		}
		refs, _ := stepRefs(&s)
		for _, r := range refs {
			if r.Param != "" {
				frag.Params[r.Param] = p.Params[r.Param]
			}
		}
		frag.Steps = append(frag.Steps, s)
		if s.Target == nil {
			does = append(does, s.Tool+" "+schema.Clip(fmt.Sprint(s.Args[schema.URLArg]), 80))
			leaves = true
			continue
		}
		control := schema.Selector{Role: s.Target.Role, Name: s.Target.Name}.String()
		if s.Target.Pick != nil {
			var by []string
			for _, r := range s.Target.Pick.Rules {
				by = append(by, cmp.Or(r.Value, string(r.Order)))
			}
			control = s.Target.Role + " picked by " + strings.Join(by, ", ")
		}
		does = append(does, s.Tool+" "+control)
		if !leaves && s.Target.Name != "" && !strings.Contains(s.Target.Name, "{{") {
			pre = append(pre, schema.Expect{Op: schema.OpSelectorVisible, Arg: control})
		}
		leaves = leaves || s.Tool == string(schema.ActClick) || s.Tool == string(schema.ActPress)
	}
	// The postcondition is checked once, after the last step.
	frag.Steps[len(frag.Steps)-1].Expect = nil
	frag.Intent = strings.Join(does, ", ")
	doc, err := schema.EncodePlaybook(frag)
	if err != nil || len(pre) == 0 {
		return schema.Routine{}, false
	}
	return schema.Routine{Fingerprint: fingerprint, Name: name, Document: doc, Pre: pre, Learned: now}, true
}

// renamed writes r's name into its fragment.
func renamed(r *schema.Routine) {
	p, err := r.Fragment()
	if err != nil {
		return
	}
	p.Name = r.Name
	if doc, err := schema.EncodePlaybook(p); err == nil {
		r.Document = doc
	}
}
