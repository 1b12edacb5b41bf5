package schema_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
)

const dataflowPlaybook = `name: label-record
intent: create a record named {{name}} and label it {{label}}
params:
  name: {type: string, required: true}
  label: {type: string, required: true}
steps:
  - id: create
    kind: deterministic
    tool: create_record
    args: {name: "{{name}}"}
    outputs:
      id: {json: $.id}
  - id: tag
    kind: deterministic
    needs: [create]
    tool: label_record
    args: {id: "{{steps.create.id}}", label: "{{label}}"}
verify:
  - json_path_equals: $.structuredContent.label
    equals: "{{label}}"
`

func TestOutputsValidate(t *testing.T) {
	p, err := schema.DecodePlaybook([]byte(dataflowPlaybook))
	if err != nil {
		t.Fatal(err)
	}
	if o := p.Steps[0].Outputs["id"]; o.JSON != "$.id" {
		t.Fatalf("decoded output: %+v", o)
	}
	for name, c := range map[string]struct{ from, to, want string }{
		"unknown output":      {`"{{steps.create.id}}"`, `"{{steps.create.nope}}"`, `declares no output "nope"`},
		"not a need":          {"needs: [create]", "needs: []", "not among this step's needs"},
		"both locators":       {"{json: $.id}", `{json: $.id, line: "id "}`, "json or by line, not both"},
		"no locator":          {"{json: $.id}", "{}", "needs a json path or a line locator"},
		"picked by position":  {"{json: $.id}", "{json: '$.items[2].id'}", "picks item 2"},
		"bad token class":     {"{json: $.id}", `{line: "id ", token: ".*"}`, "want a character class"},
		"undeclared in line":  {"{json: $.id}", `{line: "{{owner}} got ", token: "[a-z0-9-]"}`, "{{owner}} is not a declared parameter"},
		"bad state":           {"{json: $.id}", `{line: "id ", token: "[a-z]", state: "on"}`, `state "on"`},
		"state of json":       {"{json: $.id}", `{json: $.id, state: checked}`, "state belongs to a line locator"},
		"bad output name":     {"id: {json: $.id}", "Id: {json: $.id}", `output name "Id"`},
		"malformed reference": {`"{{steps.create.id}}"`, `"{{steps.create.id.x}}"`, "neither a parameter name"},
		"place beside a line": {"{json: $.id}", `{line: "id ", token: "[a-z]", place: {role: link, among: items, name: "*", nth: "1", mark: "[ref="}}`, "a place is a locator of its own"},
		"place past the end":  {"{json: $.id}", `{token: "[a-z0-9]", place: {role: link, among: items, name: "*", nth: "0", mark: "[ref="}}`, "no place from 1"},
		"place with no mark":  {"{json: $.id}", `{token: "[a-z0-9]", place: {role: link, among: items, name: "*", nth: "2"}}`, "the mark its value follows"},
	} {
		doc := strings.Replace(dataflowPlaybook, c.from, c.to, 1)
		if doc == dataflowPlaybook {
			t.Fatalf("%s: the replacement did not apply", name)
		}
		_, err := schema.DecodePlaybook([]byte(doc))
		if !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

func result(structured, text string) schema.World {
	raw := `{"content":[{"type":"text","text":` + quote(text) + `}]`
	if structured != "" {
		raw += `,"structuredContent":` + structured
	}
	return schema.ToolResultWorld([]byte(raw + "}"))
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestOutputLocate(t *testing.T) {
	params := schema.Bindings{Params: map[string]any{"name": "Acme"}}
	snapshot := "- main:\n  - textbox \"Company name\" [ref=e12]\n  - textbox \"Tax ID\" [ref=e13]\n  - button \"Continue\" [ref=e14] [cursor=pointer]\n"
	for name, c := range map[string]struct {
		out  schema.Output
		w    schema.World
		want any
		code schema.Code
	}{
		"structured":                      {schema.Output{JSON: "$.id"}, result(`{"id":"r-18"}`, "ok"), "r-18", ""},
		"json text":                       {schema.Output{JSON: "$.record.id"}, result("", `{"record":{"id":42}}`), float64(42), ""},
		"one-item list":                   {schema.Output{JSON: "$.items[0].id"}, result(`{"items":[{"id":"a-1"}]}`, ""), "a-1", ""},
		"several items":                   {schema.Output{JSON: "$.items[0].id"}, result(`{"items":[{"id":"a-1"},{"id":"a-2"}]}`, ""), nil, schema.CodeAmbiguous},
		"missing field":                   {schema.Output{JSON: "$.id"}, result(`{"name":"Acme"}`, ""), nil, schema.CodeBindingNotFound},
		"not json":                        {schema.Output{JSON: "$.id"}, result("", "created r-18"), nil, schema.CodeBindingNotFound},
		"object, not a value":             {schema.Output{JSON: "$.record"}, result(`{"record":{"id":1}}`, ""), nil, schema.CodeBindingNotFound},
		"snapshot line":                   {schema.Output{Line: `- textbox "Tax ID" [ref=`, Token: "[a-z0-9]"}, result("", snapshot), "e13", ""},
		"a moved line":                    {schema.Output{Line: `- textbox "Tax ID" [ref=`, Token: "[a-z0-9]"}, result("", "- textbox \"Delete record\" [ref=e12]\n- textbox \"Tax ID\" [ref=f3e40]"), "f3e40", ""},
		"line with a param":               {schema.Output{Line: `Created record for {{name}}: `, Token: "[a-z0-9-]"}, result("", "Created record for Acme: r-19."), "r-19", ""},
		"line not there":                  {schema.Output{Line: `- textbox "Tax ID" [ref=`, Token: "[a-z0-9]"}, result("", "- textbox \"VAT\" [ref=e13]"), nil, schema.CodeBindingNotFound},
		"two matching lines":              {schema.Output{Line: `- button "Continue" [ref=`, Token: "[a-z0-9]"}, result("", snapshot+"  - button \"Continue\" [ref=e99]\n"), nil, schema.CodeAmbiguous},
		"a value that runs on":            {schema.Output{Line: `Created record for {{name}}: `, Token: "[a-z0-9-]"}, result("", "Created record for Acme: r-23.v2"), nil, schema.CodeBindingNotFound},
		"a path that runs on":             {schema.Output{Line: `id: `, Token: "[a-z0-9-]"}, result("", "id: r-23/drafts"), nil, schema.CodeBindingNotFound},
		"a checked box":                   {schema.Output{Line: `- checkbox "I agree" [ref=`, Token: "[a-z0-9]"}, result("", `- checkbox "I agree" [checked] [ref=e4]`), "e4", ""},
		"a box no longer checked":         {schema.Output{Line: `- checkbox "I agree" [checked] [ref=`, Token: "[a-z0-9]"}, result("", `- checkbox "I agree" [ref=e4] [cursor=pointer]`), "e4", ""},
		"recorded unchecked, now checked": {schema.Output{Line: `- checkbox "I agree" [ref=`, Token: "[a-z0-9]", State: "none"}, result("", `- checkbox "I agree" [checked] [ref=e4]`), schema.AlreadyToggled{State: "checked"}, ""},
		"recorded checked, now not":       {schema.Output{Line: `- checkbox "I agree" [ref=`, Token: "[a-z0-9]", State: "checked"}, result("", `- checkbox "I agree" [ref=e4]`), schema.AlreadyToggled{State: "none"}, ""},
		"a toggle now pressed":            {schema.Output{Line: `- button "Bold" [ref=`, Token: "[a-z0-9]", State: "none"}, result("", `- button "Bold" [pressed] [ref=e7]`), schema.AlreadyToggled{State: "pressed"}, ""},
		"a box half ticked":               {schema.Output{Line: `- checkbox "I agree" [ref=`, Token: "[a-z0-9]", State: "none"}, result("", `- checkbox "I agree" [checked=mixed] [ref=e4]`), nil, schema.CodeStateChanged},
		"still unchecked":                 {schema.Output{Line: `- checkbox "I agree" [ref=`, Token: "[a-z0-9]", State: "none"}, result("", `- checkbox "I agree" [ref=e9] [cursor=pointer]`), "e9", ""},
		"still checked, focused":          {schema.Output{Line: `- checkbox "I agree" [ref=`, Token: "[a-z0-9]", State: "checked"}, result("", `- checkbox "I agree" [checked] [active] [ref=e9]`), "e9", ""},
		"a longer name is not":            {schema.Output{Line: `- textbox "Tax ID" [ref=`, Token: "[a-z0-9]"}, result("", "- textbox \"Tax ID (optional)\" [ref=e5]"), nil, schema.CodeBindingNotFound},
	} {
		got, err := c.out.Locate(c.w, params)
		if c.code != "" {
			var e *schema.Error
			if !errors.As(err, &e) || e.Code != c.code {
				t.Errorf("%s: got %v, %v; want %s", name, got, err, c.code)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %v, %v; want %v", name, got, err, c.want)
		}
	}
}
