package distiller

import (
	"slices"
	"strings"

	"github.com/rote-agent/rote/schema"
)

// A verify gate that names neither a value of the task nor what the
// playbook chose or was handed at replay holds for any run of it:
// "Successfully moved reports/" holds whichever report moved. When the
// session's last result shows such a value, the distiller adds the check
// that it shows it again (the chosen name in the move's answer); when it
// shows none, it says at learn time that the gate is weak.

// strengthen adds to an MCP playbook's verify gate a check naming what
// varies, when the gate names none of it.
func (d *distillation) strengthen() {
	p := d.c.Playbook
	for _, e := range p.Verify {
		if refs, _ := e.Refs(); len(refs) > 0 {
			return
		}
	}
	last := d.r.LastResult()
	if last == nil || len(d.r.Actions) > 0 {
		return
	}
	values := slices.Clone(d.flows)
	for _, k := range d.b.names {
		values = append(values, flowValue{d.b.values[k], k})
	}
	if len(values) == 0 {
		return // nothing varies: the gate checks the one outcome there is
	}
	text := schema.ToolResultWorld(last.Result).Text
	for _, v := range values {
		if len(v.value) < minLiteral || strings.Contains(v.value, "\n") || !containsToken(text, v.value) || !used(p, v.ref) {
			continue
		}
		e := schema.Expect{Op: schema.OpTextVisible, Arg: "{{" + v.ref + "}}"}
		p.Verify = append(p.Verify, e)
		d.note("the verify gate named nothing that varies, so it would hold for any run: added %s, which the session's last result showed as %q", e, v.value)
		return
	}
	var names []string
	for _, v := range values {
		names = append(names, v.ref)
	}
	d.note("the verify gate is weak: it names none of %s, and the session's last result shows none of them, so it would hold whatever the replay acted on; learn again with a --verify that names one", strings.Join(names, ", "))
}

// used reports whether a step of p references ref.
func used(p *schema.Playbook, ref string) bool {
	return slices.ContainsFunc(p.Steps, func(s schema.Step) bool {
		refs, _ := schema.RefsIn([]any{s.Args, s.Prompt})
		return slices.ContainsFunc(refs, func(r schema.Ref) bool { return r.String() == ref })
	})
}
