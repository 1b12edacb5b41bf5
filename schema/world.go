package schema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// WorldNode is one visible page node as assertions see it.
type WorldNode struct {
	ID    string `json:"id"`
	Role  string `json:"role"`
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

// World is the state an assertion is checked against: a page after a
// browser action, or a tool's result after an MCP call.
type World struct {
	Page     bool        // a browser page: URL and Nodes are meaningful
	URL      string      // the page URL
	Nodes    []WorldNode // visible nodes of the page
	Text     string      // visible page text, or a tool result's text content
	Render   string      // the whole distilled page as a model reads it, when observed whole
	Output   RawJSON     // structured output: a tool result, an extracted value
	ExitCode *int        // a process's exit code, when the tool ran one
}

// Evaluate checks e against w. A false assertion is a Check with Passed
// false, not an error. The error is an *Error: CodeNotApplicable when w
// cannot answer the primitive (selector_visible against a tool result),
// CodeUnbound when e still holds a template reference, CodeInvalid for a
// malformed e or output.
func (e Expect) Evaluate(w World) (Check, error) {
	if err := e.Validate(); err != nil {
		return Check{}, err
	}
	if refs, _ := e.Refs(); len(refs) > 0 {
		return Check{}, Errorf(CodeUnbound, "%s: render the expect before evaluating it ({{%s}})", e.Op, refs[0])
	}
	passed, detail, err := e.eval(w)
	if err != nil {
		return Check{}, err
	}
	return Check{Expect: e, Passed: passed, Detail: detail}, nil
}

func (e Expect) eval(w World) (bool, string, error) {
	switch e.Op {
	case OpExitCode:
		if w.ExitCode == nil {
			return false, "", Errorf(CodeNotApplicable, "exit_code: no process ran")
		}
		want, _ := strconv.Atoi(string(e.Value))
		return *w.ExitCode == want, fmt.Sprintf("exit code %d", *w.ExitCode), nil
	case OpSelectorVisible, OpSelectorAbsent, OpInputValue:
		if !w.Page {
			return false, "", Errorf(CodeNotApplicable, "%s needs a page", e.Op)
		}
		sel, _ := ParseSelector(e.Arg)
		var found []WorldNode
		for _, n := range w.Nodes {
			if sel.Matches(n) {
				found = append(found, n)
			}
		}
		switch e.Op {
		case OpSelectorVisible:
			return len(found) > 0, fmt.Sprintf("%d visible match(es)", len(found)), nil
		case OpSelectorAbsent:
			return len(found) == 0, fmt.Sprintf("%d visible match(es)", len(found)), nil
		}
		if len(found) != 1 {
			return false, fmt.Sprintf("%d visible matches, want exactly 1", len(found)), nil
		}
		var want string
		_ = json.Unmarshal(e.Value, &want)
		return found[0].Value == want, fmt.Sprintf("value %q", found[0].Value), nil
	case OpURLContains:
		if !w.Page {
			return false, "", Errorf(CodeNotApplicable, "url_contains needs a page")
		}
		return strings.Contains(w.URL, e.Arg), "url " + w.URL, nil
	case OpTextVisible:
		if w.Page {
			// A page shows runs of white space as one space, and its text
			// breaks lines between blocks: so are both read.
			return strings.Contains(collapseSpace(w.Text), collapseSpace(e.Arg)), fmt.Sprintf("%d characters of text", len(w.Text)), nil
		}
		return strings.Contains(w.Text, e.Arg), fmt.Sprintf("%d characters of text", len(w.Text)), nil
	case OpCheckedExactly:
		return checkedExactly(w.Text, e.Arg)
	case OpOutputMatches:
		text, err := w.outputText()
		if err != nil {
			return false, "", err
		}
		re := regexp.MustCompile(e.Arg) // Validate compiled it already
		return re.MatchString(text), fmt.Sprintf("output %s", Clip(text, 80)), nil
	}
	// The JSON path primitives.
	out, err := w.output()
	if err != nil {
		return false, "", err
	}
	path, _ := ParseJSONPath(e.Arg)
	got, ok := path.Lookup(out)
	switch e.Op {
	case OpJSONPathExists:
		return ok, fmt.Sprintf("%s exists: %v", e.Arg, ok), nil
	case OpNonempty:
		return ok && nonempty(got), fmt.Sprintf("%s is %s", e.Arg, Clip(jsonText(got, ok), 80)), nil
	}
	gotJSON := jsonText(got, ok)
	want, _ := CanonicalJSON(e.Value)
	return ok && gotJSON == string(want), fmt.Sprintf("%s is %s", e.Arg, Clip(gotJSON, 80)), nil
}

// collapseSpace is s with each run of white space one space, and none at
// either end.
func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// output decodes w.Output, or says the world has none.
func (w World) output() (any, error) {
	if len(w.Output) == 0 {
		return nil, Errorf(CodeNotApplicable, "no structured output to query")
	}
	v, err := decodeJSON(w.Output)
	if err != nil {
		return nil, within("output", err)
	}
	return v, nil
}

// outputText is the output as text: a JSON string's contents, otherwise
// the output's JSON itself.
func (w World) outputText() (string, error) {
	v, err := w.output()
	if err != nil {
		return "", err
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	return string(w.Output), nil
}

func nonempty(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	}
	return true
}

func jsonText(v any, ok bool) string {
	if !ok {
		return "missing"
	}
	b, err := canonicalEncode(v)
	if err != nil {
		return "unencodable"
	}
	return string(b)
}

// checkboxLine is a checkbox as a page's text shows it, rote's
// (`k3f9q2 checkbox "Basil" [checked]`) or @playwright/mcp's
// (`- checkbox "Basil" [checked] [ref=e5]`): its name, and the marks after.
var checkboxLine = regexp.MustCompile(`(?m)(?:^|\s)checkbox "((?:[^"\\]|\\.)*)"([^\n]*)$`)

// marks are the bracketed state marks after a control's name.
var marks = regexp.MustCompile(`\[([^\]]*)\]`)

// checkedExactly reports whether the checkboxes text shows checked are
// the list's items, no more and no fewer.
func checkedExactly(text, list string) (bool, string, error) {
	want, err := ListItems(list)
	if err != nil {
		return false, "", err
	}
	var checked []string
	for _, m := range checkboxLine.FindAllStringSubmatch(text, -1) {
		name, err := strconv.Unquote(`"` + m[1] + `"`)
		if err != nil {
			name = m[1]
		}
		for _, mk := range marks.FindAllStringSubmatch(m[2], -1) {
			if slices.Contains(strings.FieldsFunc(mk[1], func(r rune) bool { return r == ' ' || r == ',' }), "checked") {
				checked = append(checked, name)
				break
			}
		}
	}
	var missing, extra []string
	for _, w := range want {
		if !slices.Contains(checked, w) {
			missing = append(missing, w)
		}
	}
	for _, c := range checked {
		if !slices.Contains(want, c) {
			extra = append(extra, c)
		}
	}
	detail := fmt.Sprintf("checked: %s", strings.Join(checked, ", "))
	if len(missing)+len(extra) > 0 {
		detail += fmt.Sprintf("; not checked: %s; checked besides: %s", strings.Join(missing, ", "), strings.Join(extra, ", "))
	}
	return len(missing)+len(extra) == 0, detail, nil
}
