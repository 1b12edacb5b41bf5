package schema_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/rote-agent/rote/schema"
)

func TestExpectDecodesEveryPrimitive(t *testing.T) {
	cases := map[string]schema.Expect{
		`{"exit_code": 0}`:                                            {Op: schema.OpExitCode, Value: schema.RawJSON("0")},
		`{"selector_visible": "button \"Save\""}`:                     {Op: schema.OpSelectorVisible, Arg: `button "Save"`},
		`{"selector_absent": "k3f9q2"}`:                               {Op: schema.OpSelectorAbsent, Arg: "k3f9q2"},
		`{"input_value": "k3f9q2", "equals": "Acme"}`:                 {Op: schema.OpInputValue, Arg: "k3f9q2", Value: schema.RawJSON(`"Acme"`)},
		`{"input_value": "k3f9q2", "equals": 42}`:                     {Op: schema.OpInputValue, Arg: "k3f9q2", Value: schema.RawJSON(`"42"`)},
		`{"url_contains": "/done"}`:                                   {Op: schema.OpURLContains, Arg: "/done"},
		`{"text_visible": "Saved"}`:                                   {Op: schema.OpTextVisible, Arg: "Saved"},
		`{"json_path_exists": "$.a[0]"}`:                              {Op: schema.OpJSONPathExists, Arg: "$.a[0]"},
		`{"json_path_equals": "$.a", "equals": {"y":1.0,"x":[true]}}`: {Op: schema.OpJSONPathEquals, Arg: "$.a", Value: schema.RawJSON(`{"x":[true],"y":1}`)},
		`{"output_matches": "^ok\\d+$"}`:                              {Op: schema.OpOutputMatches, Arg: `^ok\d+$`},
		`{"nonempty": "$"}`:                                           {Op: schema.OpNonempty, Arg: "$"},
		`{"checked_exactly": "Basil, Tuna"}`:                          {Op: schema.OpCheckedExactly, Arg: "Basil, Tuna"},
	}
	ops := map[schema.ExpectOp]bool{}
	for in, want := range cases {
		var got schema.Expect
		if err := json.Unmarshal([]byte(in), &got); err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got.Op != want.Op || got.Arg != want.Arg || string(got.Value) != string(want.Value) {
			t.Errorf("%s: got %+v (%s), want %+v (%s)", in, got, got.Value, want, want.Value)
		}
		// The written form round-trips.
		out, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		var again schema.Expect
		if err := json.Unmarshal(out, &again); err != nil || again.String() != got.String() {
			t.Errorf("%s: re-decoding %s gave %v, %v", in, out, again, err)
		}
		ops[got.Op] = true
	}
	if len(ops) != len(schema.ExpectOps()) {
		t.Fatalf("covered %d of %d primitives", len(ops), len(schema.ExpectOps()))
	}
}

func TestExpectDecodingIsStrict(t *testing.T) {
	cases := map[string]string{
		`{}`: "no primitive",
		`{"text_visible": "a", "url_contains": "b"}`:       "two primitives",
		`{"text_visible": "a", "colour": "red"}`:           "unknown key colour",
		`{"text_visibel": "a"}`:                            "unknown key text_visibel",
		`{"text_visible": "a", "equals": "b"}`:             "does not take equals",
		`{"input_value": "k3f9q2"}`:                        "needs equals",
		`{"json_path_equals": "$.a"}`:                      "needs equals",
		`{"exit_code": "zero"}`:                            "want an integer",
		`{"exit_code": 1.5}`:                               "want an integer",
		`{"text_visible": ""}`:                             "empty argument",
		`{"text_visible": 3}`:                              "want a string",
		`{"selector_visible": "has spaces but no quotes"}`: "double quotes",
		`{"selector_visible": "button Save"}`:              "double quotes",
		`{"json_path_exists": "a.b"}`:                      "must start with $",
		`{"json_path_exists": "$[x]"}`:                     "not an integer",
		`{"output_matches": "(unclosed"}`:                  "output_matches",
		`{"input_value": "k", "equals": {"a":1}}`:          "equals must be a string",
		`["text_visible"]`:                                 "want an object",
		`{"text_visible": "{{oops"}`:                       "unbalanced",
	}
	for in, want := range cases {
		var e schema.Expect
		err := json.Unmarshal([]byte(in), &e)
		if !errors.Is(err, schema.ErrInvalid) {
			t.Errorf("%s: got %v, want an invalid error", in, err)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not say %q", in, err, want)
		}
	}
}

func TestExpectYAMLErrorsCarryLines(t *testing.T) {
	var v struct {
		Verify []schema.Expect `yaml:"verify"`
	}
	doc := "verify:\n  - text_visible: ok\n  - text_visible: a\n    url_contains: b\n"
	err := yaml.Unmarshal([]byte(doc), &v)
	if err == nil {
		t.Fatal("two primitives in one item were accepted")
	}
	var yerr yaml.Error
	if !errors.As(err, &yerr) || yerr.GetToken().Position.Line != 3 {
		t.Fatalf("want an error at line 3, got %v", err)
	}
}

func TestEvaluate(t *testing.T) {
	code := 0
	page := schema.World{
		Page: true, URL: "http://portal/vendors/42?saved=1",
		Text:  "Vendor Acme registered",
		Nodes: []schema.WorldNode{{ID: "k3f9q2", Role: "textbox", Name: "Vendor name", Value: "Acme"}, {ID: "b1", Role: "button", Name: "Save"}, {ID: "b2", Role: "button", Name: "Save"}},
	}
	tool := schema.World{Text: "created issue #12", Output: schema.RawJSON(`{"n":12,"items":[],"state":"open","tags":["a"],"nested":{"x":1.0}}`), ExitCode: &code}
	strOut := schema.World{Output: schema.RawJSON(`"report-7.csv"`)}
	cases := []struct {
		world schema.World
		exp   string
		pass  bool
	}{
		{page, `{"url_contains": "/vendors/42"}`, true},
		{page, `{"url_contains": "/users"}`, false},
		{page, `{"text_visible": "Acme registered"}`, true},
		{page, `{"text_visible": "Globex"}`, false},
		{page, `{"text_visible": "  Vendor   Acme\n registered "}`, true}, // a page shows runs of white space as one
		{page, `{"text_visible": "VendorAcme"}`, false},
		{page, `{"selector_visible": "k3f9q2"}`, true},
		{page, `{"selector_visible": "button \"Save\""}`, true},
		{page, `{"selector_visible": "button \"Delete\""}`, false},
		{page, `{"selector_absent": "button \"Delete\""}`, true},
		{page, `{"selector_absent": "b1"}`, false},
		{page, `{"input_value": "textbox \"Vendor name\"", "equals": "Acme"}`, true},
		{page, `{"input_value": "k3f9q2", "equals": "Globex"}`, false},
		{page, `{"input_value": "button \"Save\"", "equals": ""}`, false}, // two matches: ambiguous is a failure
		{tool, `{"exit_code": 0}`, true},
		{tool, `{"exit_code": 1}`, false},
		{tool, `{"text_visible": "issue #12"}`, true},
		{tool, `{"text_visible": "issue  #12"}`, false}, // a tool's text is as it is
		{tool, `{"json_path_exists": "$.tags[0]"}`, true},
		{tool, `{"json_path_exists": "$.tags[-1]"}`, true},
		{tool, `{"json_path_exists": "$.tags[1]"}`, false},
		{tool, `{"json_path_exists": "$.missing"}`, false},
		{tool, `{"json_path_equals": "$.n", "equals": 12}`, true},
		{tool, `{"json_path_equals": "$.n", "equals": "12"}`, false},
		{tool, `{"json_path_equals": "$.nested", "equals": {"x": 1}}`, true},
		{tool, `{"json_path_equals": "$['state']", "equals": "open"}`, true},
		{tool, `{"nonempty": "$.tags"}`, true},
		{tool, `{"nonempty": "$.items"}`, false},
		{tool, `{"nonempty": "$.missing"}`, false},
		{tool, `{"output_matches": "\"n\":12"}`, true},
		{strOut, `{"output_matches": "^report-\\d+\\.csv$"}`, true},
		{strOut, `{"output_matches": "^summary"}`, false},
	}
	for _, c := range cases {
		check, err := mustExpect(t, c.exp).Evaluate(c.world)
		if err != nil {
			t.Errorf("%s: %v", c.exp, err)
			continue
		}
		if check.Passed != c.pass {
			t.Errorf("%s: passed=%v want %v (%s)", c.exp, check.Passed, c.pass, check.Detail)
		}
	}
}

func TestEvaluateRefusesWhatTheWorldCannotAnswer(t *testing.T) {
	tool := schema.World{Output: schema.RawJSON(`{}`)}
	page := schema.World{Page: true}
	cases := []struct {
		world schema.World
		exp   string
		want  error
	}{
		{tool, `{"selector_visible": "k3f9q2"}`, schema.ErrNotApplicable},
		{tool, `{"url_contains": "/x"}`, schema.ErrNotApplicable},
		{page, `{"exit_code": 0}`, schema.ErrNotApplicable},
		{page, `{"json_path_exists": "$.a"}`, schema.ErrNotApplicable},
		{schema.World{Output: schema.RawJSON(`{not json`)}, `{"nonempty": "$"}`, schema.ErrInvalid},
		{page, `{"text_visible": "{{name}}"}`, schema.ErrUnbound},
	}
	for _, c := range cases {
		_, err := mustExpect(t, c.exp).Evaluate(c.world)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.exp, err, c.want)
		}
	}
}

func TestExpectRender(t *testing.T) {
	b := schema.Bindings{Params: map[string]any{"name": "Acme", "n": 12.0}, Steps: map[string]string{"tier": "gold"}}
	e := mustExpect(t, `{"input_value": "combobox \"{{name}} tier\"", "equals": "{{steps.tier}}"}`)
	r, err := e.Render(b)
	if err != nil {
		t.Fatal(err)
	}
	if r.Arg != `combobox "Acme tier"` || string(r.Value) != `"gold"` {
		t.Fatalf("rendered %s %s", r.Arg, r.Value)
	}
	e = mustExpect(t, `{"json_path_equals": "$.count", "equals": "{{n}}"}`)
	if r, err = e.Render(b); err != nil || string(r.Value) != `12` {
		t.Fatalf("typed render: %s %v", r.Value, err)
	}
	if _, err := mustExpect(t, `{"text_visible": "{{nobody}}"}`).Render(b); !errors.Is(err, schema.ErrUnbound) {
		t.Fatalf("unbound: %v", err)
	}
	// A rendered selector is validated once it is concrete.
	bad := schema.Bindings{Params: map[string]any{"name": "two words"}}
	if _, err := mustExpect(t, `{"selector_visible": "{{name}}"}`).Render(bad); !errors.Is(err, schema.ErrInvalid) {
		t.Fatalf("rendered selector not validated: %v", err)
	}
}

// TestExpectTextWithAColon: a primitive's text that holds a colon, which
// YAML cannot read unquoted, is still that text; what is no primitive is
// refused with the reason (issue 38, item 8).
func TestExpectTextWithAColon(t *testing.T) {
	e, err := schema.ParseExpectText("text_visible: Echo: hello")
	if err != nil || e.Op != schema.OpTextVisible || e.Arg != "Echo: hello" {
		t.Fatalf("got %+v, %v", e, err)
	}
	if _, err := schema.ParseExpectText("shows: Echo: hello"); !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), "text_visible: Saved") {
		t.Fatalf("an unknown primitive: %v", err)
	}
}
