package replay

import (
	"fmt"
	"sort"

	"github.com/rote-agent/rote/schema"
)

// bindingError is a step's call that succeeded but whose result did not
// yield one of the step's outputs (CodeBindingNotFound or CodeAmbiguous):
// later steps cannot know what to act on, so the replay stops before
// sending any of them.
type bindingError struct{ err *schema.Error }

func (e *bindingError) Error() string { return e.err.Message }

// Unwrap returns the *schema.Error, so that the reason keeps its code.
func (e *bindingError) Unwrap() error { return e.err }

// locateOutputs finds each output of s in w, the world its call left,
// and binds it for the steps that use it.
func (x *replay) locateOutputs(s *schema.Step, w schema.World) error {
	names := make([]string, 0, len(s.Outputs))
	for name := range s.Outputs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ref := schema.Ref{Step: s.ID, Output: name}
		v, err := s.Outputs[name].Locate(w, x.bindings)
		if err != nil {
			e := schema.AsError(err)
			return &bindingError{&schema.Error{Code: e.Code, Message: fmt.Sprintf("{{%s}} (%s): %s", ref, s.Outputs[name], e.Message)}}
		}
		x.bindings.Outputs[s.ID+"."+name] = v
		x.log.Debug("output bound", "step", s.ID, "output", name, "value", v)
	}
	return nil
}

// boundIn lists the step outputs s's arguments use, with the values
// they were bound to, for the record of its call.
func (x *replay) boundIn(s *schema.Step) map[string]string {
	refs, _ := schema.RefsIn(s.Args)
	var out map[string]string
	for _, r := range refs {
		if r.Output == "" {
			continue
		}
		if v, ok := x.bindings.Outputs[r.Step+"."+r.Output]; ok {
			if out == nil {
				out = map[string]string{}
			}
			out[r.String()] = fmt.Sprint(v)
		}
	}
	return out
}

// alreadyToggled reports whether a step's arguments use an output bound
// to schema.AlreadyToggled: the control it would click is already as the
// recorded click left it.
func (x *replay) alreadyToggled(s *schema.Step) bool {
	refs, _ := schema.RefsIn(s.Args)
	for _, r := range refs {
		if _, ok := x.bindings.Outputs[r.Step+"."+r.Output].(schema.AlreadyToggled); r.Output != "" && ok {
			return true
		}
	}
	return false
}
