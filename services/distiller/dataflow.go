package distiller

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/records"
)

// A produced value is one a step's recorded result returned, which a
// later call passes on: the record id create_record returned, the ref a
// snapshot gave a form field. Replayed as a literal it would act on the
// recorded object; the distiller turns it into an output of the step
// that produced it, located in the new result at replay.

// producer is an emitted MCP step whose result later steps may use.
type producer struct {
	index int // into the playbook's steps
	what  string
	read  bool           // the tool only reads (readOnlyTool)
	args  map[string]any // the call's recorded arguments
	world schema.World
}

// notBoth refuses a call that passes a parameter's value which an
// earlier result also returned without having been given it, when that
// value looks like a handle a result issues (flow would bind it were it
// not the task's): the task's title "n-42" and the note n-42 a create
// call made. No replay could tell which of the two a new run means. A
// result that echoes what a call was passed (create_record(name)
// returning the name, a snapshot showing a typed value) leaves it the
// task's, unless the result holds it more often than calls passed it so
// far.
func (d *distillation) notBoth(what string, args map[string]any, producers []producer) error {
	for key, arg := range args {
		for _, s := range stringValues(arg) {
			for _, k := range d.b.names {
				v := d.b.values[k]
				if v == "" || s != v && (len(v) < minLiteral || !containsToken(s, v)) {
					continue
				}
				if _, _, id := d.producedID(v, producers); !isHandle(v) && !id && !(idKey.MatchString(key) && handlePattern.MatchString(v)) {
					continue
				}
				passed := 0
				for _, p := range producers {
					for _, a := range stringValues(p.args) {
						passed += len(tokenAt(a, v))
					}
					returned := len(tokenAt(p.world.Text, v))
					if _, ok := d.jsonOutput(p.world, v); ok && returned == 0 {
						returned = 1
					}
					if returned > passed {
						return schema.Errorf(schema.CodeAmbiguous, "%s passes %q, the task's %s, which %s also returned without being given it: a replay could not tell which of the two a new run means; record again with a %s that no result holds", what, v, k, p.what, k)
					}
				}
			}
		}
	}
	return nil
}

// handlePattern is a value that may be a handle a result issued: letters,
// digits, - and _ only, with at least one digit (r-17, e12, f2e36, 4711).
// Words and URLs are never taken for one.
var handlePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{2,}$`)

var digit = regexp.MustCompile(`[0-9]`)

func isHandle(s string) bool { return handlePattern.MatchString(s) && digit.MatchString(s) }

// idKey is a key whose value may be an id: an argument's number, or a
// result's field whose value a later call passes whatever it looks like
// (a slug such as north-star has no digit to tell it by).
var idKey = regexp.MustCompile(`(?i)(^|_)(id|ref|key|handle|uuid|slug|number|num)$|[a-z]Id$`)

// handleToken finds the handle-like runs inside a longer string.
var handleToken = regexp.MustCompile(`[A-Za-z0-9_-]+`)

// flow binds the produced values in args (already templated for
// parameters) to outputs of earlier steps, declaring those outputs.
func (d *distillation) flow(what string, args map[string]any, producers []producer) (map[string]any, error) {
	out := make(map[string]any, len(args))
	for k, v := range args {
		t, err := d.flowValue(what, k, v, producers)
		if err != nil {
			return nil, err
		}
		out[k] = t
	}
	return out, nil
}

func (d *distillation) flowValue(what, key string, v any, producers []producer) (any, error) {
	switch x := v.(type) {
	case string:
		if strings.Contains(x, "{{") || strings.HasPrefix(x, "secret:") {
			return x, nil
		}
		// Under an id-like key a word is a handle too (the item qgdqnchh a
		// create call named in its text).
		if isHandle(x) || idKey.MatchString(key) && handlePattern.MatchString(x) {
			ref, err := d.produced(what, x, producers)
			if err != nil || ref == "" {
				return x, err
			}
			return "{{" + ref + "}}", nil
		}
		if o, p, ok := d.producedID(x, producers); ok {
			return "{{" + d.declare(what, p, o, x) + "}}", nil
		}
		if strings.Contains(x, "://") {
			// A URL a structured result returned whole is that field.
			for i := len(producers) - 1; i >= 0; i-- {
				if o, ok := d.jsonOutput(producers[i].world, x); ok {
					return "{{" + d.declare(what, producers[i], o, x) + "}}", nil
				}
			}
		}
		// In a URL, only the path, query and fragment may carry a handle
		// (/records/r-17); scheme, host and port are constants.
		head, rest := "", x
		if i := strings.Index(x, "://"); i >= 0 {
			head, rest = x, ""
			if j := strings.IndexAny(x[i+3:], "/?#"); j >= 0 {
				head, rest = x[:i+3+j], x[i+3+j:]
			}
		}
		var firstErr error
		t := handleToken.ReplaceAllStringFunc(rest, func(tok string) string {
			if t, ok := d.b.whole(tok); ok && head == "" {
				return t // the task's value, whatever its length: "S4 radio"
			}
			var ref string
			var err error
			switch {
			case head != "" && !isHandle(tok):
				// A word in a URL is a produced value only as the whole
				// of an id-like field (a slug).
				o, p, ok := d.producedID(tok, producers)
				if !ok {
					return tok
				}
				ref = d.declare(what, p, o, tok)
			case !isHandle(tok):
				return tok
			case strings.ContainsAny(strings.ToLower(tok), "abcdefghijklmnopqrstuvwxyz"):
				ref, err = d.produced(what, tok, producers)
			case head != "":
				// A number in a URL's path is an id only when an
				// earlier result returned it as one.
				n, perr := strconv.ParseFloat(tok, 64)
				if perr != nil || strconv.FormatFloat(n, 'f', -1, 64) != tok {
					return tok
				}
				ref, err = d.producedNumber(what, n, producers, true)
			default:
				return tok
			}
			if err != nil && firstErr == nil {
				firstErr = err
			}
			if ref == "" {
				return tok
			}
			return "{{" + ref + "}}"
		})
		return head + t, firstErr
	case float64:
		if !idKey.MatchString(key) || x != math.Trunc(x) {
			return x, nil
		}
		ref, err := d.producedNumber(what, x, producers, false)
		if err != nil || ref == "" {
			return x, err
		}
		return "{{" + ref + "}}", nil
	case map[string]any:
		return d.flow(what, x, producers)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			t, err := d.flowValue(what, key, e, producers)
			if err != nil {
				return nil, err
			}
			out[i] = t
		}
		return out, nil
	}
	return v, nil
}

// produced returns the reference (steps.<id>.<name>) to an output that
// yields v, declaring it on the latest step whose result holds v, or ""
// when no earlier result holds it (a constant). A value that a result
// holds but no locator finds there exactly once cannot be bound safely:
// an *schema.Error refuses the distillation.
func (d *distillation) produced(what, v string, producers []producer) (string, error) {
	for i := len(producers) - 1; i >= 0; i-- {
		p := producers[i]
		if o, ok := d.jsonOutput(p.world, v); ok {
			return d.declare(what, p, o, v), nil
		}
		if !containsToken(p.world.Text, v) {
			continue
		}
		if isJSONText(p.world.Text) {
			// No JSON path reaches it as the one value of its place (it is
			// an item of a list of several): the text before it on its line
			// would find whatever item stands there at replay.
			return "", schema.Errorf(schema.CodeAmbiguous, "%s passes %q, which %s returned in JSON where no path reaches it exactly once (one item of several?): it cannot be found there again safely", what, v, p.what)
		}
		o, err := d.lineOutput(p.world, v)
		if err != nil {
			return "", schema.Errorf(schema.AsError(err).Code, "%s passes %q, which %s returned, but it cannot be found there again safely: %s", what, v, p.what, schema.AsError(err).Message)
		}
		return d.declare(what, p, o, v), nil
	}
	return "", nil
}

// isJSONText reports whether a result's text is itself a JSON object or
// array.
func isJSONText(text string) bool {
	text = strings.TrimSpace(text)
	return (strings.HasPrefix(text, "{") || strings.HasPrefix(text, "[")) && json.Valid([]byte(text))
}

// producedID finds v, a value no handle pattern recognises (a slug), as
// the whole value of an id-like field (idKey) of an earlier result: the
// latest such result, located by its JSON path.
func (d *distillation) producedID(v string, producers []producer) (schema.Output, producer, bool) {
	if strings.TrimSpace(v) == "" || strings.ContainsAny(v, " \n\t") {
		return schema.Output{}, producer{}, false
	}
	for i := len(producers) - 1; i >= 0; i-- {
		if o, ok := d.jsonOutput(producers[i].world, v); ok && idKey.MatchString(lastKey(o.JSON)) {
			return o, producers[i], true
		}
	}
	return schema.Output{}, producer{}, false
}

// producedNumber is produced for a number: only a structured field holds
// one recognisably; with idField, only an id-like one (idKey).
func (d *distillation) producedNumber(what string, v float64, producers []producer, idField bool) (string, error) {
	for i := len(producers) - 1; i >= 0; i-- {
		if o, ok := d.jsonOutput(producers[i].world, v); ok && (!idField || idKey.MatchString(lastKey(o.JSON))) {
			return d.declare(what, producers[i], o, fmt.Sprint(v)), nil
		}
	}
	return "", nil
}

// jsonOutput finds v among the leaves of a result's JSON document, on the
// shortest path that reaches it (through one-item lists only).
func (d *distillation) jsonOutput(w schema.World, v any) (schema.Output, bool) {
	doc, ok := schema.ResultDocument(w.Output)
	if !ok {
		return schema.Output{}, false
	}
	var paths []string
	var walk func(node any, path string)
	walk = func(node any, path string) {
		switch n := node.(type) {
		case map[string]any:
			for k, c := range n {
				if !outputKey.MatchString(k) {
					continue
				}
				walk(c, path+"."+k)
			}
		case []any:
			if len(n) == 1 {
				walk(n[0], path+"[0]")
			}
		default:
			if n == v {
				paths = append(paths, path)
			}
		}
	}
	walk(doc, "$")
	if len(paths) == 0 {
		return schema.Output{}, false
	}
	sort.Slice(paths, func(i, j int) bool {
		if len(paths[i]) != len(paths[j]) {
			return len(paths[i]) < len(paths[j])
		}
		return paths[i] < paths[j]
	})
	o := schema.Output{JSON: paths[0]}
	got, err := o.Locate(w, schema.Bindings{})
	return o, err == nil && got == v
}

// unnamedField reports whether line, a snapshot line's text before a
// control's ref, names a form field without a name of its own:
// `- spinbutton [ref=`, not `- textbox "Email" [ref=`.
func unnamedField(line string) bool {
	role, rest, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "- "), " ")
	return strings.HasPrefix(rest, "[ref=") && slices.Contains([]string{"textbox", "spinbutton", "combobox", "searchbox", "slider", "checkbox", "radio", "switch"}, role)
}

// outputKey is a JSON key a path may name with .key.
var outputKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// lineOutput locates v in a result's text by what precedes it on its
// line: the first line whose locator finds v and nothing else. A control
// a click toggles keeps the state its line showed.
func (d *distillation) lineOutput(w schema.World, v string) (schema.Output, error) {
	params := schema.Bindings{Params: map[string]any{}}
	for k, x := range d.b.values {
		params.Params[k] = x
	}
	token := tokenClass(v)
	var lastErr error = schema.Errorf(schema.CodeBindingNotFound, "no line holds it after some text that could find it")
	lines := strings.Split(w.Text, "\n")
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " \t")
		for _, at := range tokenAt(trimmed, v) {
			if at == 0 {
				continue
			}
			o := schema.Output{Line: d.b.within(d.b.named(trimmed[:at])), Token: token}
			if state, toggles := schema.ToggleState(trimmed); toggles {
				o.State = state
			}
			got, err := o.Locate(w, params)
			if err == nil && unnamedField(o.Line) {
				// A field with no name of its own is told by its visible
				// label even where it is the only one of its kind: a page
				// that gains another (an Age beside the Salary) must not
				// hand it this field's value.
				if label := schema.SiblingBefore(lines, i); label != "" && !strings.Contains(label, v) {
					labelled := o
					labelled.After = d.b.template(label)
					if g, lerr := labelled.Locate(w, params); lerr == nil {
						o, got = labelled, g
					}
				}
			}
			if ambiguous(err) {
				// Twins whose lines read alike (unnamed fields, one Add
				// button an item): the text just before this one, its
				// visible label, tells it.
				if label := schema.SiblingBefore(lines, i); label != "" && !strings.Contains(label, v) {
					o.After = d.b.template(label)
					got, err = o.Locate(w, params)
				}
			}
			if ambiguous(err) {
				// One button a row: the row the task names.
				if key, ok := d.b.whole(schema.RowKey(lines, i)); ok {
					o.Row = key
					got, err = o.Locate(w, params)
				}
			}
			if err == nil && got == v {
				if placed, ok, err := d.placeOutput(w, i, trimmed[:at], o); ok || err != nil {
					return placed, err
				}
				if set, k, among := snapshotRecords(w.Text, i); among && !templated(o.Line+o.After+o.Row) {
					// No parameter is in the line that finds it: a record chosen once.
					return schema.Output{}, schema.Errorf(schema.CodeUnbound, "it is the control of %q, one of %d records (%s), and no parameter names it: replayed by its line it would act on that record whatever the list holds then (record through rote mcp browser, whose replays choose a record by the rule the task states)",
						set.Records[k].Key, len(set.Records), keysOf(set.Records))
				}
				return o, nil
			}
			if err != nil {
				lastErr = err
			}
		}
	}
	return schema.Output{}, lastErr
}

// placeOutput locates the value on line i of a snapshot by its place,
// when a parameter states that place and the line's own locator o holds
// no parameter: the control of the third result is the third's whatever
// its title, and found by its title it would be the same record on
// every page. before is the text before the value on its line.
func (d *distillation) placeOutput(w schema.World, i int, before string, o schema.Output) (schema.Output, bool, error) {
	if templated(o.Line + o.After + o.Row) {
		return schema.Output{}, false, nil
	}
	nodes, lines := schema.SnapshotNodes(w.Text)
	at := slices.Index(lines, i)
	if at < 0 {
		return schema.Output{}, false, nil
	}
	set, k, ok := records.Places(nodes, at)
	if !ok {
		return schema.Output{}, false, nil
	}
	what := fmt.Sprintf("the snapshot's %s %q", nodes[at].Role, nodes[at].Name)
	r, placed, err := d.placeRule(what, set, k)
	if err != nil || !placed {
		return schema.Output{}, false, err
	}
	open := strings.LastIndex(before, "[")
	if open < 0 {
		return schema.Output{}, false, nil // a value no mark like [ref= stands before
	}
	mark := before[open:]
	d.placed = append(d.placed, what)
	return schema.Output{Place: &schema.Placing{Role: nodes[at].Role, Among: set.Among, Within: set.Within, Name: set.Pattern, Shapes: set.Shapes, Nth: r.Value, Mark: mark},
		Token: o.Token, State: o.State}, true, nil
}

func ambiguous(err error) bool {
	return err != nil && schema.AsError(err).Code == schema.CodeAmbiguous
}

// templated reports whether s holds a parameter reference.
func templated(s string) bool {
	refs, _ := schema.ParseRefs(s)
	return len(refs) > 0
}

// declare adds o as an output of p's step, unless the step already has
// one with the same locator, and returns its reference.
func (d *distillation) declare(what string, p producer, o schema.Output, v string) string {
	ref, added := d.output(p, o)
	if !added {
		d.note("%s passes %q from %s's result: bound to {{%s}}", what, schema.Clip(v, 60), p.what, ref)
		return ref
	}
	d.flows = append(d.flows, flowValue{value: v, ref: ref})
	d.note("%s passes %q from %s's result: bound to {{%s}}, found at replay by %s", what, schema.Clip(v, 60), p.what, ref, o)
	return ref
}

// output declares o on p's step, unless the step has one with the same
// locator, and returns its reference and whether it was added.
func (d *distillation) output(p producer, o schema.Output) (string, bool) {
	s := &d.c.Playbook.Steps[p.index]
	for name, have := range s.Outputs {
		if reflect.DeepEqual(have, o) {
			return "steps." + s.ID + "." + name, false
		}
	}
	if s.Outputs == nil {
		s.Outputs = map[string]schema.Output{}
	}
	base := outputName(o)
	name := base
	for n := 2; ; n++ {
		if _, taken := s.Outputs[name]; !taken {
			break
		}
		name = fmt.Sprintf("%s_%d", base, n)
	}
	s.Outputs[name] = o
	return "steps." + s.ID + "." + name, true
}

// flowValue is one produced value and the reference that replaced it.
type flowValue struct{ value, ref string }

var quotedName = regexp.MustCompile(`"([^"]+)"`)

// lastKey is the last key of a JSON path, without a trailing [0].
func lastKey(path string) string {
	return strings.TrimSuffix(path[strings.LastIndex(path, ".")+1:], "[0]")
}

// outputName names an output after what locates it: the last key of a
// JSON path, "item" or a list's field for a pick, "text" for a whole
// text, the quoted name on a snapshot line, else "value".
func outputName(o schema.Output) string {
	var name string
	switch {
	case o.Text:
		name = "text"
	case o.Pick != nil:
		name = cmp.Or(o.Pick.Field, "item")
	case o.JSON != "":
		name = lastKey(o.JSON)
	default:
		if m := quotedName.FindAllStringSubmatch(o.Line, -1); m != nil {
			name = m[len(m)-1][1]
		} else if o.After != "" {
			name = o.After // an unnamed control's label
		}
	}
	name = strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(name), "_"), "_")
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		name = "value"
	}
	if len(name) > 40 {
		name = strings.TrimRight(name[:40], "_")
	}
	return name
}

// tokenClass is the character class of v's characters: a-z, A-Z, 0-9,
// and each of - and _ it holds.
func tokenClass(v string) string {
	var b strings.Builder
	b.WriteString("[")
	if strings.ContainsAny(v, "abcdefghijklmnopqrstuvwxyz") {
		b.WriteString("a-z")
	}
	if strings.ContainsAny(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		b.WriteString("A-Z")
	}
	if strings.ContainsAny(v, "0123456789") {
		b.WriteString("0-9")
	}
	if strings.Contains(v, "_") {
		b.WriteString("_")
	}
	if strings.Contains(v, "-") {
		b.WriteString("-")
	}
	b.WriteString("]")
	return b.String()
}

// tokenAt returns the offsets where v stands in s as a whole token: no
// letter, digit, - or _ touches it.
func tokenAt(s, v string) []int {
	var out []int
	for i := 0; ; {
		j := strings.Index(s[i:], v)
		if j < 0 {
			return out
		}
		at := i + j
		end := at + len(v)
		if (at == 0 || !isTokenByte(s[at-1])) && (end == len(s) || !isTokenByte(s[end])) {
			out = append(out, at)
		}
		i = at + 1
	}
}

func containsToken(s, v string) bool { return len(tokenAt(s, v)) > 0 }

func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}
