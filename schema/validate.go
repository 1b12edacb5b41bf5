package schema

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Problem is one thing wrong with a playbook. Path is a YAML path such as
// `$.steps[2].needs[0]`, empty when only the line is known; Line is set
// when the playbook came from YAML.
type Problem struct {
	Path    string
	Line    int
	Message string
}

func (p Problem) String() string {
	switch {
	case p.Path == "" && p.Line > 0:
		return fmt.Sprintf("line %d: %s", p.Line, p.Message)
	case p.Path == "":
		return p.Message
	case p.Line > 0:
		return fmt.Sprintf("line %d: %s: %s", p.Line, p.Path, p.Message)
	}
	return fmt.Sprintf("%s: %s", p.Path, p.Message)
}

// ValidationError lists every problem found in a playbook, in document
// order. It matches ErrInvalid under errors.Is.
type ValidationError struct {
	Name     string
	Problems []Problem
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	name := e.Name
	if name == "" {
		name = "(unnamed)"
	}
	fmt.Fprintf(&b, "invalid playbook %s: %d problem(s)", name, len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

// Unwrap returns an *Error with CodeInvalid, so errors.Is(err, ErrInvalid)
// holds.
func (e *ValidationError) Unwrap() error { return &Error{Code: CodeInvalid, Message: e.Error()} }

var (
	namePattern        = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
	fingerprintPattern = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

func validateName(name string) error {
	if !namePattern.MatchString(name) {
		return Errorf(CodeInvalid, "name %q: want 1-64 of [a-z0-9_-], starting with a letter or digit", name)
	}
	return nil
}

// ValidateFingerprint returns an *Error with CodeInvalid unless fp is 64
// lowercase hex digits.
func ValidateFingerprint(fp string) error {
	if !fingerprintPattern.MatchString(fp) {
		return Errorf(CodeInvalid, "fingerprint %q: want 64 lowercase hex digits", fp)
	}
	return nil
}

type problems []Problem

func (ps *problems) add(path, format string, args ...any) {
	*ps = append(*ps, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

func (ps *problems) addErr(path string, err error) {
	if err == nil {
		return
	}
	ps.add(path, "%s", messageOf(err))
}

// maxOrigins bounds a playbook's extra origins.
const maxOrigins = 16

// Validate checks the whole playbook and returns a *ValidationError with
// every problem, or nil. It checks names, parameter declarations, unique
// step ids, known needs, an acyclic graph, per-kind step fields, slot and
// judgment budgets, expect syntax, and that every template reference is a
// declared parameter or the output of a slot or judgment step the step
// depends on.
func (p *Playbook) Validate() error {
	var ps problems
	if p.Name == "" {
		ps.add("$.name", "missing")
	} else {
		ps.addErr("$.name", validateName(p.Name))
	}
	if strings.TrimSpace(p.Intent) == "" {
		ps.add("$.intent", "missing: say what the playbook does, with parameters as {{name}}")
	}
	if p.Fingerprint != "" {
		ps.addErr("$.fingerprint", ValidateFingerprint(p.Fingerprint))
	}
	if len(p.Origins) > maxOrigins {
		ps.add("$.origins", "%d origins: at most %d", len(p.Origins), maxOrigins)
	}
	for i, o := range p.Origins {
		if norm, err := ParseOrigin(o); err != nil {
			ps.addErr(fmt.Sprintf("$.origins[%d]", i), err)
		} else if norm != o {
			ps.add(fmt.Sprintf("$.origins[%d]", i), "write it as %s", norm)
		}
	}
	for _, name := range sortedKeys(p.Params) {
		p.Params[name].validate(&ps, "$.params."+name, name)
	}
	ps.addErr("$.client", CheckClient(p.Client))
	p.validateSteps(&ps)
	if len(p.Verify) == 0 {
		ps.add("$.verify", "empty: a playbook must prove its outcome with at least one assertion")
	}
	for i, e := range p.Verify {
		path := fmt.Sprintf("$.verify[%d]", i)
		ps.addErr(path, e.Validate())
		p.refuseSecrets(&ps, path, p.checkRefs(&ps, path, nil, func() ([]Ref, error) { return e.Refs() }))
	}
	if intentRefs, err := ParseRefs(p.Intent); err != nil {
		ps.addErr("$.intent", err)
	} else {
		for _, r := range intentRefs {
			if r.Step != "" || !p.declared(r.Param) {
				ps.add("$.intent", "{{%s}} is not a declared parameter", r)
			}
		}
	}
	if len(ps) == 0 {
		return nil
	}
	return &ValidationError{Name: p.Name, Problems: ps}
}

func (decl Param) validate(ps *problems, path, name string) {
	if !paramRefPattern.MatchString(name) {
		ps.add(path, "parameter name %q: want a letter or _ then letters, digits or _", name)
	}
	switch decl.Type {
	case ParamString, ParamNumber, ParamBool, ParamSecret, ParamList:
		if len(decl.Enum) > 0 {
			ps.add(path+".enum", "only an enum parameter takes enum values")
		}
	case ParamEnum:
		if len(decl.Enum) == 0 {
			ps.add(path+".enum", "an enum parameter needs at least one value")
		}
		seen := map[string]bool{}
		for i, v := range decl.Enum {
			if seen[v] {
				ps.add(fmt.Sprintf("%s.enum[%d]", path, i), "duplicate value %q", v)
			}
			seen[v] = true
		}
	case "":
		ps.add(path+".type", "missing: want string, number, bool, enum, secret or list")
	default:
		ps.add(path+".type", "%q: want string, number, bool, enum, secret or list", decl.Type)
	}
}

func (p *Playbook) validateSteps(ps *problems) {
	if len(p.Steps) == 0 {
		ps.add("$.steps", "empty: a playbook needs at least one step")
		return
	}
	first := map[string]int{}
	for i, s := range p.Steps {
		path := fmt.Sprintf("$.steps[%d]", i)
		if !namePattern.MatchString(s.ID) {
			ps.add(path+".id", "%q: want 1-64 of [a-z0-9_-], starting with a letter or digit", s.ID)
		} else if j, dup := first[s.ID]; dup {
			ps.add(path+".id", "duplicate step id %q (first at steps[%d])", s.ID, j)
		} else {
			first[s.ID] = i
		}
	}
	graphOK := true
	for i, s := range p.Steps {
		for k, n := range s.Needs {
			path := fmt.Sprintf("$.steps[%d].needs[%d]", i, k)
			switch _, ok := first[n]; {
			case n == s.ID:
				ps.add(path, "step %s needs itself", s.ID)
				graphOK = false
			case !ok:
				ps.add(path, "step %s needs unknown step %q", s.ID, n)
				graphOK = false
			}
		}
	}
	if graphOK && len(first) == len(p.Steps) {
		if c := p.cycle(); c != nil {
			ps.add(fmt.Sprintf("$.steps[%d].needs", first[c[0]]), "steps form a cycle (each needs the next): %s", strings.Join(c, " -> "))
			graphOK = false
		}
	}
	used := map[string]bool{} // the parameters some step refers to
	refs := func(path string, ancestors map[string]bool, f func() ([]Ref, error)) []Ref {
		rs := p.checkRefs(ps, path, ancestors, f)
		for _, r := range rs {
			if r.Param != "" {
				used[r.Param] = true
			}
			if pr, ok := p.Params[r.Param]; ok && r.Conv != "" && pr.Type != ParamString {
				ps.add(path, "{{%s}}: only a string parameter is converted (%s is %s: a secret is typed as given)", r, r.Param, pr.Type)
			}
		}
		return rs
	}
	for i := range p.Steps {
		s := &p.Steps[i]
		path := fmt.Sprintf("$.steps[%d]", i)
		s.validateKind(ps, path)
		for k, e := range s.Expect {
			ps.addErr(fmt.Sprintf("%s.expect[%d]", path, k), e.Validate())
		}
		var ancestors map[string]bool
		if graphOK {
			ancestors = p.ancestors(s.ID)
		}
		refs(path+".args", ancestors, func() ([]Ref, error) { return RefsIn(s.Args) })
		p.refuseSecrets(ps, path+".prompt", refs(path+".prompt", ancestors, func() ([]Ref, error) { return ParseRefs(s.Prompt) }))
		if s.Target != nil {
			refs(path+".target", ancestors, func() ([]Ref, error) {
				refs := []any{s.Target.ID, s.Target.Role, s.Target.Name, s.Target.Near, s.Target.Pick.values()}
				if c := s.Target.Contract; c != nil {
					refs = append(refs, c.FormAction, c.Href)
				}
				return RefsIn(refs)
			})
			switch tw := s.Target.Twins; {
			case tw < 0 || tw > MaxTwins:
				ps.add(path+".target.twins", "%d: want 0 to %d", tw, MaxTwins)
			case tw > 0 && (s.Target.ID == "" || s.Target.Pick != nil):
				ps.add(path+".target.twins", "twins counts the fields an id's ordinal is among: it needs an id and no pick")
			}
			if s.Kind == StepJudgment {
				ps.addErr(path+".target.pick", s.Target.Pick.validateRecords())
			} else {
				ps.addErr(path+".target.pick", s.Target.Pick.Validate())
			}
		}
		ps.addErr(path, s.validatePick())
		if s.Except != "" {
			used[s.Except] = true
			if decl, ok := p.Params[s.Except]; !ok || decl.Type != ParamList || s.Target == nil || s.Target.Name == "" || s.Each != "" {
				ps.add(path+".except", "%q: want a list parameter, on a step whose target is named and that runs once", s.Except)
			}
		}
		if s.Each != "" {
			switch decl, ok := p.Params[s.Each]; {
			case !ok || decl.Type != ParamList:
				ps.add(path+".each", "%q is no list parameter", s.Each)
			case s.Kind != StepDeterministic || len(s.Outputs) > 0 || s.Target != nil && s.Target.Pick != nil || s.OnFail.Policy == FailRepair:
				ps.add(path+".each", "only a deterministic step with no outputs, no pick and no repair runs once per item")
			}
		}
		if len(s.Dialogs) > MaxDialogs {
			ps.add(path+".dialogs", "%d dialogs, over %d", len(s.Dialogs), MaxDialogs)
		}
		for k, d := range s.Dialogs {
			if d != "confirm" && d != "prompt" && d != "beforeunload" {
				ps.add(fmt.Sprintf("%s.dialogs[%d]", path, k), "dialog %q: want confirm, prompt or beforeunload", d)
			}
		}
		for k, e := range s.Expect {
			epath := fmt.Sprintf("%s.expect[%d]", path, k)
			p.refuseSecrets(ps, epath, refs(epath, ancestors, func() ([]Ref, error) { return e.Refs() }))
		}
		for _, name := range sortedKeys(s.Outputs) {
			o, opath := s.Outputs[name], path+".outputs."+name
			if !outputNamePattern.MatchString(name) {
				ps.add(opath, "output name %q: want a lowercase letter or _ then lowercase letters, digits or _", name)
			}
			if s.Kind != StepDeterministic {
				ps.add(opath, "only a deterministic step's result has outputs")
			}
			ps.addErr(opath, o.validate())
			refs(opath, map[string]bool{}, func() ([]Ref, error) { return RefsIn([]any{o.Line, o.After, o.Row, o.Pick.values(), o.Place.values()}) })
		}
	}
	// A parameter no step uses changes nothing a replay does: replayed
	// with another value, the playbook would do what it did with this one.
	for _, name := range sortedKeys(p.Params) {
		if !used[name] {
			ps.add("$.params."+name, "declared but no step uses it: a replay with another %s would do what it does with any", name)
		}
	}
}

func (s *Step) validateKind(ps *problems, path string) {
	switch s.Kind {
	case StepDeterministic:
		if s.Tool == "" {
			ps.add(path+".tool", "a deterministic step needs a tool")
		}
		if s.Prompt != "" || len(s.Options) > 0 || s.MaxTokens != 0 {
			ps.add(path, "a deterministic step takes no prompt, options or max_tokens")
		}
	case StepSlot:
		if strings.TrimSpace(s.Prompt) == "" {
			ps.add(path+".prompt", "a slot step needs a prompt")
		}
		if len(s.Options) > 0 {
			ps.add(path+".options", "a slot step takes no options; use a judgment step to choose")
		}
		if s.MaxTokens < 1 || s.MaxTokens > MaxSlotTokens {
			ps.add(path+".max_tokens", "a slot step needs a budget of 1 to %d tokens, got %d", MaxSlotTokens, s.MaxTokens)
		}
	case StepJudgment:
		if strings.TrimSpace(s.Prompt) == "" {
			ps.add(path+".prompt", "a judgment step needs a prompt")
		}
		switch {
		case s.Target != nil && len(s.Options) > 0:
			ps.add(path+".options", "a judgment step among records reads its options from the page: it lists none")
		case s.Target == nil && len(s.Options) == 0:
			ps.add(path+".options", "a judgment step needs a non-empty set of options, or a target whose records it chooses among")
		}
		for k, o := range s.Options {
			if strings.TrimSpace(o) == "" {
				ps.add(fmt.Sprintf("%s.options[%d]", path, k), "empty option")
			} else if slices.Index(s.Options, o) != k {
				ps.add(fmt.Sprintf("%s.options[%d]", path, k), "duplicate option %q", o)
			}
		}
		if s.MaxTokens < 0 || s.MaxTokens > MaxSlotTokens {
			ps.add(path+".max_tokens", "a judgment budget must be 0 (default %d) to %d tokens, got %d", DefaultJudgeLimit, MaxSlotTokens, s.MaxTokens)
		}
	case "":
		ps.add(path+".kind", "missing: want deterministic, slot or judgment")
	default:
		ps.add(path+".kind", "%q: want deterministic, slot or judgment", s.Kind)
	}
	if s.OnFail.Policy == FailRetry && (s.OnFail.Retries < 1 || s.OnFail.Retries > MaxRetries) {
		ps.add(path+".on_fail", "retry count must be 1 to %d", MaxRetries)
	}
}

// refuseSecrets reports each secret parameter among refs, where a secret
// may not go: a check's text is recorded and shown with its outcome, and a
// prompt is sent to the model.
func (p *Playbook) refuseSecrets(ps *problems, path string, refs []Ref) {
	for _, r := range refs {
		if r.Param != "" && p.Params[r.Param].Type == ParamSecret {
			ps.add(path, "{{%s}} is a secret: a check or a prompt may not name it (its text is recorded and shown, a prompt is sent to the model)", r.Param)
		}
	}
}

// checkRefs reports references to undeclared parameters, and to step
// outputs that are not produced by a slot or judgment step among
// ancestors (nil ancestors: the graph is broken, skip step references).
// It returns the references, none when they do not parse.
func (p *Playbook) checkRefs(ps *problems, path string, ancestors map[string]bool, refs func() ([]Ref, error)) []Ref {
	rs, err := refs()
	if err != nil {
		ps.addErr(path, err)
		return nil
	}
	for _, r := range rs {
		if r.Param != "" {
			if !p.declared(r.Param) {
				ps.add(path, "{{%s}} is not a declared parameter (declared: %s)", r.Param, strings.Join(sortedKeys(p.Params), ", "))
			}
			continue
		}
		src := p.Step(r.Step)
		switch {
		case src == nil:
			ps.add(path, "{{%s}}: no such step", r)
		case r.Output != "":
			if _, ok := src.Outputs[r.Output]; !ok {
				ps.add(path, "{{%s}}: step %s declares no output %q", r, r.Step, r.Output)
			} else if ancestors != nil && !ancestors[r.Step] {
				ps.add(path, "{{%s}} is used but step %s is not among this step's needs", r, r.Step)
			}
		case src.Kind == StepDeterministic:
			ps.add(path, "{{steps.%s}}: only slot and judgment steps produce values", r.Step)
		case ancestors != nil && !ancestors[r.Step]:
			ps.add(path, "{{steps.%s}} is used but step %s is not among this step's needs", r.Step, r.Step)
		}
	}
	return rs
}

func (p *Playbook) declared(name string) bool {
	_, ok := p.Params[name]
	return ok
}

// ancestors returns every step id that id transitively needs.
func (p *Playbook) ancestors(id string) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(id string) {
		s := p.Step(id)
		if s == nil {
			return
		}
		for _, n := range s.Needs {
			if !seen[n] {
				seen[n] = true
				walk(n)
			}
		}
	}
	walk(id)
	return seen
}
