package schema

import (
	"encoding/json"
	"strings"

	"github.com/goccy/go-yaml"
)

// ToolResultWorld is the world an MCP tools/call result shows: the result
// JSON as Output and its text content, joined by newlines, as Text.
func ToolResultWorld(result []byte) World {
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(result, &r)
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return World{Output: RawJSON(result), Text: strings.Join(parts, "\n")}
}

// ParseExpectText reads one assertion written as a YAML mapping on one
// line, as command lines take them: `text_visible: Vendor saved`, or
// `{json_path_equals: $.status, equals: ok}`.
//
// A text whose value YAML cannot read as written (`text_visible: Echo:
// hello`, a colon in it) is that primitive with the rest of the line as
// its text.
func ParseExpectText(s string) (Expect, error) {
	var obj map[string]any
	err := yaml.Unmarshal([]byte(s), &obj)
	if err == nil && obj != nil {
		return ParseExpect(obj)
	}
	if op, rest, ok := strings.Cut(s, ":"); ok && !strings.ContainsAny(op, " {[\"'") && strings.TrimSpace(rest) != "" {
		if e, perr := ParseExpect(map[string]any{strings.TrimSpace(op): strings.TrimSpace(rest)}); perr == nil {
			return e, nil
		}
	}
	why := "not a mapping"
	if err != nil {
		why = strings.SplitN(err.Error(), "\n", 2)[0]
	}
	return Expect{}, Errorf(CodeInvalid, "expect %q: want one primitive as a YAML mapping on one line, e.g. 'text_visible: Saved' or '{json_path_equals: $.status, equals: ok}' (%s)", s, why)
}

// CheckAll evaluates every assertion against w and returns the checks
// and whether all passed.
func CheckAll(exps []Expect, w World) ([]Check, bool, error) {
	var out []Check
	for _, e := range exps {
		c, err := e.Evaluate(w)
		if err != nil {
			return nil, false, err
		}
		out = append(out, c)
	}
	return out, AllPassed(out), nil
}
