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
func ParseExpectText(s string) (Expect, error) {
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(s), &obj); err != nil || obj == nil {
		return Expect{}, Errorf(CodeInvalid, "expect %q: want one primitive as a YAML mapping, e.g. 'text_visible: Saved'", s)
	}
	return ParseExpect(obj)
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
