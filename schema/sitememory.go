package schema

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/rote-agent/rote/schema/prompt"
)

// Site memory (tier 2) is what Rote learned about one site across task
// classes: routines, facts, and the brief rendered from them. It lives in
// ROTE_SITES under <fingerprint>.<kind>.<name>, written only by the
// distiller role, and never crosses fingerprints or holds a secret.

// MemoryKind is what a site memory item is.
type MemoryKind string

// Memory kinds, a closed set.
const (
	MemoryRoutine MemoryKind = "routine"
	MemoryFact    MemoryKind = "fact"
	MemoryBrief   MemoryKind = "brief"
)

// MinRoutineEvidence is how many verified runs (a playbook's source run
// and its shadow replay count as two) a routine must have held in.
const MinRoutineEvidence = 2

// SiteKey is the ROTE_SITES key of an item.
func SiteKey(fingerprint string, kind MemoryKind, name string) string {
	return fingerprint + "." + string(kind) + "." + name
}

// MemoryName turns text into an item name: lower case words joined by
// hyphens, at most 64 characters.
func MemoryName(text string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(text) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
	}
	name := b.String()
	if len(name) > 64 {
		name = strings.TrimRight(name[:64], "-")
	}
	return name
}

func validateMemoryItem(kind MemoryKind, fingerprint, name string, evidence []string, need int) error {
	if err := ValidateFingerprint(fingerprint); err != nil {
		return within(string(kind)+" "+name, err)
	}
	if err := validateName(name); err != nil {
		return within(string(kind), err)
	}
	if len(Distinct(evidence)) < need {
		return Errorf(CodeInvalid, "%s %s: %d supporting run(s), want at least %d", kind, name, len(Distinct(evidence)), need)
	}
	for _, id := range evidence {
		if err := ValidateRunID(id); err != nil {
			return within(string(kind)+" "+name, err)
		}
	}
	return nil
}

// Distinct returns the distinct strings of list, in first-seen order.
func Distinct(list []string) []string {
	var out []string
	for _, s := range list {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Routine is a procedure several of a site's task classes share, or one
// that reaches a named place (signing in, opening Vendors): a fragment
// of their verified playbooks, with a precondition (the page it starts
// on, checked like an expect) and a postcondition (what it must show
// after: its fragment's verify).
type Routine struct {
	Fingerprint string `msgpack:"fingerprint" json:"fingerprint"`
	Name        string `msgpack:"name" json:"name"`
	// Document is the fragment as a playbook in YAML: its parameters,
	// its deterministic steps, and its verify, the postcondition.
	Document []byte   `msgpack:"document" json:"-"`
	Pre      []Expect `msgpack:"pre" json:"pre"`
	// Said is the words the tasks it came from say it by, their values
	// slotted out ("Sign in as {{username}}"): Rote runs it by itself
	// only for a task whose own words say it too. "" for a routine the
	// model may run by name and Rote never runs by itself (the way to a
	// place: to-inbox-subject).
	Said string `msgpack:"said" json:"said"`
	// Classes are the task classes (playbook names) whose playbooks hold
	// it; Evidence the verified runs it held in.
	Classes  []string  `msgpack:"classes" json:"classes"`
	Evidence []string  `msgpack:"evidence" json:"evidence"`
	Learned  time.Time `msgpack:"learned" json:"learned"`
	// Suspect says why its last use failed: a suspect routine is not run
	// again until it is learned anew.
	Suspect *Suspicion `msgpack:"suspect,omitempty" json:"suspect,omitempty"`
}

// Suspicion is why a memory item stopped being trusted.
type Suspicion struct {
	RunID string    `msgpack:"run_id" json:"run_id"`
	Why   string    `msgpack:"why" json:"why"`
	Time  time.Time `msgpack:"time" json:"time"`
}

// Fragment decodes the routine's playbook fragment.
func (r *Routine) Fragment() (*Playbook, error) {
	p, err := DecodePlaybook(r.Document)
	if err != nil {
		return nil, within("routine "+r.Name, err)
	}
	return p, nil
}

// Validate checks the key parts, the evidence, a precondition, and a
// fragment that is a valid playbook of this name and fingerprint with
// deterministic steps only and a postcondition.
func (r *Routine) Validate() error {
	if err := validateMemoryItem(MemoryRoutine, r.Fingerprint, r.Name, r.Evidence, MinRoutineEvidence); err != nil {
		return err
	}
	if len(r.Pre) == 0 {
		return Errorf(CodeInvalid, "routine %s has no precondition: nothing says which page it starts on", r.Name)
	}
	if r.Said != "" && !strings.Contains(r.Said, "{{") {
		return Errorf(CodeInvalid, "routine %s: said %q names none of its values: no task's words could be told to ask for it", r.Name, r.Said)
	}
	for _, e := range r.Pre {
		if err := e.Validate(); err != nil {
			return within("routine "+r.Name+" precondition", err)
		}
	}
	p, err := r.Fragment()
	if err != nil {
		return err
	}
	if p.Name != r.Name || p.Fingerprint != r.Fingerprint {
		return Errorf(CodeInvalid, "routine %s: its fragment is %s on %s", r.Name, p.Name, ShortFingerprint(p.Fingerprint))
	}
	for _, s := range p.Steps {
		if s.Kind != "" && s.Kind != StepDeterministic {
			return Errorf(CodeInvalid, "routine %s: step %s is a %s step; a routine runs without a model", r.Name, s.ID, s.Kind)
		}
	}
	return p.Validate()
}

// Fact is one thing learned about a site, with the runs that showed it:
// that acting on a control on one page leads to another (a transition).
type Fact struct {
	Fingerprint string `msgpack:"fingerprint" json:"fingerprint"`
	Name        string `msgpack:"name" json:"name"`
	// From is the page path the action starts on, Via the control acted
	// on (`link "Reports"`), To the page path it leads to.
	From     string    `msgpack:"from" json:"from"`
	Via      string    `msgpack:"via" json:"via"`
	To       string    `msgpack:"to" json:"to"`
	Evidence []string  `msgpack:"evidence" json:"evidence"`
	Learned  time.Time `msgpack:"learned" json:"learned"`
	// Suspect says which run's page contradicted it.
	Suspect *Suspicion `msgpack:"suspect,omitempty" json:"suspect,omitempty"`
}

// Text is the fact as one line of the brief.
func (f *Fact) Text() string { return fmt.Sprintf("on %s, %s leads to %s", f.From, f.Via, f.To) }

// Validate checks the key parts, one supporting run at least, and a
// transition between two paths by a control.
func (f *Fact) Validate() error {
	if err := validateMemoryItem(MemoryFact, f.Fingerprint, f.Name, f.Evidence, 1); err != nil {
		return err
	}
	if !strings.HasPrefix(f.From, "/") || !strings.HasPrefix(f.To, "/") {
		return Errorf(CodeInvalid, "fact %s: paths %q and %q must start with /", f.Name, f.From, f.To)
	}
	if _, err := ParseSelector(f.Via); err != nil {
		return within("fact "+f.Name, err)
	}
	return nil
}

// Brief is the site brief: the text the agent's context carries in its
// session-stable slot, rendered from the site's facts and routines.
type Brief struct {
	Fingerprint string    `msgpack:"fingerprint" json:"fingerprint"`
	Text        string    `msgpack:"text" json:"text"`
	Facts       []string  `msgpack:"facts,omitempty" json:"facts,omitempty"`       // the facts it says
	Routines    []string  `msgpack:"routines,omitempty" json:"routines,omitempty"` // the routines it names
	Rendered    time.Time `msgpack:"rendered" json:"rendered"`
}

// MaxBriefBytes bounds a brief: it is in every call's context.
const MaxBriefBytes = 4 << 10

// RenderBrief is the site brief: the routines Rote may run whole and the
// transitions runs showed, a line per page they start from (suspect
// items left out), in a stable order and within MaxBriefBytes. It is
// read on every model call of every run on the site, so it says each
// thing once: how many runs support an item is for people (rote memory
// show), not for the model.
func RenderBrief(fingerprint string, routines []Routine, facts []Fact, now time.Time) *Brief {
	b := &Brief{Fingerprint: fingerprint, Rendered: now}
	var lines []string
	add := func(line string) bool {
		if len(strings.Join(append(slices.Clone(lines), line), "\n")) > MaxBriefBytes {
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
			add(prompt.Routines + " (Rote runs one whole, without you, where its first page shows and the task says it; you may run one by name):")
		}
		if add(fmt.Sprintf("- %s(%s): %s", r.Name, strings.Join(slices.Sorted(maps.Keys(p.Params)), ", "), p.Intent)) {
			b.Routines = append(b.Routines, r.Name)
		}
	}
	var pages []string
	byPage := map[string][]*Fact{}
	for i := range facts {
		if f := &facts[i]; f.Suspect == nil {
			if byPage[f.From] == nil {
				pages = append(pages, f.From)
			}
			byPage[f.From] = append(byPage[f.From], f)
		}
	}
	slices.Sort(pages)
	for i, page := range pages {
		if i == 0 {
			add("Where controls led in verified runs (page: control -> page):")
		}
		var leads []string
		for _, f := range byPage[page] {
			leads = append(leads, f.Via+" -> "+f.To)
		}
		if !add(page + ": " + strings.Join(leads, "; ")) {
			break
		}
		for _, f := range byPage[page] {
			b.Facts = append(b.Facts, f.Name)
		}
	}
	b.Text = strings.Join(lines, "\n")
	return b
}
