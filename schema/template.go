package schema

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ref is one template reference: `{{name}}` names a parameter,
// `{{steps.ID}}` the value a slot or judgment step produced, and
// `{{steps.ID.NAME}}` an output of step ID's result.
type Ref struct {
	Param  string
	Step   string
	Output string
	// Conv converts a parameter's value into the form its use takes:
	// {{date|date_mdy}}.
	Conv Conversion
}

// String returns the reference as it is written inside the braces.
func (r Ref) String() string {
	switch {
	case r.Output != "":
		return "steps." + r.Step + "." + r.Output
	case r.Step != "":
		return "steps." + r.Step
	case r.Conv != "":
		return r.Param + "|" + string(r.Conv)
	}
	return r.Param
}

var (
	refPattern      = regexp.MustCompile(`\{\{\s*([^{}]*?)\s*\}\}`)
	paramRefPattern = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)(?:\s*\|\s*([a-z0-9_]+))?$`)
	stepRefPattern  = regexp.MustCompile(`^steps\.([a-z0-9][a-z0-9_-]*)(?:\.([a-z_][a-z0-9_]*))?$`)
)

// ParseRefs returns the references in s in order of appearance. A brace
// pair that is not a well-formed reference, or a stray "{{" or "}}", is an
// *Error with CodeInvalid.
func ParseRefs(s string) ([]Ref, error) {
	var refs []Ref
	for _, m := range refPattern.FindAllStringSubmatch(s, -1) {
		inner := m[1]
		switch {
		case stepRefPattern.MatchString(inner):
			m := stepRefPattern.FindStringSubmatch(inner)
			refs = append(refs, Ref{Step: m[1], Output: m[2]})
		case paramRefPattern.MatchString(inner):
			m := paramRefPattern.FindStringSubmatch(inner)
			r := Ref{Param: m[1]}
			if m[2] != "" {
				c, err := ParseConversion(m[2])
				if err != nil {
					return nil, Errorf(CodeInvalid, "template %q: {{%s}}: %s", s, inner, AsError(err).Message)
				}
				r.Conv = c
			}
			refs = append(refs, r)
		default:
			return nil, Errorf(CodeInvalid, "template %q: {{%s}} is neither a parameter name (with a |conversion), steps.<id> nor steps.<id>.<output>", s, inner)
		}
	}
	rest := refPattern.ReplaceAllString(s, "")
	if strings.Contains(rest, "{{") || strings.Contains(rest, "}}") {
		return nil, Errorf(CodeInvalid, "template %q: unbalanced {{ or }}", s)
	}
	return refs, nil
}

// RefsIn returns the references in every string inside v, a value made of
// maps, slices and scalars as YAML or JSON decoding produces.
func RefsIn(v any) ([]Ref, error) {
	var refs []Ref
	err := walkStrings(v, func(s string) error {
		r, err := ParseRefs(s)
		refs = append(refs, r...)
		return err
	})
	return refs, err
}

// walkStrings calls f on every string inside v, map entries in key
// order, and stops at the first error.
func walkStrings(v any, f func(string) error) error {
	switch x := v.(type) {
	case string:
		return f(x)
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if err := walkStrings(x[k], f); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := walkStrings(e, f); err != nil {
				return err
			}
		}
	}
	return nil
}

// Bindings are the values templates render from.
type Bindings struct {
	Params  map[string]any    // typed parameter values: string, float64 or bool
	Steps   map[string]string // outputs of slot and judgment steps, by step id
	Outputs map[string]any    // outputs of step results, by "<id>.<name>"
}

func (b Bindings) lookup(r Ref) (any, error) {
	if r.Output != "" {
		if v, ok := b.Outputs[r.Step+"."+r.Output]; ok {
			return v, nil
		}
		return nil, Errorf(CodeUnbound, "{{%s}} has no value: the step has not produced it", r)
	}
	if r.Step != "" {
		if v, ok := b.Steps[r.Step]; ok {
			return v, nil
		}
		return nil, Errorf(CodeUnbound, "{{steps.%s}} has no value: the step has not produced one", r.Step)
	}
	v, ok := b.Params[r.Param]
	switch {
	case !ok:
		return nil, Errorf(CodeUnbound, "{{%s}} has no binding", r.Param)
	case r.Conv != "":
		converted, err := r.Conv.Apply(scalarText(v))
		if err != nil {
			return nil, Errorf(CodeInvalid, "parameter %s: %s", r.Param, AsError(err).Message)
		}
		return converted, nil
	}
	return v, nil
}

// RenderString replaces every reference in s by its bound value's text.
// A reference without a binding is an *Error with CodeUnbound.
func RenderString(s string, b Bindings) (string, error) {
	if _, err := ParseRefs(s); err != nil {
		return "", err
	}
	var out strings.Builder
	var firstErr error
	last, path := 0, pathLike(s)
	for _, loc := range refPattern.FindAllStringIndex(s, -1) {
		out.WriteString(s[last:loc[0]])
		last = loc[1]
		m := s[loc[0]:loc[1]]
		refs, _ := ParseRefs(m)
		v, err := b.lookup(refs[0])
		if err == nil && path && inSegment(s, loc[0]) {
			err = checkSegment(refs[0], scalarText(v))
		}
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			out.WriteString(m)
			continue
		}
		out.WriteString(scalarText(v))
	}
	out.WriteString(s[last:])
	return out.String(), firstErr
}

// RenderValue renders every string inside v. A string that is exactly one
// reference becomes the bound value itself, keeping its type, so that
// `count: "{{n}}"` renders to a number when n is a number parameter.
func RenderValue(v any, b Bindings) (any, error) {
	switch x := v.(type) {
	case string:
		refs, err := ParseRefs(x)
		if err != nil {
			return nil, err
		}
		if len(refs) == 1 && refPattern.FindString(x) == x {
			return b.lookup(refs[0])
		}
		return RenderString(x, b)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := RenderValue(e, b)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := RenderValue(e, b)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

// scalarText formats a bound value for splicing into a string.
func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// SlotOut replaces, in text, every whole-word occurrence of a value of
// params with {{name}}, longest values first: "admin" in "administrator"
// stays. It is how a task's text becomes a templated intent, and how the
// matcher compares a task with one.
func SlotOut(text string, params map[string]string) string {
	names := make([]string, 0, len(params))
	for k, v := range params {
		if strings.TrimSpace(v) != "" {
			names = append(names, k)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := params[names[i]], params[names[j]]
		if len(a) != len(b) {
			return len(a) > len(b)
		}
		return names[i] < names[j]
	})
	for _, k := range names {
		text = outsideRefs(text, func(s string) string { return replaceWord(s, params[k], "{{"+k+"}}") })
	}
	return text
}

// outsideRefs applies f to the text between s's references, leaving
// the references as they are: a value that is also a slotted
// parameter's name ("person" after {{person}}) stays out of it.
func outsideRefs(s string, f func(string) string) string {
	var b strings.Builder
	last := 0
	for _, loc := range refPattern.FindAllStringIndex(s, -1) {
		b.WriteString(f(s[last:loc[0]]))
		b.WriteString(s[loc[0]:loc[1]])
		last = loc[1]
	}
	b.WriteString(f(s[last:]))
	return b.String()
}

// negation is a word that asks for the opposite of what follows it.
var negation = regexp.MustCompile(`(?i)\b(not|never|no|without|don't|doesn't|isn't|won't|cannot|can't)\b`)

// Negations counts the words of s that negate what they stand before:
// text with one may ask for the opposite of text without.
func Negations(s string) int { return len(negation.FindAllString(s, -1)) }

// ContainsWords reports whether v stands in s as whole words: no letter
// or digit touches it on either side.
func ContainsWords(s, v string) bool { return v != "" && replaceWord(s, v, "\x00") != s }

// replaceWord replaces the occurrences of v in s that no letter or digit
// touches on either side.
func replaceWord(s, v, with string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, v)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(v)
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if (i > 0 && isWordRune(before)) || (end < len(s) && isWordRune(after)) {
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		b.WriteString(s[:i])
		b.WriteString(with)
		s = s[end:]
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
