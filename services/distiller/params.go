package distiller

import (
	"slices"
	"strings"

	"github.com/rote-agent/rote/schema"
)

// minLiteral is the shortest parameter value templated inside a longer
// string: shorter ones would match by accident.
const minLiteral = 3

// binder turns literals equal to the task's parameter values into
// {{name}}. Secret parameters were recorded as {{name}} (the actuator) or
// as digests (the recorder); both are recognised.
type binder struct {
	values  map[string]string // name -> clear value
	digests map[string]string // name -> recorded digest of a secret
	names   []string          // clear names, longest value first
	task    string
}

func newBinder(t schema.TaskSpec) *binder {
	b := &binder{values: map[string]string{}, digests: map[string]string{}, task: t.Text}
	for k, v := range t.Params {
		if strings.HasPrefix(v, "secret:") {
			b.digests[k] = v
			continue
		}
		b.values[k] = v
		b.names = append(b.names, k)
	}
	slices.SortFunc(b.names, func(x, y string) int {
		if d := len(b.values[y]) - len(b.values[x]); d != 0 {
			return d
		}
		return strings.Compare(x, y)
	})
	return b
}

// declared returns the playbook's parameters: every task parameter,
// required, the secret ones as secrets.
func (b *binder) declared() map[string]schema.Param {
	out := map[string]schema.Param{}
	for k := range b.values {
		out[k] = schema.Param{Type: schema.ParamString, Required: true}
	}
	for k := range b.digests {
		out[k] = schema.Param{Type: schema.ParamSecret, Required: true}
	}
	return out
}

// whole returns {{name}} when v is a parameter's value (or already its
// template, or a secret's digest).
func (b *binder) whole(v string) (string, bool) {
	for _, k := range b.names {
		if v == b.values[k] && v != "" {
			return "{{" + k + "}}", true
		}
	}
	for k, d := range b.digests {
		if v == d || v == "{{"+k+"}}" {
			return "{{" + k + "}}", true
		}
	}
	return v, false
}

// within templates every parameter value of at least minLiteral
// characters inside s.
func (b *binder) within(s string) string {
	for _, k := range b.names {
		if v := b.values[k]; len(v) >= minLiteral {
			s = strings.ReplaceAll(s, v, "{{"+k+"}}")
		}
	}
	return s
}

// fromTask reports whether v, which is no parameter's value, still comes
// from the task text: a value that varies with the task, undeclared.
func (b *binder) fromTask(v string) bool {
	return len(v) >= minLiteral && strings.Contains(b.task, v)
}

// intent is the task text with parameter values slotted out, whole
// words only.
func (b *binder) intent() string { return schema.SlotOut(b.task, b.values) }
