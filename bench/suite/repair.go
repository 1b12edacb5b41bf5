package suite

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/rote-agent/rote/bench/scripted"
)

// repair answers a scoped repair request: one replacement for the failed
// step, aimed at the control on the page that now does what the step's
// control did, or a fail when one step cannot do it.
func repair(r *reading) (scripted.Answer, error) {
	code, _, _ := strings.Cut(r.failure, ":")
	switch code {
	case "obscured":
		// Clear the way: the dialog's first button.
		if b, ok := r.page.dialogButton(); ok {
			return click(b), nil
		}
		return fail("something covers the control and no dialog on the page can be dismissed"), nil
	case "contract_changed":
		return fail("the control does something else now: replacing the step would change its effect"), nil
	}
	tool := r.stepField("tool")
	role, name := splitTarget(r.stepField("target"))
	args := map[string]any{}
	if a := r.stepField("args"); a != "" {
		_ = json.Unmarshal([]byte(a), &args)
	}
	if tool == "" || role == "" {
		return fail("the failed step names no control to replace"), nil
	}
	names := alternatives(name)
	if code == "control_changed" {
		// The same field in another form (a textarea now): aim at it again.
		names = append([]string{name}, names...)
	}
	for _, alt := range names {
		if n, ok := r.page.Find(role, alt); ok {
			args["role"], args["name"] = n.Role, n.Name
			return call(tool, args), nil
		}
	}
	return fail("no control on the page does what " + role + " " + strconv.Quote(name) + " did"), nil
}

// splitTarget reads `role "name"`.
func splitTarget(s string) (role, name string) {
	role, rest, _ := strings.Cut(s, " ")
	name, err := strconv.Unquote(rest)
	if err != nil {
		return role, strings.Trim(rest, `"`)
	}
	return role, name
}

// alternatives are the other labels a control named name goes by.
func alternatives(name string) []string {
	for _, f := range vendorFields {
		for _, l := range f.labels {
			if strings.EqualFold(l, name) {
				var out []string
				for _, other := range f.labels {
					if !strings.EqualFold(other, name) {
						out = append(out, other)
					}
				}
				return out
			}
		}
	}
	return nil
}
