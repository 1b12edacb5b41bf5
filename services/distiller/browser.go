package distiller

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/rote-agent/rote/schema"
)

// browser distills a browser run: its actions become steps.
func (d *distillation) browser() error {
	var live []*schema.BrowserAction
	for _, a := range d.r.Actions {
		switch {
		case a.Action.Kind == schema.ActDone || a.Action.Kind == schema.ActFail:
		case a.Error != nil:
			d.prune(describe(a), "pre-dispatch failure: "+string(a.Error.Code))
		default:
			live = append(live, a)
		}
	}
	for i, a := range live {
		if why := d.superseded(live, i); why != "" {
			d.prune(describe(a), why)
			continue
		}
		if err := d.action(a); err != nil {
			return err
		}
	}
	return nil
}

// superseded says why live[i] does not matter to the outcome, or "".
func (d *distillation) superseded(live []*schema.BrowserAction, i int) string {
	a := live[i]
	switch a.Action.Kind {
	case schema.ActFill, schema.ActSelect, schema.ActSetValue:
		for _, later := range live[i+1:] {
			if later.Action.Kind == a.Action.Kind && sameControl(later.Action.Target, a.Action.Target) {
				return "superseded write: " + describe(later) + " sets it again"
			}
		}
	case schema.ActNavigate:
		if i+1 < len(live) && live[i+1].Action.Kind == schema.ActNavigate {
			return "abandoned exploration: the next step loads another page"
		}
	case schema.ActExtract:
		for _, later := range live[i+1:] {
			if later.Action.Kind == schema.ActExtract {
				return "superseded read: " + describe(later) + " reads again"
			}
		}
		if d.r.Done() == "" {
			return "a read that feeds no later step and no answer"
		}
	}
	return ""
}

// dropArgs writes where a drag drops as a step's to argument.
func dropArgs(t *schema.Target) map[string]any {
	out := map[string]any{}
	for k, v := range map[string]string{"id": t.ID, "role": t.Role, "name": t.Name, "near": t.Near} {
		if v != "" {
			out[k] = v
		}
	}
	return out
}

func sameControl(a, b *schema.Target) bool {
	return a != nil && b != nil && a.Role == b.Role && a.Name == b.Name
}

// describe names a recorded action: "#4 click button "Sign in"".
func describe(a *schema.BrowserAction) string {
	s := fmt.Sprintf("#%d %s", a.Seq, a.Action.Kind)
	if t := a.Action.Target; t != nil {
		s += " " + t.Role + " " + strconv.Quote(t.Name)
	}
	if t := a.Action.To; t != nil {
		s += " onto " + t.Role + " " + strconv.Quote(t.Name)
	}
	if a.Action.URL != "" {
		s += " " + a.Action.URL
	}
	return s
}

// action turns one live action into a step (and a judgment before it
// when the value was chosen among the control's options).
func (d *distillation) action(a *schema.BrowserAction) error {
	act := a.Action
	s := schema.Step{Kind: schema.StepDeterministic, Tool: string(act.Kind), OnFail: schema.OnFail{Policy: schema.FailRepair}, Dialogs: schema.Questions(a.Dialogs)}
	switch act.Kind {
	case schema.ActNavigate:
		u := d.relative(act.URL)
		u = d.b.within(u)
		s.ID, s.Args, s.OnFail = "open-"+slug(strings.SplitN(u, "?", 2)[0], 24), map[string]any{"url": u}, schema.OnFail{Policy: schema.FailRetry, Retries: 2}
	case schema.ActFill, schema.ActSetValue:
		v, err := d.typed(a, act.Value)
		if err != nil {
			return err
		}
		s.Args = map[string]any{"value": v}
	case schema.ActDrag:
		to := d.target(act.To)
		s.Args = map[string]any{"to": dropArgs(to)}
	case schema.ActSelect:
		v, err := d.selected(a)
		if err != nil {
			return err
		}
		s.Args = map[string]any{"value": v}
	case schema.ActCheck:
		if err := d.checked(a); err != nil {
			return err
		}
		if act.Value == "false" {
			s.Args = map[string]any{"checked": false}
		}
	case schema.ActPress:
		s.Args = map[string]any{"key": act.Value}
	case schema.ActExtract:
		s.OnFail = schema.OnFail{Policy: schema.FailRetry, Retries: 1}
		if act.Target == nil {
			if t, count, ok := d.listRead(a); ok {
				s.Target, s.Args = t, map[string]any{"count": count}
			}
		}
	}
	if a.Among != nil && act.Target != nil && act.Target.Pick == nil {
		t, err := d.choice(describe(a), a.Among, a.Chosen, act.Target, true)
		if err != nil {
			return err
		}
		if t != nil && act.Kind == schema.ActClick && togglesOnClick[t.Role] {
			return schema.Errorf(schema.CodeUnbound, "%s ticks one of several boxes by a choice, and a click on a box found the other way at replay would undo it: not distilled (record through rote mcp browser, whose replays tick the box chosen)", describe(a))
		}
		s.Target = t
	}
	if s.Target == nil && act.Target != nil {
		s.Target = d.target(act.Target)
	}
	if s.ID == "" {
		name := ""
		if s.Target != nil {
			name = s.Target.Name
		}
		if s.Target != nil && s.Target.Pick != nil {
			name = strings.ReplaceAll(s.Target.Pick.Name, "*", "")
		}
		s.ID = slug(string(act.Kind)+" "+name, 40)
	}
	s.Expect = d.evidence(a)
	d.add(s)
	return nil
}

// relative drops the run's own origin from u.
func (d *distillation) relative(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || d.r.Spec.Task.Target == "" || !strings.HasPrefix(u, d.r.Spec.Task.Target) {
		return u
	}
	rel := p.EscapedPath()
	if rel == "" {
		rel = "/"
	}
	if p.RawQuery != "" {
		rel += "?" + p.RawQuery
	}
	return rel
}

// typed templates a typed value: a parameter's value becomes {{name}}; a
// value from the task text that is no parameter is refused; any other is
// a constant, kept and noted.
func (d *distillation) typed(a *schema.BrowserAction, v string) (string, error) {
	if t, ok := d.b.whole(v); ok {
		return t, nil
	}
	switch t, why := d.b.converted(v); {
	case t != "":
		d.note("%s types %q, the task's value converted: %s", describe(a), v, t)
		return t, nil
	case why != "":
		return "", schema.Errorf(schema.CodeAmbiguous, "%s types %s", describe(a), why)
	}
	if d.b.fromTask(v) {
		return "", schema.Errorf(schema.CodeUnbound, "%s types %q, which comes from the task but is no parameter: declare it (--param) and run again", describe(a), v)
	}
	d.note("%s types the constant %q", describe(a), v)
	return v, nil
}

// selected templates a select's value; a value that no parameter or task
// text gives was chosen among the options: it becomes a judgment step,
// never a frozen constant.
func (d *distillation) selected(a *schema.BrowserAction) (string, error) {
	v := a.Action.Value
	if t, ok := d.b.whole(v); ok {
		return t, nil
	}
	if d.b.fromTask(v) {
		return "", schema.Errorf(schema.CodeUnbound, "%s chooses %q, which comes from the task but is no parameter: declare it and run again", describe(a), v)
	}
	if len(a.Options) < 2 || !slices.Contains(a.Options, v) {
		return "", schema.Errorf(schema.CodeUnbound, "%s chooses %q, which no parameter gives, and the options it was chosen among were not recorded: freezing it would replay one choice for every input", describe(a), v)
	}
	name := a.Action.Target.Name
	id := slug("choose "+name, 40)
	d.add(schema.Step{ID: id, Kind: schema.StepJudgment, Options: slices.Clone(a.Options),
		Prompt: fmt.Sprintf("Which %s fits what the page shows, for this task: %s", name, d.b.intent())})
	if d.chosen == nil {
		d.chosen = map[string]string{}
	}
	d.chosen[v] = d.last
	d.note("%s chose %q among %s: a judgment step (%s) decides it on replay", describe(a), v, strings.Join(a.Options, ", "), d.last)
	return "{{steps." + d.last + "}}", nil
}

// checked accepts a check of a parameter's radio, or of a checkbox; a
// radio that no parameter names was chosen among others that were not
// recorded, and is refused.
func (d *distillation) checked(a *schema.BrowserAction) error {
	t := a.Action.Target
	if t == nil || t.Role != "radio" {
		return nil
	}
	if _, ok := d.b.whole(t.Name); ok {
		return nil
	}
	return schema.Errorf(schema.CodeUnbound, "%s picks the radio %q, which no parameter names: freezing it would replay one choice for every input", describe(a), t.Name)
}

// target is the control a step aims at: role, name and recorded contract,
// and the stable id unless the name is templated (the id hashes the
// name, and so would a link's href).
func (d *distillation) target(t *schema.Target) *schema.Target {
	out := &schema.Target{ID: t.ID, Role: t.Role, Name: t.Name, Near: d.b.within(t.Near), Contract: d.contract(t), Twins: t.Twins}
	name, ok := d.b.whole(t.Name)
	if !ok {
		name = d.b.within(t.Name)
	}
	if name != t.Name {
		out.Name, out.ID = name, ""
		if out.Contract != nil {
			out.Contract.Href = ""
		}
	}
	if t.Pick != nil {
		// A step replayed by its pick: what it chose then is no target.
		pick := *t.Pick
		pick.Rules = slices.Clone(pick.Rules)
		for i := range pick.Rules {
			pick.Rules[i].Value = d.b.within(pick.Rules[i].Value)
		}
		out.ID, out.Name, out.Pick = "", "", &pick
	}
	return out
}

// contract is the contract a step holds t's control to: its addresses
// templated where a parameter's value stands in them as a whole segment
// (/drills/{{seed}}/press), and left out where digits remain: such an
// address most likely names one record (an id), and another input would
// meet another address. The tag, input type and method still guard the
// control.
func (d *distillation) contract(t *schema.Target) *schema.Contract {
	if t.Contract == nil {
		return nil
	}
	c := *t.Contract
	c.FormAction, c.Href = d.b.within(c.FormAction), d.b.within(c.Href)
	for _, a := range dropVaryingAddresses(&c) {
		d.note("the contract of %s %q leaves out %s, which holds an id that varies", t.Role, t.Name, a)
	}
	return &c
}

// dropVaryingAddresses clears the addresses of c that have digits in
// them and returns them.
func dropVaryingAddresses(c *schema.Contract) []string {
	var dropped []string
	for _, f := range []*string{&c.FormAction, &c.Href} {
		if hasDigit(*f) {
			dropped = append(dropped, *f)
			*f = ""
		}
	}
	return dropped
}

// evidence returns the assertions the page gave after a: the path it went
// to and the first heading that appeared, when they hold no data that
// varies (digits, the record a pick chose) and are not what the agent
// typed; none once a place chose a control (afterPlace).
func (d *distillation) evidence(a *schema.BrowserAction) []schema.Expect {
	if a.Action.Kind == schema.ActFill || a.Action.Kind == schema.ActSelect || a.Action.Kind == schema.ActSetValue || a.Action.Kind == schema.ActExtract {
		return nil
	}
	before, beforeFull, after := d.around(a.Seq)
	if after == nil || d.afterPlace(describe(a)) {
		return nil
	}
	var out []schema.Expect
	path := pathOf(after.URL)
	if (before == nil || pathOf(before.URL) != path) && !hasDigit(path) && !d.holdsPicked(path) {
		out = append(out, schema.Expect{Op: schema.OpURLContains, Arg: d.b.within(path)})
		if h := newHeading(beforeFull, after); h != "" && !hasDigit(h) && !d.holdsPicked(h) {
			out = append(out, schema.Expect{Op: schema.OpSelectorVisible, Arg: "heading " + strconv.Quote(d.b.within(h))})
		}
	}
	return out
}

// around returns the last observation before seq, the last whole one
// before it, and the first after it.
func (d *distillation) around(seq uint64) (before, beforeFull, after *schema.BrowserObserved) {
	for _, o := range d.r.Observations {
		switch {
		case o.Seq < seq:
			before = o
			if o.Kind == schema.ObservationFull {
				beforeFull = o
			}
		case after == nil:
			after = o
		}
	}
	return before, beforeFull, after
}

func pathOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.EscapedPath()
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// newHeading is the first heading of after's whole render that before's
// did not have.
func newHeading(before, after *schema.BrowserObserved) string {
	if after.Kind != schema.ObservationFull {
		return ""
	}
	had := map[string]bool{}
	if before != nil {
		for _, h := range headings(before.Render) {
			had[h] = true
		}
	}
	for _, h := range headings(after.Render) {
		if !had[h] {
			return h
		}
	}
	return ""
}

// headings lists the names of the heading lines of a render.
func headings(render string) []string {
	var out []string
	for _, l := range strings.Split(render, "\n") {
		_, rest, ok := strings.Cut(l, " heading ")
		if !ok || strings.HasPrefix(l, "~") || strings.HasPrefix(l, "-") {
			continue
		}
		if q, err := strconv.QuotedPrefix(rest); err == nil {
			name, _ := strconv.Unquote(q)
			out = append(out, name)
		}
	}
	return out
}
