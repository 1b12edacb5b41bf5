package schema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/goccy/go-yaml/ast"
)

// Playbook is a verified procedure: a DAG of steps over typed parameters,
// each step optionally gated by expect assertions, the whole gated by a
// verify list that must pass for a replay to count as success.
type Playbook struct {
	Name   string `yaml:"name"`
	Intent string `yaml:"intent"` // the task text with parameters as {{name}}
	// Fingerprint binds the playbook to one environment. Empty means
	// unbound: replayable explicitly from a file, never chosen by matching.
	Fingerprint string `yaml:"fingerprint,omitempty"`
	// Origins are the origins besides its base URL's that a browser
	// replay may load pages from (a sign-in service, say), as
	// scheme://host[:port]; every other page load is out_of_origin.
	Origins []string `yaml:"origins,omitempty"`
	// Client is what the recorded MCP client declared it could do
	// (ClientCapabilities): a replay's client declares the same, since a
	// server may list other tools to another client.
	Client []string         `yaml:"client,omitempty"`
	Params map[string]Param `yaml:"params,omitempty"`
	Steps  []Step           `yaml:"steps"`
	Verify []Expect         `yaml:"verify"`
}

// ParamType is a parameter's type, a closed set.
type ParamType string

// Parameter types.
const (
	ParamString ParamType = "string"
	ParamNumber ParamType = "number"
	ParamBool   ParamType = "bool"
	ParamEnum   ParamType = "enum"
	ParamSecret ParamType = "secret" // a string that is never stored in clear
	ParamList   ParamType = "list"   // items apart by commas, "Basil, Olives, Tuna": a step with each runs once per item
)

// MaxListParamItems is how many items a list parameter may hold.
const MaxListParamItems = 50

// ListItems reads a list parameter's value: its items apart by commas
// ("Basil, Olives and Tuna" reads the last comma's "and" as one), each
// trimmed. An empty item, the same item twice, more than
// MaxListParamItems, or an item holding a template's braces is an *Error
// with CodeParamType.
func ListItems(v string) ([]string, error) {
	parts := strings.Split(v, ",")
	if n := len(parts); n > 1 {
		if last := strings.TrimSpace(parts[n-1]); strings.HasPrefix(last, "and ") {
			parts[n-1] = strings.TrimPrefix(last, "and ")
		}
	}
	if len(parts) > MaxListParamItems {
		return nil, Errorf(CodeParamType, "a list of %d items, over %d", len(parts), MaxListParamItems)
	}
	items := make([]string, 0, len(parts))
	for _, p := range parts {
		item := strings.TrimSpace(p)
		switch {
		case item == "":
			return nil, Errorf(CodeParamType, "%q: an empty item", Clip(v, 80))
		case strings.Contains(item, "{{") || strings.Contains(item, "}}"):
			return nil, Errorf(CodeParamType, "item %q holds a template's braces", Clip(item, 60))
		case slices.Contains(items, item):
			return nil, Errorf(CodeParamType, "item %q is listed twice", Clip(item, 60))
		}
		items = append(items, item)
	}
	return items, nil
}

// Param declares one parameter.
type Param struct {
	Type        ParamType `yaml:"type"`
	Required    bool      `yaml:"required,omitempty"`
	Secret      bool      `yaml:"secret,omitempty"`
	Enum        []string  `yaml:"enum,omitempty"`
	Description string    `yaml:"description,omitempty"`
}

// IsSecret reports whether values of p must never be stored in clear.
func (p Param) IsSecret() bool { return p.Secret || p.Type == ParamSecret }

// Parse converts a raw binding to p's type: a string, a float64 or a bool.
// A value that does not parse, or an enum value outside its set, is an
// *Error with CodeParamType.
func (p Param) Parse(raw string) (any, error) {
	switch p.Type {
	case ParamNumber:
		f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil {
			return nil, Errorf(CodeParamType, "%q is not a number", raw)
		}
		return f, nil
	case ParamBool:
		b, err := strconv.ParseBool(strings.TrimSpace(raw))
		if err != nil {
			return nil, Errorf(CodeParamType, "%q is not true or false", raw)
		}
		return b, nil
	case ParamEnum:
		if !slices.Contains(p.Enum, raw) {
			return nil, Errorf(CodeParamType, "%q is not one of %s", raw, strings.Join(p.Enum, ", "))
		}
	case ParamList:
		if _, err := ListItems(raw); err != nil {
			return nil, err
		}
	}
	return raw, nil
}

// StepKind is how a step gets its result, a closed set.
type StepKind string

// Step kinds.
const (
	StepDeterministic StepKind = "deterministic" // render arguments and dispatch; no model call
	StepSlot          StepKind = "slot"          // a bounded prompt produces one value
	StepJudgment      StepKind = "judgment"      // a bounded prompt picks one of the declared options
)

// Limits on model-backed steps.
const (
	MaxSlotTokens     = 1024 // the largest max_tokens a slot or judgment step may ask for
	DefaultJudgeLimit = 16   // max_tokens of a judgment step that declares none
	MaxRetries        = 10   // the most retry(n) may ask for
)

// FailPolicy is what a step does when it fails, a closed set.
type FailPolicy string

// Fail policies, cheapest first.
const (
	FailRetry    FailPolicy = "retry"    // settle and try again, no model
	FailRepair   FailPolicy = "repair"   // ask the planner for a scoped one-step repair
	FailFallback FailPolicy = "fallback" // hand over to the full agent
)

// OnFail is a step's failure policy, written `retry(3)`, `repair` or
// `fallback`. The zero value means fallback.
type OnFail struct {
	Policy  FailPolicy
	Retries int
}

// Effective returns the policy that applies, FailFallback when unset.
func (o OnFail) Effective() FailPolicy {
	if o.Policy == "" {
		return FailFallback
	}
	return o.Policy
}

var retryPattern = regexp.MustCompile(`^retry\((\d+)\)$`)

// ParseOnFail parses the written form. Anything else is an *Error with
// CodeInvalid.
func ParseOnFail(s string) (OnFail, error) {
	switch s {
	case string(FailRepair):
		return OnFail{Policy: FailRepair}, nil
	case string(FailFallback):
		return OnFail{Policy: FailFallback}, nil
	}
	m := retryPattern.FindStringSubmatch(s)
	if m == nil {
		return OnFail{}, Errorf(CodeInvalid, "on_fail %q: want retry(n), repair or fallback", s)
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 1 || n > MaxRetries {
		return OnFail{}, Errorf(CodeInvalid, "on_fail %q: retry count must be 1 to %d", s, MaxRetries)
	}
	return OnFail{Policy: FailRetry, Retries: n}, nil
}

// String returns the written form; "" for the zero value.
func (o OnFail) String() string {
	if o.Policy == FailRetry {
		return fmt.Sprintf("retry(%d)", o.Retries)
	}
	return string(o.Policy)
}

// IsZero reports whether no policy was written, so YAML omits it.
func (o OnFail) IsZero() bool { return o.Policy == "" }

// MarshalYAML writes the written form.
func (o OnFail) MarshalYAML() (any, error) { return o.String(), nil }

// UnmarshalYAML reads the written form; errors carry the line.
func (o *OnFail) UnmarshalYAML(node ast.Node) error {
	s, ok := node.(*ast.StringNode)
	if !ok {
		return yamlError(node, Errorf(CodeInvalid, "on_fail: want retry(n), repair or fallback"))
	}
	parsed, err := ParseOnFail(s.Value)
	if err != nil {
		return yamlError(node, err)
	}
	*o = parsed
	return nil
}

// Step is one node of the playbook DAG.
type Step struct {
	ID     string         `yaml:"id"`
	Kind   StepKind       `yaml:"kind"`
	Needs  []string       `yaml:"needs,omitempty"`
	Tool   string         `yaml:"tool,omitempty"`   // a browser action or an MCP tool name
	Target *Target        `yaml:"target,omitempty"` // the page control a browser action acts on
	Args   map[string]any `yaml:"args,omitempty"`   // tool arguments; strings may hold templates
	Expect []Expect       `yaml:"expect,omitempty"`
	// Outputs are values the step's result hands to later steps.
	Outputs map[string]Output `yaml:"outputs,omitempty"`
	OnFail  OnFail            `yaml:"on_fail,omitempty"`
	// Prompt, Options and MaxTokens belong to slot and judgment steps. A
	// judgment step whose target is a pick with no rules chooses among
	// the keys of the records it names, read from the page at replay: its
	// options are those, never a list frozen when it was learned.
	Prompt    string   `yaml:"prompt,omitempty"`
	Options   []string `yaml:"options,omitempty"`
	MaxTokens int      `yaml:"max_tokens,omitempty"`
	// Dialogs are the questions (confirm, prompt) the page asked during
	// the step's action when it was learned, each dismissed as the
	// actuator dismisses them. A replay whose step is asked one more
	// stops (CodeDialog): dismissing it chose a branch the learning run
	// never took (a "Save before closing?" declined discards).
	Dialogs []string `yaml:"dialogs,omitempty"`
	// Each names a list parameter: the step runs once per item, in the
	// list's order, its {{name}} standing for that item (a box ticked
	// for each topping the task lists).
	Each string `yaml:"each,omitempty"`
	// Except names a list parameter: the step is left out when its
	// target's name is one of the list's items (a box ticked by default
	// that the session unticked stays ticked when the list holds it).
	Except string `yaml:"except,omitempty"`
}

// Questions are the kinds of the dialogs among reports (as
// BrowserAction.Dialogs words them, `confirm "Delete it?" dismissed`)
// that asked something and were dismissed: confirm, prompt, and a
// beforeunload that kept the page. An alert only informs.
func Questions(reports []string) []string {
	var out []string
	for _, r := range reports {
		kind, _, _ := strings.Cut(r, " ")
		if kind != "alert" && strings.HasSuffix(r, " dismissed") {
			out = append(out, kind)
		}
	}
	return out
}

// Secrets returns the secret parameters among params, name to value.
func (p *Playbook) Secrets(params map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range params {
		if decl, ok := p.Params[k]; ok && decl.IsSecret() {
			out[k] = v
		}
	}
	return out
}

// Choose checks a judgment answer against the options it was asked to
// choose among (the step's, or the records read at replay). An answer
// outside them is an *Error with CodeOutOfSet: never an improvised branch.
func (s *Step) Choose(answer string, options []string) (string, error) {
	if slices.Contains(options, answer) {
		return answer, nil
	}
	// An answer that differs from one option only in case, spacing or the
	// quotes and punctuation around it ("**billing.**") is that option;
	// one that two options would fit is none of them.
	var fits []string
	for _, o := range options {
		if loose(o) != "" && loose(o) == loose(answer) {
			fits = append(fits, o)
		}
	}
	if len(fits) != 1 {
		return "", Errorf(CodeOutOfSet, "step %s: judgment %q is not one of %s", s.ID, answer, ClipList(options, 10))
	}
	return fits[0], nil
}

// answerWrapping are the characters a model puts around an answer:
// quotes, emphasis, brackets and the sentence's end, never a character
// an option may end in and mean something by ("C++", "C#").
const answerWrapping = "\"'`*_.,;:!?()[]“”‘’«»"

// loose is an answer as Choose compares it: lower case, single-spaced,
// without the punctuation and quotes around it.
func loose(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(answerWrapping, r) })
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// ChoosesRecords reports whether s is a judgment among the records its
// target picks on the page at replay.
func (s *Step) ChoosesRecords() bool {
	return s.Kind == StepJudgment && s.Target != nil && s.Target.Pick != nil
}

// Bind parses raw parameter values against the declarations. It returns
// an *Error: CodeUnknownParam for an undeclared name, CodeMissingParam for
// a required parameter with no value, CodeParamType for a value of the
// wrong type, CodeInvalidParam for one that would reach outside a path
// segment it fills (segment.go). Names are checked in sorted order, so the error is stable.
func (p *Playbook) Bind(raw map[string]string) (Bindings, error) {
	for _, name := range sortedKeys(raw) {
		if _, ok := p.Params[name]; !ok {
			return Bindings{}, Errorf(CodeUnknownParam, "playbook %s has no parameter %q (declared: %s)", p.Name, name, strings.Join(sortedKeys(p.Params), ", "))
		}
	}
	b := Bindings{Params: map[string]any{}, Steps: map[string]string{}, Outputs: map[string]any{}}
	for _, name := range sortedKeys(p.Params) {
		decl := p.Params[name]
		v, ok := raw[name]
		if !ok {
			if decl.Required {
				return Bindings{}, Errorf(CodeMissingParam, "playbook %s needs parameter %q (%s)", p.Name, name, decl.Type)
			}
			continue
		}
		if decl.Required && strings.TrimSpace(v) == "" {
			return Bindings{}, Errorf(CodeMissingParam, "playbook %s needs parameter %q (%s), given empty: the run used a value there", p.Name, name, decl.Type)
		}
		if !decl.IsSecret() {
			if err := CheckParamValue(name, v); err != nil {
				return Bindings{}, err
			}
		}
		parsed, err := decl.Parse(v)
		if err != nil {
			return Bindings{}, within("parameter "+name, err)
		}
		b.Params[name] = parsed
	}
	if err := p.checkSegments(b); err != nil {
		return Bindings{}, err
	}
	if err := p.checkConversions(b); err != nil {
		return Bindings{}, err
	}
	return b, nil
}

// checkConversions converts each parameter value the playbook uses
// converted ({{place|ordinal}}, {{date|date_mdy}}) before any step runs:
// a value a conversion cannot read ("three" for a place) is CodeParamType
// now, not a stop after the steps before its use have acted.
func (p *Playbook) checkConversions(b Bindings) error {
	doc, err := json.Marshal([]any{p.Steps, p.Verify})
	if err != nil {
		return nil // unmarshalable steps are refused when they are rendered
	}
	for _, m := range refPattern.FindAllString(string(doc), -1) {
		refs, _ := ParseRefs(m)
		if len(refs) != 1 || refs[0].Param == "" || refs[0].Conv == "" {
			continue
		}
		v, ok := b.Params[refs[0].Param]
		if !ok || !isScalar(v) {
			continue // a list's items are converted one by one, when used
		}
		if _, err := refs[0].Conv.Apply(scalarText(v)); err != nil {
			return Errorf(CodeParamType, "parameter %s: %s", refs[0].Param, AsError(err).Message)
		}
	}
	return nil
}

// CheckParamValue refuses a value that holds a template's braces: typed
// into a page it would read as a reference ("{{password}}" as a vendor's
// name is where a secret is typed), and a check rendered from it would
// not say what was typed. An *Error with CodeParamType. A secret's value
// is never templated and may hold anything.
func CheckParamValue(name, v string) error {
	if strings.Contains(v, "{{") || strings.Contains(v, "}}") {
		return Errorf(CodeParamType, "parameter %s: %q holds {{ or }}, which a playbook reads as a template: give the value without them", name, v)
	}
	return nil
}

// Order returns the steps in a topological order of their needs, earlier
// declarations first among steps that are ready together. A cycle or an
// unknown need is an *Error with CodeInvalid.
func (p *Playbook) Order() ([]*Step, error) {
	index := make(map[string]int, len(p.Steps))
	for i := range p.Steps {
		index[p.Steps[i].ID] = i
	}
	indegree := make([]int, len(p.Steps))
	dependents := make([][]int, len(p.Steps))
	for i, s := range p.Steps {
		for _, n := range s.Needs {
			j, ok := index[n]
			if !ok {
				return nil, Errorf(CodeInvalid, "step %s needs unknown step %q", s.ID, n)
			}
			indegree[i]++
			dependents[j] = append(dependents[j], i)
		}
	}
	var order []*Step
	done := make([]bool, len(p.Steps))
	for len(order) < len(p.Steps) {
		next := -1
		for i := range p.Steps {
			if !done[i] && indegree[i] == 0 {
				next = i
				break
			}
		}
		if next < 0 {
			return nil, Errorf(CodeInvalid, "steps form a cycle: %s", strings.Join(p.cycle(), " -> "))
		}
		done[next] = true
		order = append(order, &p.Steps[next])
		for _, d := range dependents[next] {
			indegree[d]--
		}
	}
	return order, nil
}

// cycle returns one dependency cycle as step ids, first id repeated last,
// or nil when there is none.
func (p *Playbook) cycle() []string {
	index := make(map[string]int, len(p.Steps))
	for i := range p.Steps {
		index[p.Steps[i].ID] = i
	}
	const (
		unvisited = iota
		onPath
		finished
	)
	state := make([]int, len(p.Steps))
	var path []string
	var found []string
	var visit func(i int) bool
	visit = func(i int) bool {
		state[i] = onPath
		path = append(path, p.Steps[i].ID)
		for _, n := range p.Steps[i].Needs {
			j, ok := index[n]
			if !ok {
				continue
			}
			if state[j] == onPath {
				start := slices.Index(path, n)
				found = append(slices.Clone(path[start:]), n)
				return true
			}
			if state[j] == unvisited && visit(j) {
				return true
			}
		}
		path = path[:len(path)-1]
		state[i] = finished
		return false
	}
	for i := range p.Steps {
		if state[i] == unvisited && visit(i) {
			return found
		}
	}
	return nil
}

// Step returns the step with the given id, or nil.
func (p *Playbook) Step(id string) *Step {
	for i := range p.Steps {
		if p.Steps[i].ID == id {
			return &p.Steps[i]
		}
	}
	return nil
}

// Expand returns order with each step that runs once per item of a list
// parameter (Each) written out once per item of its value in params, in
// the list's order: id-1, id-2, ..., its {{name}} replaced by the item,
// and without the steps whose target the list they except names (Except).
// Other steps are returned as they are.
func Expand(order []*Step, params map[string]string) ([]*Step, error) {
	var out []*Step
	for _, s := range order {
		if s.Except != "" {
			items, err := ListItems(params[s.Except])
			if err != nil {
				return nil, within("parameter "+s.Except, err)
			}
			if s.Target != nil && slices.Contains(items, s.Target.Name) {
				continue
			}
		}
		if s.Each == "" {
			out = append(out, s)
			continue
		}
		items, err := ListItems(params[s.Each])
		if err != nil {
			return nil, within("parameter "+s.Each, err)
		}
		ref := "{{" + s.Each + "}}"
		for k, item := range items {
			c := *s
			c.ID, c.Each = fmt.Sprintf("%s-%d", s.ID, k+1), ""
			args, _ := replaceIn(s.Args, ref, item).(map[string]any)
			c.Args = args
			if s.Target != nil {
				t := *s.Target
				t.ID, t.Name, t.Near = strings.ReplaceAll(t.ID, ref, item), strings.ReplaceAll(t.Name, ref, item), strings.ReplaceAll(t.Near, ref, item)
				c.Target = &t
			}
			out = append(out, &c)
		}
	}
	return out, nil
}

// replaceIn returns v with old replaced by new in every string it holds.
func replaceIn(v any, old, new string) any {
	switch x := v.(type) {
	case string:
		return strings.ReplaceAll(x, old, new)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = replaceIn(e, old, new)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = replaceIn(e, old, new)
		}
		return out
	}
	return v
}
