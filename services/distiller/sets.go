package distiller

import (
	"slices"
	"strings"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
)

// foldSets makes the boxes a rote mcp browser session ticked, one for
// each item of a list the task gives (toppings "Basil, Olives, Tuna"),
// one step that ticks each item of the list given at replay, followed by
// a read of the page that checks its ticked boxes are the list's items,
// no more and no fewer: a box left ticked that the new list does not
// hold stops the replay there, before anything is sent. The boxes the
// session unticked beside them (ticked by default, not in its list) are
// unticked first, each unless the new list holds it. A list whose items
// the session did not tick each once, in one run of box clicks, is
// refused.
func (d *distillation) foldSets() error {
	if d.server() != RoteBrowserServer {
		return nil
	}
	p := d.c.Playbook
	for _, name := range d.b.names {
		items, err := schema.ListItems(d.b.values[name])
		if err != nil || len(items) < 2 || p.Params[name].IsSecret() {
			continue
		}
		var ticks []int
		for i, s := range p.Steps {
			if box(s) == checkedBox && slices.Contains(items, s.Target.Name) {
				ticks = append(ticks, i)
			}
		}
		if len(ticks) == 0 {
			continue
		}
		var ticked []string
		for _, i := range ticks {
			ticked = append(ticked, p.Steps[i].Target.Name)
		}
		if len(ticked) != len(items) || !sameItems(ticked, items) {
			return schema.Errorf(schema.CodeUnbound, "the session ticked %s, and the list %s holds %s: each item ticked once is what a replay of another list does", strings.Join(ticked, ", "), name, strings.Join(items, ", "))
		}
		// The run of box clicks: the ticks, the boxes unticked beside
		// them, and the looks at the page between them.
		beside := func(s schema.Step) bool {
			return box(s) == uncheckedBox && !slices.Contains(items, s.Target.Name) || look(s)
		}
		lo, hi := ticks[0], ticks[len(ticks)-1]
		for lo > 0 && beside(p.Steps[lo-1]) {
			lo--
		}
		for hi < len(p.Steps)-1 && beside(p.Steps[hi+1]) {
			hi++
		}
		for i := lo; i <= hi; i++ {
			if s := p.Steps[i]; box(s) != checkedBox && !beside(s) {
				return schema.Errorf(schema.CodeUnbound, "between ticking the boxes of %s the session did %s %s: a list is ticked in one run of box clicks", name, s.Tool, s.ID)
			}
		}
		for i, s := range p.Steps {
			if (i < lo || i > hi) && box(s) == uncheckedBox {
				return schema.Errorf(schema.CodeUnbound, "the session also unticked the box %q apart from the list %s's: replayed with another list it could undo an item's tick", s.Target.Name, name)
			}
		}
		ref := "{{" + name + "}}"
		each := schema.Step{ID: slug("check "+name, 40), Kind: schema.StepDeterministic, Tool: string(schema.ActCheck), Each: name,
			Target: &schema.Target{Role: "checkbox", Name: ref}, Args: map[string]any{"role": "checkbox", "name": ref, "checked": true}}
		guard := schema.Step{ID: slug("observe "+name, 40), Kind: schema.StepDeterministic, Tool: tools.Observe, Args: map[string]any{"full": true},
			Expect: []schema.Expect{{Op: schema.OpCheckedExactly, Arg: ref}}}
		// The boxes the session unticked are unticked again, unless the
		// list given then holds them, before its items are ticked.
		var unticks []schema.Step
		for _, s := range p.Steps[lo : hi+1] {
			if box(s) == uncheckedBox {
				s.Except, s.Expect = name, nil
				unticks = append(unticks, s)
			}
		}
		p.Steps = slices.Concat(p.Steps[:lo], unticks, []schema.Step{each, guard}, p.Steps[hi+1:])
		decl := p.Params[name]
		decl.Type = schema.ParamList
		p.Params[name] = decl
		d.note("the boxes ticked for %s (%s) are ticked for each item of the list at replay, then the page's ticked boxes are checked to be the list's exactly", name, strings.Join(items, ", "))
	}
	for i := range p.Steps {
		p.Steps[i].Needs = nil
		if i > 0 {
			p.Steps[i].Needs = []string{p.Steps[i-1].ID}
		}
	}
	return nil
}

// boxState is what a step does to a checkbox.
type boxState int

const (
	notBox boxState = iota
	checkedBox
	uncheckedBox
)

// box says whether step s checks or unchecks a checkbox it names.
func box(s schema.Step) boxState {
	if s.Tool != string(schema.ActCheck) || s.Target == nil || s.Target.Role != "checkbox" || s.Target.Name == "" || s.Each != "" {
		return notBox
	}
	if s.Args["checked"] == false {
		return uncheckedBox
	}
	return checkedBox
}

// look reports whether s only reads the page, for nothing later.
func look(s schema.Step) bool {
	return tools.ReadsPage(s.Tool) && len(s.Outputs) == 0
}

// sameItems reports whether a and b hold the same items, in any order.
func sameItems(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
