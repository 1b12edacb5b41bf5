package distiller

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/rote-agent/rote/schema"
)

// Candidate is a distilled playbook before its shadow replay, with what
// was left out and why.
type Candidate struct {
	Playbook  *schema.Playbook
	SourceRun string
	Pruned    []Pruned
	Notes     []string // constants kept as they are, judgments made
	// Inferred are the parameters the distiller found in the task's text,
	// with the values the run passed (a shadow replay needs them).
	Inferred map[string]string
	// binder templates what the shadow replay reads (the contracts of
	// controls) with the run's values; nil for a candidate read back
	// from a file.
	binder *binder
}

// Values are the parameter values a replay of the candidate as recorded
// takes: given, and the inferred ones given does not hold.
func (c *Candidate) Values(given map[string]string) map[string]string {
	out := maps.Clone(given)
	if out == nil {
		out = map[string]string{}
	}
	for k, v := range c.Inferred {
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	return out
}

// Pruned is a recorded step left out of the playbook.
type Pruned struct {
	Step   string // the step as recorded, e.g. "#4 navigate /records"
	Reason string
}

// Options shape a distillation.
type Options struct {
	// Name of the playbook; default the task's name, else one made from
	// its text.
	Name string
}

// fingerprint is the environment a run's playbook binds to: that of its
// last inventory, without the protocol version the recording client
// negotiated (runs recorded before it was left out carry it).
func fingerprint(r *schema.RunFold) string {
	if n := len(r.Inventories); n > 0 {
		if fp, err := schema.Fingerprint(r.Inventories[n-1].Environment.Stable()); err == nil {
			return fp
		}
	}
	return r.Spec.Fingerprint
}

// Distill compiles a verified run into a playbook candidate. It refuses,
// with a *schema.Error, a run that is not a verified success
// (CodeUnverified), a value that varies with the task but is no
// parameter, or a choice it could only freeze (CodeUnbound).
func Distill(r *schema.RunFold, o Options) (*Candidate, error) {
	if err := verified(r); err != nil {
		return nil, err
	}
	b := newBinder(r.Spec.Task)
	name := o.Name
	if name == "" {
		name = r.Spec.Task.Name
	}
	c := &Candidate{SourceRun: r.Spec.RunID, Playbook: &schema.Playbook{Name: name, Intent: b.intent(), Fingerprint: fingerprint(r), Params: b.declared()}}
	if n := len(r.Inventories); n > 0 {
		c.Playbook.Client = r.Inventories[n-1].Client
	}
	c.binder = b
	d := &distillation{r: r, b: b, c: c, ids: map[string]int{}}
	var err error
	switch {
	case len(r.Actions) > 0:
		err = d.browser()
	case len(r.Calls) > 0:
		err = d.mcp()
	default:
		err = schema.Errorf(schema.CodeInvalid, "run %s has no steps to distill", r.Spec.RunID)
	}
	if err == nil {
		err = d.foldSets()
	}
	if err != nil {
		return nil, err
	}
	if len(d.placed) > 1 {
		return nil, schema.Errorf(schema.CodeAmbiguous, "the place the task states fits %d choices (%s): which one it means is unknown, and a place taken by the wrong one would act on another control when the place changes", len(d.placed), strings.Join(d.placed, "; "))
	}
	if err := d.everyParamUsed(); err != nil {
		return nil, err
	}
	// Parameters inferred on the way are slotted out of the intent too.
	c.Playbook.Intent = b.intent()
	d.noteConstants()
	if c.Playbook.Name == "" {
		c.Playbook.Name = slug(c.Playbook.Intent, 48)
	}
	for _, chk := range r.Verify.Checks {
		e := d.templateExpect(chk.Expect)
		e.Arg = d.wholeChoices(e.Arg)
		c.Playbook.Verify = append(c.Playbook.Verify, e)
	}
	d.strengthen()
	if err := c.Playbook.Validate(); err != nil {
		return nil, fmt.Errorf("the distilled playbook does not validate: %w", err)
	}
	return c, nil
}

// distillation is one Distill in progress.
type distillation struct {
	r      *schema.RunFold
	b      *binder
	c      *Candidate
	ids    map[string]int
	last   string            // the id of the last step, which the next needs
	chosen map[string]string // a judged value -> its judgment step's id
	flows  []flowValue       // produced values -> the outputs that yield them
	// picked are the keys of the records picks chose in the run: what
	// the page showed of one holds only for that record.
	picked []string
	// placed are the choices made by a place the task states: one at
	// most, or the place may belong to another.
	placed []string
}

func (d *distillation) prune(what, why string) {
	d.c.Pruned = append(d.c.Pruned, Pruned{Step: what, Reason: why})
}

func (d *distillation) note(format string, args ...any) {
	d.c.Notes = append(d.c.Notes, fmt.Sprintf(format, args...))
}

// add appends s after the last step.
func (d *distillation) add(s schema.Step) {
	base := s.ID
	d.ids[base]++
	if n := d.ids[base]; n > 1 {
		s.ID = fmt.Sprintf("%s-%d", base, n)
	}
	if d.last != "" {
		s.Needs = []string{d.last}
	}
	d.last = s.ID
	d.c.Playbook.Steps = append(d.c.Playbook.Steps, s)
}

// templateExpect templates an assertion's argument and value.
func (d *distillation) templateExpect(e schema.Expect) schema.Expect {
	e.Arg = d.templateText(e.Arg)
	if len(e.Value) > 0 {
		e.Value = schema.RawJSON(d.templateText(string(e.Value)))
	}
	return e
}

// templateText templates parameter values, then judged values, inside s.
func (d *distillation) templateText(s string) string {
	s = d.b.within(s)
	for v, id := range d.chosen {
		s = strings.ReplaceAll(s, v, "{{steps."+id+"}}")
	}
	for _, f := range d.flows {
		at := tokenAt(s, f.value)
		for i := len(at) - 1; i >= 0; i-- {
			s = s[:at[i]] + "{{" + f.ref + "}}" + s[at[i]+len(f.value):]
		}
	}
	return s
}

// wholeChoices templates in a verify gate's argument s the values under
// minLiteral characters that a step takes as a control's whole name (the
// radio "XL" for the size XL), where s holds the value once, as a whole
// word ("size = XL"): a check of another size's page must name that size.
func (d *distillation) wholeChoices(s string) string {
	for _, k := range d.b.names {
		v := d.b.values[k]
		if len(v) < 2 || len(v) >= minLiteral || len(tokenAt(s, v)) != 1 || !d.takesWhole(k) {
			continue
		}
		at := tokenAt(s, v)[0]
		s = s[:at] + "{{" + k + "}}" + s[at+len(v):]
	}
	return s
}

// takesWhole reports whether a step of the playbook takes parameter k:
// a value that short is bound only as a control's whole name.
func (d *distillation) takesWhole(k string) bool {
	return slices.ContainsFunc(d.c.Playbook.Steps, func(s schema.Step) bool {
		data, err := json.Marshal(s)
		return err == nil && strings.Contains(string(data), "{{"+k+"}}")
	})
}

// everyParamUsed refuses a playbook with a declared parameter that no
// step uses: replayed with another value it would do exactly what it did
// with this one (trash the post it trashed, whatever the title says).
func (d *distillation) everyParamUsed() error {
	steps, err := json.Marshal(d.usingSteps())
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(d.c.Playbook.Params)) {
		if strings.Contains(string(steps), "{{"+k+"}}") || strings.Contains(string(steps), "{{"+k+"|") {
			continue
		}
		why := "the run must type it, choose it, go to it or act on the record it names"
		if v, ok := d.b.values[k]; ok && len(v) < minLiteral {
			why = fmt.Sprintf("its value %q is under %d characters, too short to find safely inside an address or a name: record with a longer one", v, minLiteral)
		}
		return schema.Errorf(schema.CodeUnbound, "parameter %s is declared but no step uses it: replayed with another %s, the playbook would do what it did with this one. Bind it (%s), or leave --param %s out if it is not the task's", k, k, why, k)
	}
	return nil
}

// usingSteps are the playbook's steps as far as they use a parameter: a
// browser MCP server's element argument only describes the control to a
// person (the ref decides which it is), so a value templated there alone
// acts on nothing.
func (d *distillation) usingSteps() []schema.Step {
	if !d.browserServer() {
		return d.c.Playbook.Steps
	}
	out := slices.Clone(d.c.Playbook.Steps)
	for i, s := range out {
		if _, ok := s.Args["element"]; ok {
			args := maps.Clone(s.Args)
			delete(args, "element")
			out[i].Args = args
		}
	}
	return out
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slug makes a name or step id out of s: lowercase words joined by -.
func slug(s string, max int) string {
	s = strings.NewReplacer("{{", "", "}}", "", "steps.", "").Replace(strings.ToLower(s))
	s = strings.Trim(nonSlug.ReplaceAllString(s, "-"), "-")
	if len(s) > max {
		s = strings.TrimRight(s[:max], "-")
	}
	if s == "" {
		return "step"
	}
	return s
}
