package distiller

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/rote-agent/rote/schema"
)

// The design's distiller decides which literals are parameters: a value
// the task's text holds as whole words, which the run passed on in a
// call, varies with the task. It becomes a parameter named after the
// argument that took it (a file's name inside a path is the name), with
// no flag needed; --param only names or overrides one. A value the tool
// itself offered (one of its argument's enum values: git_branch's mode
// "create") is the tool's, whatever the task says.

// inferred templates x, a call's argument under key that holds no
// declared parameter's value, when the task's text names it: the stem of
// a path's last segment (notes/alpha.md for "a note called alpha"), else
// the whole value. It reports whether it did.
func (d *distillation) inferred(key, x string) (string, bool) {
	if strings.Contains(x, "/") && !strings.Contains(x, "://") {
		// The file's stem, else its whole name: each must stand in the
		// path once (todo/todo.txt says todo twice: which one varies?).
		last := path.Base(x)
		for _, name := range []string{strings.TrimSuffix(last, path.Ext(last)), last} {
			if !strings.Contains(last, "{{") && d.b.inferable(name) && strings.Count(replaceTokens(x, name, "\x00"), "\x00") == 1 {
				d.b.infer(d, key, name)
				return d.b.within(x), true
			}
		}
	}
	if d.b.inferable(x) {
		return d.b.infer(d, key, x), true
	}
	if part := d.taskRun(x); part != "" {
		d.b.infer(d, key, part)
		return d.b.within(x), true
	}
	return x, false
}

// wordBound matches the words of a text, for taskRun.
var wordBound = regexp.MustCompile(`[\p{L}\p{N}_-]+`)

// taskRun is the longest run of the words of x, a prose value, that the
// task's text holds as whole words and that names something (two words
// or more, or one with a digit), and no path: "Alice joined on
// 2026-01-05" in the note a call wrote.
func (d *distillation) taskRun(x string) string {
	if len(x) > 4000 || !strings.ContainsAny(x, " \t\n") {
		return "" // prose only: a path's segments are inferred one by one
	}
	words := wordBound.FindAllStringIndex(x, 200)
	best := ""
	for i := range words {
		for j := len(words) - 1; j >= i; j-- {
			part := x[words[i][0]:words[j][1]]
			if len(part) <= len(best) || strings.ContainsAny(part, "/\\") || (j == i && !strings.ContainsFunc(part, unicode.IsDigit)) {
				continue
			}
			if d.b.inferable(part) {
				best = part
				break
			}
		}
	}
	return best
}

// inferable reports whether v may be inferred a parameter: the task's
// text holds it as whole words, and slotted out with the parameters it
// leaves at least two words of three letters or more, what the task is
// (a literal that is the task's own verb and noun, "Register vendor" of
// "Register vendor Acme", would leave an intent that matches anything).
func (b *binder) inferable(v string) bool {
	if len(v) < minLiteral || strings.Contains(v, "{{") || !b.inTask(v) {
		return false
	}
	values := maps.Clone(b.values)
	values["\x00"] = v
	rest := refsIn.ReplaceAllString(schema.SlotOut(b.task, values), " ")
	words := 0
	for _, w := range strings.FieldsFunc(rest, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len([]rune(w)) >= 3 {
			words++
		}
	}
	return words >= 2
}

// inTask reports whether the task's text holds v as whole words.
func (b *binder) inTask(v string) bool {
	return len(v) >= minLiteral && replaceTokens(b.task, v, "\x00") != b.task
}

// refsIn matches the references an intent holds.
var refsIn = regexp.MustCompile(`\{\{[^{}]*\}\}`)

// infer declares v a parameter named after key (a free name: entityName
// is entity_name, a second one path_2) and returns its reference.
func (b *binder) infer(d *distillation, key, v string) string {
	base := strings.Trim(paramChars.ReplaceAllString(camelBreak.ReplaceAllString(key, "${1}_${2}"), "_"), "_")
	base = strings.ToLower(base)
	if base == "" || base[0] >= '0' && base[0] <= '9' {
		base = "value"
	}
	name := base
	for n := 2; ; n++ {
		_, clear := b.values[name]
		_, secret := b.digests[name]
		if !clear && !secret {
			break
		}
		name = fmt.Sprintf("%s_%d", base, n)
	}
	b.values[name] = v
	b.names = append(b.names, name)
	slices.SortFunc(b.names, b.longestFirst)
	d.c.Playbook.Params[name] = schema.Param{Type: schema.ParamString, Required: true}
	if d.c.Inferred == nil {
		d.c.Inferred = map[string]string{}
	}
	d.c.Inferred[name] = v
	d.note("parameter %s=%q inferred: the task's text names it and the run passed it on (--param names or overrides it)", name, v)
	return "{{" + name + "}}"
}

var (
	camelBreak = regexp.MustCompile(`([a-z0-9])([A-Z])`)
	paramChars = regexp.MustCompile(`[^A-Za-z0-9_]+`)
)

// inEnum reports whether x is one of the values the tool's input schema
// offers for its argument key.
func (d *distillation) inEnum(tool, key, x string) bool {
	n := len(d.r.Inventories)
	if n == 0 || key == "" {
		return false
	}
	for _, t := range d.r.Inventories[n-1].Environment.Tools {
		if t.Name != tool {
			continue
		}
		var s struct {
			Properties map[string]struct {
				Enum  []any `json:"enum"`
				Items struct {
					Enum []any `json:"enum"`
				} `json:"items"`
			} `json:"properties"`
		}
		if json.Unmarshal(t.InputSchema, &s) != nil {
			return false
		}
		p := s.Properties[key]
		return slices.Contains(append(p.Enum, p.Items.Enum...), any(x))
	}
	return false
}

// handleWord is a word of a task that names one thing by its digits:
// JIRA-123, 2026-01-05, r17.
var handleWord = regexp.MustCompile(`[\p{L}\p{N}_-]*\p{N}[\p{L}\p{N}_-]*`)

// noteConstants says which words of the intent that name one thing by
// their digits stay in it as constants: no step passes them as the task
// spells them (feature/jira-123 for JIRA-123), so a task naming another
// would be done as this one.
func (d *distillation) noteConstants() {
	intent := refsIn.ReplaceAllString(d.c.Playbook.Intent, " ")
	for _, w := range handleWord.FindAllString(intent, -1) {
		if len(w) >= minLiteral && strings.ContainsFunc(w, unicode.IsLetter) {
			d.note("the task's %q stays a constant: no call passed it as the task spells it, so the playbook does this one whatever another task names there", w)
		}
	}
}
