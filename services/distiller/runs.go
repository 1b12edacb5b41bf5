package distiller

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/rote-agent/rote/schema"
)

// DistillRuns compiles several verified runs of one task class into one
// playbook that explains every one of them. Each run is distilled on its
// own; the playbooks must then be one procedure: the same steps, the
// same tools, arguments that differ only where a parameter does (a value
// two runs typed differently that no parameter holds is refused: it
// varies with the task), the same outputs. A choice among records keeps
// only the rules that chose in every run (newest by Published, where one
// run also happened to be newest by Period): none left is a refusal. A
// check that one run's page did not give is dropped. Any refusal names
// the run the playbook cannot explain.
func DistillRuns(runs []*schema.RunFold, o Options) (*Candidate, error) {
	if len(runs) == 0 {
		return nil, schema.Errorf(schema.CodeInvalid, "no run to distill")
	}
	first, err := Distill(runs[0], o)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", runs[0].Spec.RunID, err)
	}
	ids := []string{runs[0].Spec.RunID}
	describes := (&distillation{r: runs[0]}).describesControl
	for _, r := range runs[1:] {
		id := r.Spec.RunID
		if slices.Contains(ids, id) {
			return nil, schema.Errorf(schema.CodeInvalid, "run %s is given twice", id)
		}
		c, err := Distill(r, o)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", id, err)
		}
		if err := merge(first.Playbook, c.Playbook, describes); err != nil {
			return nil, schema.Errorf(schema.AsError(err).Code, "run %s is not explained by the playbook of run %s: %s", id, ids[0], schema.AsError(err).Message)
		}
		for k, v := range c.Inferred {
			if _, ok := first.Inferred[k]; !ok {
				return nil, schema.Errorf(schema.CodeUnbound, "run %s: parameter %s (%q) was found in its task only", id, k, v)
			}
		}
		ids = append(ids, id)
	}
	if err := first.Playbook.Validate(); err != nil {
		return nil, fmt.Errorf("the playbook of runs %s does not validate: %w", strings.Join(ids, ", "), err)
	}
	if len(runs) > 1 {
		first.Notes = append(first.Notes, fmt.Sprintf("explains %d runs: %s", len(ids), strings.Join(ids, ", ")))
	}
	return first, nil
}

// merge narrows p to what also explains q, a playbook of another run of
// the same task, or says where q does something else. The arguments
// that only describe a control for people (describes: @playwright/mcp's
// element) may differ: the third result is described by its title.
func merge(p, q *schema.Playbook, describes func(key string) bool) error {
	switch {
	case p.Fingerprint != q.Fingerprint:
		return schema.Errorf(schema.CodeFingerprint, "it ran in another environment (fingerprint %.12s, not %.12s)", q.Fingerprint, p.Fingerprint)
	case !reflect.DeepEqual(p.Params, q.Params):
		return schema.Errorf(schema.CodeInvalid, "its parameters are %s, not %s", paramNames(q), paramNames(p))
	case len(p.Steps) != len(q.Steps):
		return schema.Errorf(schema.CodeInvalid, "it took %d steps where the other took %d: not one procedure (%s)", len(q.Steps), len(p.Steps), firstDifference(p.Steps, q.Steps, describes))
	}
	for i := range p.Steps {
		a, b := &p.Steps[i], &q.Steps[i]
		what := fmt.Sprintf("step %d (%s)", i+1, a.ID)
		if d := stepDifference(*a, *b, describes); d != "" {
			return schema.Errorf(schema.CodeUnbound, "%s: %s: a value that changes between runs and no parameter holds varies with the task (declare it)", what, d)
		}
		if a.Target != nil && a.Target.Pick != nil {
			rules := commonRules(a.Target.Pick.Rules, b.Target.Pick.Rules)
			if len(rules) == 0 {
				return schema.Errorf(schema.CodeUnbound, "%s chose by %s in one run and by %s in the other: no rule explains both", what, a.Target.Pick, b.Target.Pick)
			}
			a.Target.Pick.Rules = rules
			if pick, ok := a.Args["pick"].(map[string]any); ok {
				pick["rules"] = asArgument(struct {
					Rules []schema.PickRule `json:"rules"`
				}{rules})["rules"]
			}
		}
		a.Expect = commonExpects(a.Expect, b.Expect)
	}
	p.Verify = commonExpects(p.Verify, q.Verify)
	if len(p.Verify) == 0 {
		return schema.Errorf(schema.CodeUnverified, "no check of the verify gate holds for both runs")
	}
	return nil
}

// stepDifference says how b does something other than a, beyond the
// rules of a choice, the checks and the arguments describes names: ""
// when it does not.
func stepDifference(a, b schema.Step, describes func(key string) bool) string {
	strip := func(s schema.Step) schema.Step {
		s.Expect, s.ID, s.Needs = nil, "", nil
		s.Args = maps.Clone(s.Args)
		maps.DeleteFunc(s.Args, func(k string, _ any) bool { return describes(k) })
		if s.Target != nil {
			t := *s.Target
			if t.Pick != nil {
				pk := *t.Pick
				pk.Rules = nil
				t.Pick = &pk
			}
			s.Target = &t
		}
		if pick, ok := s.Args["pick"].(map[string]any); ok {
			args := map[string]any{}
			for k, v := range s.Args {
				args[k] = v
			}
			stripped := map[string]any{}
			for k, v := range pick {
				if k != "rules" {
					stripped[k] = v
				}
			}
			args["pick"] = stripped
			s.Args = args
		}
		return s
	}
	x, y := strip(a), strip(b)
	if x.Tool != y.Tool || x.Kind != y.Kind {
		return fmt.Sprintf("%s %s in one run, %s %s in the other", x.Kind, x.Tool, y.Kind, y.Tool)
	}
	for _, part := range []struct {
		name string
		x, y any
	}{{"arguments", x.Args, y.Args}, {"target", x.Target, y.Target}, {"outputs", x.Outputs, y.Outputs}, {"on_fail", x.OnFail, y.OnFail}, {"prompt", x.Prompt, y.Prompt}, {"options", x.Options, y.Options}, {"dialogs", x.Dialogs, y.Dialogs}} {
		jx, _ := json.Marshal(part.x)
		jy, _ := json.Marshal(part.y)
		if string(jx) != string(jy) {
			return fmt.Sprintf("its %s are %s in one run, %s in the other", part.name, schema.Clip(string(jx), 200), schema.Clip(string(jy), 200))
		}
	}
	return ""
}

// firstDifference names the first step where two runs part.
func firstDifference(a, b []schema.Step, describes func(key string) bool) string {
	for i := range min(len(a), len(b)) {
		if d := stepDifference(a[i], b[i], describes); d != "" {
			return fmt.Sprintf("they part at step %d: %s", i+1, d)
		}
	}
	return fmt.Sprintf("they agree for %d steps", min(len(a), len(b)))
}

// commonRules keeps the rules of a that b holds too.
func commonRules(a, b []schema.PickRule) []schema.PickRule {
	var out []schema.PickRule
	for _, r := range a {
		if slices.Contains(b, r) {
			out = append(out, r)
		}
	}
	return out
}

// commonExpects keeps the checks of a that b holds too.
func commonExpects(a, b []schema.Expect) []schema.Expect {
	var out []schema.Expect
	for _, e := range a {
		if slices.ContainsFunc(b, func(f schema.Expect) bool { return reflect.DeepEqual(e, f) }) {
			out = append(out, e)
		}
	}
	return out
}

func paramNames(p *schema.Playbook) string {
	if len(p.Params) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(p.Params)), ", ")
}
