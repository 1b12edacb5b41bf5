package schema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

// ExpectOp is one of the eleven primitives of the expect DSL.
type ExpectOp string

// The expect primitives, a closed set.
const (
	OpExitCode        ExpectOp = "exit_code"        // exit_code: 0
	OpSelectorVisible ExpectOp = "selector_visible" // selector_visible: 'button "Save"'
	OpSelectorAbsent  ExpectOp = "selector_absent"  // selector_absent: k3f9q2
	OpInputValue      ExpectOp = "input_value"      // input_value: 'textbox "Email"', equals: a@b.c
	OpURLContains     ExpectOp = "url_contains"     // url_contains: /vendors/
	OpTextVisible     ExpectOp = "text_visible"     // text_visible: Vendor saved
	OpJSONPathExists  ExpectOp = "json_path_exists" // json_path_exists: $.items[0]
	OpJSONPathEquals  ExpectOp = "json_path_equals" // json_path_equals: $.status, equals: ok
	OpOutputMatches   ExpectOp = "output_matches"   // output_matches: ^report-\d+\.csv$
	OpNonempty        ExpectOp = "nonempty"         // nonempty: $.results
	OpCheckedExactly  ExpectOp = "checked_exactly"  // checked_exactly: Basil, Tuna (the page's checked boxes, no more, no fewer)
)

// ExpectOps returns the eleven primitives in a fixed order.
func ExpectOps() []ExpectOp {
	return []ExpectOp{OpExitCode, OpSelectorVisible, OpSelectorAbsent, OpInputValue, OpURLContains,
		OpTextVisible, OpJSONPathExists, OpJSONPathEquals, OpOutputMatches, OpNonempty, OpCheckedExactly}
}

// equalsKey is the one modifier key; only input_value and json_path_equals
// take it, and both require it.
const equalsKey = "equals"

func (op ExpectOp) takesEquals() bool { return op == OpInputValue || op == OpJSONPathEquals }

// Expect is one assertion. Written as YAML or JSON it is an object with
// exactly one primitive key (plus `equals` for input_value and
// json_path_equals); anything else is rejected when decoding.
type Expect struct {
	Op    ExpectOp `msgpack:"op"`
	Arg   string   `msgpack:"arg,omitempty"`   // selector, substring, JSON path or pattern
	Value RawJSON  `msgpack:"value,omitempty"` // exit_code's code, or the canonical JSON of equals
}

// ParseExpect builds an Expect from a decoded object. Unknown keys, zero or
// several primitives, a misplaced or missing `equals`, and arguments of the
// wrong type or syntax are an *Error with CodeInvalid.
func ParseExpect(obj map[string]any) (Expect, error) {
	var e Expect
	var unknown []string
	for _, k := range sortedKeys(obj) {
		if k == equalsKey {
			continue
		}
		op := ExpectOp(k)
		if !op.known() {
			unknown = append(unknown, k)
			continue
		}
		if e.Op != "" {
			return Expect{}, Errorf(CodeInvalid, "expect has two primitives, %s and %s: write one assertion per item", e.Op, op)
		}
		e.Op = op
	}
	if len(unknown) > 0 {
		return Expect{}, Errorf(CodeInvalid, "expect: unknown key %s (primitives: %s)", strings.Join(unknown, ", "), opList())
	}
	if e.Op == "" {
		return Expect{}, Errorf(CodeInvalid, "expect has no primitive (want one of: %s)", opList())
	}
	equals, hasEquals := obj[equalsKey]
	if hasEquals != e.Op.takesEquals() {
		if hasEquals {
			return Expect{}, Errorf(CodeInvalid, "%s does not take equals", e.Op)
		}
		return Expect{}, Errorf(CodeInvalid, "%s needs equals", e.Op)
	}
	arg := obj[string(e.Op)]
	switch e.Op {
	case OpExitCode:
		code, ok := asInt(arg)
		if !ok {
			return Expect{}, Errorf(CodeInvalid, "exit_code: want an integer, got %s", describe(arg))
		}
		e.Value = RawJSON(strconv.FormatInt(code, 10))
	case OpInputValue:
		s, ok := asScalarText(equals)
		if !ok {
			return Expect{}, Errorf(CodeInvalid, "input_value: equals must be a string, got %s", describe(equals))
		}
		e.Value, _ = json.Marshal(s)
	case OpJSONPathEquals:
		b, err := json.Marshal(normalizeNumbers(equals))
		if err != nil {
			return Expect{}, Errorf(CodeInvalid, "json_path_equals: equals is not a JSON value: %v", err)
		}
		e.Value = b
	}
	if e.Op != OpExitCode {
		s, ok := arg.(string)
		if !ok {
			return Expect{}, Errorf(CodeInvalid, "%s: want a string, got %s", e.Op, describe(arg))
		}
		e.Arg = s
	}
	return e, e.Validate()
}

func (op ExpectOp) known() bool {
	for _, o := range ExpectOps() {
		if o == op {
			return true
		}
	}
	return false
}

func opList() string {
	names := make([]string, 0, 10)
	for _, o := range ExpectOps() {
		names = append(names, string(o))
	}
	return strings.Join(names, ", ")
}

// Validate checks that e is well formed: a known primitive, the argument
// it needs, and valid selector, path or pattern syntax. Arguments that
// still hold template references are checked after rendering.
func (e Expect) Validate() error {
	if !e.Op.known() {
		return Errorf(CodeInvalid, "expect: unknown primitive %q", e.Op)
	}
	if e.Op == OpExitCode {
		if e.Arg != "" {
			return Errorf(CodeInvalid, "exit_code takes no argument")
		}
		if _, err := strconv.ParseInt(string(e.Value), 10, 64); err != nil {
			return Errorf(CodeInvalid, "exit_code: want an integer, got %q", e.Value)
		}
		return nil
	}
	if e.Arg == "" {
		return Errorf(CodeInvalid, "%s: empty argument", e.Op)
	}
	if e.Op.takesEquals() != (len(e.Value) > 0) {
		return Errorf(CodeInvalid, "%s: equals is required by input_value and json_path_equals and taken by nothing else", e.Op)
	}
	if len(e.Value) > 0 && !json.Valid(e.Value) {
		return Errorf(CodeInvalid, "%s: equals is not valid JSON", e.Op)
	}
	refs, err := e.Refs()
	if err != nil {
		return err
	}
	if len(refs) > 0 {
		return nil
	}
	switch e.Op {
	case OpSelectorVisible, OpSelectorAbsent, OpInputValue:
		_, err = ParseSelector(e.Arg)
	case OpJSONPathExists, OpJSONPathEquals, OpNonempty:
		_, err = ParseJSONPath(e.Arg)
	case OpOutputMatches:
		if _, rerr := regexp.Compile(e.Arg); rerr != nil {
			err = Errorf(CodeInvalid, "output_matches: %v", rerr)
		}
	case OpCheckedExactly:
		_, err = ListItems(e.Arg)
	}
	return err
}

// Refs returns the template references in e's argument and value.
func (e Expect) Refs() ([]Ref, error) {
	refs, err := ParseRefs(e.Arg)
	if err != nil || len(e.Value) == 0 {
		return refs, err
	}
	v, err := decodeJSON(e.Value)
	if err != nil {
		return nil, err
	}
	more, err := RefsIn(v)
	return append(refs, more...), err
}

// Render returns e with every template reference replaced by its binding,
// validated again now that the argument is concrete.
func (e Expect) Render(b Bindings) (Expect, error) {
	arg, err := RenderString(e.Arg, b)
	if err != nil {
		return Expect{}, err
	}
	out := Expect{Op: e.Op, Arg: arg, Value: e.Value}
	if len(e.Value) > 0 && e.Op != OpExitCode {
		v, err := decodeJSON(e.Value)
		if err != nil {
			return Expect{}, err
		}
		if v, err = RenderValue(v, b); err != nil {
			return Expect{}, err
		}
		if e.Op == OpInputValue {
			v = scalarText(v)
		}
		if out.Value, err = canonicalEncode(v); err != nil {
			return Expect{}, err
		}
	}
	return out, out.Validate()
}

// written returns e in its written form: the primitive first, then equals.
func (e Expect) written() yaml.MapSlice {
	if e.Op == OpExitCode {
		code, _ := strconv.ParseInt(string(e.Value), 10, 64)
		return yaml.MapSlice{{Key: string(e.Op), Value: code}}
	}
	obj := yaml.MapSlice{{Key: string(e.Op), Value: e.Arg}}
	if len(e.Value) > 0 {
		v, _ := decodeJSON(e.Value)
		obj = append(obj, yaml.MapItem{Key: equalsKey, Value: v})
	}
	return obj
}

// String returns a one-line form for humans, e.g. `text_visible "Saved"`.
func (e Expect) String() string {
	if e.Op == OpExitCode {
		return fmt.Sprintf("exit_code %s", e.Value)
	}
	s := fmt.Sprintf("%s %q", e.Op, e.Arg)
	if len(e.Value) > 0 {
		s += " equals " + string(e.Value)
	}
	return s
}

// MarshalJSON writes e in its written form, e.g. {"text_visible":"Saved"}.
func (e Expect) MarshalJSON() ([]byte, error) {
	var b []byte
	for i, item := range e.written() {
		sep := byte(',')
		if i == 0 {
			sep = '{'
		}
		k, _ := json.Marshal(item.Key)
		v, err := json.Marshal(item.Value)
		if err != nil {
			return nil, err
		}
		b = append(append(append(append(b, sep), k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads the written form strictly; see ParseExpect.
func (e *Expect) UnmarshalJSON(data []byte) error {
	v, err := decodeJSON(data)
	if err != nil {
		return err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return Errorf(CodeInvalid, "expect: want an object, got %s", describe(v))
	}
	parsed, err := ParseExpect(obj)
	if err != nil {
		return err
	}
	*e = parsed
	return nil
}

// MarshalYAML writes e in its written form.
func (e Expect) MarshalYAML() (any, error) { return e.written(), nil }

// UnmarshalYAML reads the written form strictly; errors carry the line.
func (e *Expect) UnmarshalYAML(node ast.Node) error {
	var v any
	if err := yaml.NodeToValue(node, &v); err != nil {
		return err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return yamlError(node, Errorf(CodeInvalid, "expect: want a mapping like {text_visible: Saved}, got %s", describe(v)))
	}
	parsed, err := ParseExpect(obj)
	if err != nil {
		return yamlError(node, err)
	}
	*e = parsed
	return nil
}

// yamlError attaches node's position to err so that the YAML importer
// reports its line.
func yamlError(node ast.Node, err error) error {
	return &yaml.SyntaxError{Message: messageOf(err), Token: node.GetToken()}
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case uint64:
		if x <= 1<<63-1 {
			return int64(x), true
		}
	case json.Number:
		n, err := x.Int64()
		return n, err == nil
	case float64:
		if x == float64(int64(x)) {
			return int64(x), true
		}
	}
	return 0, false
}

// asScalarText accepts a string or a number written without quotes.
func asScalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number, int, int64, uint64, float64:
		return string(normalizeNumbers(x).(json.Number)), true
	}
	return "", false
}

func describe(v any) string {
	switch v.(type) {
	case nil:
		return "nothing"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	}
	return "a number"
}
