package distiller

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/rote-agent/rote/schema"
)

// Per-step checks of an MCP step come from what its recorded result
// showed right after the call, the way a browser step's expect comes from
// the page it left: the page a browser server says it is on, and the
// fields of a structured result that echo the task's values. At replay a
// step whose result shows something else stops there.

// pageLine is a browser server's report of the page a call left:
// @playwright/mcp writes "- Page URL: …" and "- Page Title: …", rote mcp
// browser "page: …" and "title: …".
var pageLine = regexp.MustCompile(`(?m)^(?:- )?(Page URL|Page Title|page|title): (.+)$`)

// checks returns the assertions a step's recorded result supports.
func (d *distillation) checks(c *schema.ToolCall) []schema.Expect {
	if c.BlobRef != "" || c.Error != nil {
		return nil
	}
	w := schema.ToolResultWorld(c.Result)
	var out []schema.Expect
	for _, at := range pageLine.FindAllStringSubmatchIndex(w.Text, -1) {
		if d.afterPlace(fmt.Sprintf("#%d %s", c.Seq, c.Tool)) {
			break
		}
		label, value := w.Text[at[2]:at[3]], strings.TrimSpace(w.Text[at[4]:at[5]])
		if d.holdsPicked(value) {
			d.note("#%d %s: its %s %q shows the record a pick chose, which may be another at replay: not checked", c.Seq, c.Tool, label, value)
			continue
		}
		t := d.templateText(value)
		if label == "Page URL" || label == "page" {
			if !stableURL(t) {
				continue
			}
		} else if digit.MatchString(t) {
			continue // a title that counts something changes with the data
		}
		// The whole line as it stands (a trailing space or \r included):
		// text_visible finds a substring, and a page at /vendors/purge
		// must not pass for /vendors.
		line := w.Text[at[0]:at[4]] + d.templateText(w.Text[at[4]:at[5]])
		if at[0] > 0 && w.Text[at[0]-1] == '\n' {
			line = "\n" + line
		}
		if at[1] < len(w.Text) && w.Text[at[1]] == '\n' {
			line += "\n"
		}
		out = append(out, schema.Expect{Op: schema.OpTextVisible, Arg: line})
	}
	if doc, ok := schema.ResultDocument(c.Result); ok && hasStructured(c.Result) {
		out = append(out, d.echoes(doc)...)
	}
	return out
}

// stableURL reports whether a templated URL's path and query hold
// nothing that varies but parameters and outputs: a number in them (an
// id the server gave) would not be the same at replay.
func stableURL(templated string) bool {
	u, err := url.Parse(templated)
	if err != nil {
		return false
	}
	rest := refPattern.ReplaceAllString(u.Path+"?"+u.RawQuery, "")
	return !digit.MatchString(rest)
}

var refPattern = regexp.MustCompile(`\{\{[^{}]*\}\}`)

// echoes are the fields of a structured result equal to a parameter's
// value: json_path_equals on them, templated.
func (d *distillation) echoes(doc any) []schema.Expect {
	var out []schema.Expect
	var walk func(node any, path string)
	walk = func(node any, path string) {
		switch n := node.(type) {
		case map[string]any:
			keys := make([]string, 0, len(n))
			for k := range n {
				if outputKey.MatchString(k) {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(n[k], path+"."+k)
			}
		case []any:
			if len(n) == 1 {
				walk(n[0], path+"[0]")
			}
		case string:
			if t, ok := d.b.whole(n); ok {
				out = append(out, schema.Expect{Op: schema.OpJSONPathEquals, Arg: "$.structuredContent" + path, Value: schema.RawJSON(`"` + t + `"`)})
			}
		}
	}
	walk(doc, "")
	return out
}

// hasStructured reports whether a result carries structuredContent (the
// document checks address as $.structuredContent).
func hasStructured(result schema.RawJSON) bool {
	return strings.Contains(string(result), `"structuredContent"`)
}

// snapshotIdentity reads the role and name of the control a snapshot
// line names: `- button "Register vendor" [ref=`.
var snapshotIdentity = regexp.MustCompile(`^- ([a-z]+) "((?:[^"\\]|\\.)*)" \[ref=$`)

// identity is the control a browser step's target output names, or nil
// when the step names none by a snapshot line.
func (d *distillation) identity(args map[string]any) *schema.Target {
	ref, ok := args["target"].(string)
	if !ok {
		return nil
	}
	refs, err := schema.ParseRefs(ref)
	if err != nil || len(refs) != 1 || refs[0].Output == "" || "{{"+refs[0].String()+"}}" != ref {
		return nil
	}
	src := d.c.Playbook.Step(refs[0].Step)
	if src == nil {
		return nil
	}
	m := snapshotIdentity.FindStringSubmatch(src.Outputs[refs[0].Output].Line)
	if m == nil {
		return nil
	}
	return &schema.Target{Role: m[1], Name: strings.ReplaceAll(m[2], `\"`, `"`)}
}
