package distiller

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

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
	slices.SortFunc(b.names, b.longestFirst)
	return b
}

// longestFirst orders parameter names by their values' length, longest
// first, then by name.
func (b *binder) longestFirst(x, y string) int {
	if d := len(b.values[y]) - len(b.values[x]); d != 0 {
		return d
	}
	return strings.Compare(x, y)
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
// characters that stands in s as a whole token (see replaceTokens): a
// path segment or a query value of a URL, a word of a text. A value
// inside a constant is left alone: with username=admin, /wp-admin/ stays
// what it is, and another username still finds it.
func (b *binder) within(s string) string {
	for _, k := range b.names {
		v := b.values[k]
		if len(v) < minLiteral {
			continue
		}
		s = replaceTokens(s, v, "{{"+k+"}}")
		// Escaped in an address (Oak+desk, Oak%20desk): templated
		// escaped the same way.
		for _, c := range []schema.Conversion{schema.ConvQuery, schema.ConvPath} {
			if e, _ := c.Apply(v); e != v {
				s = replaceTokens(s, e, "{{"+k+"|"+string(c)+"}}")
			}
		}
	}
	return s
}

// converted returns {{name|conversion}} when v is a parameter's value
// in the form a control took it in (09/10/2012 typed as 2012-09-10),
// by exactly one conversion of one parameter. When several read it
// alike (10/10/2012 is the same month first and day first), the form
// the task writes its values in is unknown: why says so and nothing is
// bound.
func (b *binder) converted(v string) (tmpl, why string) {
	var found []string
	for _, k := range b.names {
		for _, c := range schema.Conversions {
			if out, err := c.Apply(b.values[k]); err == nil && out == v && b.values[k] != v && c.OwnForm(b.values[k]) {
				found = append(found, k+"|"+string(c))
			}
		}
	}
	switch len(found) {
	case 0:
		return "", ""
	case 1:
		return "{{" + found[0] + "}}", ""
	}
	return "", fmt.Sprintf("%q is a task's value read %d ways (%s), which read other values differently: record with a value that only one reading gives (a date whose day is after the 12th)", v, len(found), strings.Join(found, ", "))
}

// template templates s: whole when it is a parameter's value, else the
// values it holds as whole names or tokens.
func (b *binder) template(s string) string {
	if t, ok := b.whole(s); ok {
		return t
	}
	return b.within(b.named(s))
}

// named templates a parameter's value where it stands as a control's
// whole quoted name on a snapshot line (radio "S4"), whatever its
// length: a whole name is found exactly, never inside longer text, so
// the minLiteral rule of within is not needed for it. A value the
// snapshot would have to escape is left alone.
func (b *binder) named(s string) string {
	for _, k := range b.names {
		v := b.values[k]
		if v == "" || strconv.Quote(v) != `"`+v+`"` {
			continue
		}
		s = strings.ReplaceAll(s, `"`+v+`"`, `"{{`+k+`}}"`)
	}
	return s
}

// replaceTokens replaces each occurrence of v in s that is a whole
// token: joined on neither side to a letter, a digit, '-', '_' or '@',
// nor to a '.' that joins one (a file name, a host name), nor inside a
// {{template}}.
func replaceTokens(s, v, repl string) string {
	var out strings.Builder
	i := 0
	for {
		j := strings.Index(s[i:], v)
		if j < 0 {
			out.WriteString(s[i:])
			return out.String()
		}
		j += i
		if end := j + len(v); tokenStart(s, j) && tokenEnd(s, end) {
			out.WriteString(s[i:j])
			out.WriteString(repl)
			i = end
			continue
		}
		_, size := utf8.DecodeRuneInString(s[j:])
		out.WriteString(s[i : j+size])
		i = j + size
	}
}

// joins reports whether r makes one token with what it touches.
func joins(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '@'
}

// tokenStart reports whether a token may start at s[at:].
func tokenStart(s string, at int) bool {
	if at == 0 {
		return true
	}
	r, size := utf8.DecodeLastRuneInString(s[:at])
	if joins(r) || r == '{' {
		return false
	}
	if r == '.' {
		before, _ := utf8.DecodeLastRuneInString(s[:at-size])
		return !joins(before)
	}
	return true
}

// tokenEnd reports whether a token may end where s[at:] begins.
func tokenEnd(s string, at int) bool {
	if at == len(s) {
		return true
	}
	r, size := utf8.DecodeRuneInString(s[at:])
	if joins(r) || r == '}' {
		return false
	}
	if r == '.' {
		after, _ := utf8.DecodeRuneInString(s[at+size:])
		return !joins(after) || extensionAt(s, at)
	}
	return true
}

// extension is a file name's extension: a dot, one to five letters or
// digits, then the end of the name.
var extension = regexp.MustCompile(`^\.[A-Za-z0-9]{1,5}($|[^A-Za-z0-9_@.-])`)

// extensionAt reports whether s[at:] is a file name's extension (alpha
// in notes/alpha.md is a whole token), outside a URL's host (acme in
// https://acme.com is not).
func extensionAt(s string, at int) bool {
	if i := strings.LastIndex(s[:at], "://"); i >= 0 && !strings.Contains(s[i+3:at], "/") {
		return false
	}
	return extension.MatchString(s[at:])
}

// fromTask reports whether v, which is no parameter's value, still comes
// from the task text: a value that varies with the task, undeclared.
func (b *binder) fromTask(v string) bool {
	return len(v) >= minLiteral && strings.Contains(b.task, v)
}

// intent is the task text with parameter values slotted out, whole
// words only.
func (b *binder) intent() string { return schema.SlotOut(b.task, b.values) }
