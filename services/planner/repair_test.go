package planner

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
)

// repairPage is a page as the repair prompt shows it.
const repairPage = `page "Vendors" http://shop.test/vendors
a1 heading "Register a vendor"
a2 textbox "Legal name" = "Initech"
a20 textarea "Street address"
a3 button "Next"
a4 combobox "Country" options: France | Germany
a5 date "Start date"
a6 listitem "Draft \"A\""
a7 listitem "Archive"
a8 button "Delete" (1 of 2)
a8~2 button "Delete" (2 of 2)`

// call is a model's answer that calls tool with JSON arguments.
func call(tool, args string) *Reply {
	return &Reply{ToolCall: &openai.FunctionCall{Name: tool, Arguments: args}}
}

// TestReplacement turns the model's answer into the step that replaces
// the failed one: aimed by role and name (read off the page when the
// model gave an id), with the arguments its action takes, the failed
// step's needs and its expects moved to the new control; anything but
// one valid action is repair_unavailable.
func TestReplacement(t *testing.T) {
	failed := &schema.Step{ID: "street", Kind: schema.StepDeterministic, Needs: []string{"name"}, Tool: "fill",
		Target: &schema.Target{Role: "textbox", Name: "Street"}, Args: map[string]any{"value": "{{street}}"},
		Expect: []schema.Expect{{Op: schema.OpInputValue, Arg: `textbox "Street"`, Value: schema.RawJSON(`"{{street}}"`)}, {Op: schema.OpTextVisible, Arg: "Saved"}}}
	bare := &schema.Step{ID: "go", Kind: schema.StepDeterministic, Tool: "click", Target: &schema.Target{Role: "button", Name: "Continue"}}
	cases := []struct {
		name   string
		failed *schema.Step
		reply  *Reply
		want   *schema.Step
		err    string // in a repair_unavailable error
	}{
		{"a fill by id", failed, call("fill", `{"target":"a20","value":"{{street}}"}`), &schema.Step{ID: "street", Kind: schema.StepDeterministic, Needs: []string{"name"}, Tool: "fill",
			Target: &schema.Target{Role: "textarea", Name: "Street address"}, Args: map[string]any{"value": "{{street}}"},
			Expect: []schema.Expect{{Op: schema.OpInputValue, Arg: `textarea "Street address"`, Value: schema.RawJSON(`"{{street}}"`)}, {Op: schema.OpTextVisible, Arg: "Saved"}}}, ""},
		{"a click by role and name, near", bare, call("click", `{"role":"button","name":"Next","near":"Register"}`), &schema.Step{ID: "go", Kind: schema.StepDeterministic, Tool: "click",
			Target: &schema.Target{Role: "button", Name: "Next", Near: "Register"}}, ""},
		{"a name with quotes", bare, call("click", `{"target":"a6"}`), &schema.Step{ID: "go", Kind: schema.StepDeterministic, Tool: "click",
			Target: &schema.Target{Role: "listitem", Name: `Draft "A"`}}, ""},
		{"a choice with no expect gets one", bare, call("select", `{"target":"a4","value":"Germany"}`), &schema.Step{ID: "go", Kind: schema.StepDeterministic, Tool: "select",
			Target: &schema.Target{Role: "combobox", Name: "Country"}, Args: map[string]any{"value": "Germany"},
			Expect: []schema.Expect{{Op: schema.OpInputValue, Arg: `combobox "Country"`, Value: schema.RawJSON(`"Germany"`)}}}, ""},
		{"a navigate", bare, call("navigate", `{"url":"/vendors/new"}`), &schema.Step{ID: "go", Kind: schema.StepDeterministic, Tool: "navigate",
			Args: map[string]any{"url": "/vendors/new"}}, ""},
		{"a key", bare, call("press", `{"target":"a3","key":"Enter"}`), &schema.Step{ID: "go", Kind: schema.StepDeterministic, Tool: "press",
			Target: &schema.Target{Role: "button", Name: "Next"}, Args: map[string]any{"key": "Enter"}}, ""},
		{"an uncheck", bare, call("check", `{"role":"checkbox","name":"Newsletter","checked":false}`), &schema.Step{ID: "go", Kind: schema.StepDeterministic, Tool: "check",
			Target: &schema.Target{Role: "checkbox", Name: "Newsletter"}, Args: map[string]any{"checked": false}}, ""},
		{"a check", bare, call("check", `{"role":"checkbox","name":"Newsletter"}`), &schema.Step{ID: "go", Kind: schema.StepDeterministic, Tool: "check",
			Target: &schema.Target{Role: "checkbox", Name: "Newsletter"}}, ""},
		{"a date set", bare, call("set_value", `{"target":"a5","value":"2026-10-26"}`), &schema.Step{ID: "go", Kind: schema.StepDeterministic, Tool: "set_value",
			Target: &schema.Target{Role: "date", Name: "Start date"}, Args: map[string]any{"value": "2026-10-26"}}, ""},
		{"a drag by ids", bare, call("drag", `{"target":"a6","to":"a7"}`), &schema.Step{ID: "go", Kind: schema.StepDeterministic, Tool: "drag",
			Target: &schema.Target{Role: "listitem", Name: `Draft "A"`}, Args: map[string]any{"to": map[string]any{"role": "listitem", "name": "Archive"}}}, ""},
		{"no call", bare, &Reply{Content: "I would click Next."}, nil, "proposed no replacement for go"},
		{"an unknown tool", bare, call("teleport", `{}`), nil, "is no valid action"},
		{"bad arguments", bare, call("click", `{"target":"a3","retries":2}`), nil, "is no valid action"},
		{"a fail", bare, call("fail", `{"reason":"needs two steps"}`), nil, "declined to repair go: needs two steps"},
		{"a done", bare, call("done", `{"reason":"already done"}`), nil, "declined to repair go"},
		{"an id the page does not show", bare, call("click", `{"target":"zz9"}`), nil, "aims at zz9, which the page does not show"},
		{"an id's prefix", bare, call("click", `{"target":"a"}`), nil, "aims at a, which the page does not show"},
		{"a drop on an id the page does not show", bare, call("drag", `{"target":"a6","to":"zz9"}`), nil, "zz9, which the page does not show"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := replacement(c.reply, c.failed, repairPage)
			if c.err != "" {
				if !errors.Is(err, schema.ErrRepairUnavailable) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("%v, want repair_unavailable saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.want != nil && !reflect.DeepEqual(got, c.want) {
				t.Errorf("replacement\n%+v\nwant\n%+v", got, c.want)
			}
			// Whatever it is, the step does what the model's action did.
			if _, err := tools.ActionFromArgs(schema.ActionKind(got.Tool), got.Args, got.Target); err != nil {
				t.Errorf("the replacement is no valid action: %v", err)
			}
			a, _ := tools.ActionFromToolCall(c.reply.ToolCall.Name, []byte(c.reply.ToolCall.Arguments), nil)
			if again, _ := tools.ActionFromArgs(schema.ActionKind(got.Tool), got.Args, got.Target); again.Value != a.Value || again.URL != a.URL {
				t.Errorf("the replacement acts with %q %q, the model's action with %q %q", again.Value, again.URL, a.Value, a.URL)
			}
		})
	}
	if failed.Expect[0].Arg != `textbox "Street"` {
		t.Error("the failed step's expects were changed in place")
	}
}

// TestRetarget moves the expects about the failed step's control to the
// new one and leaves the others as they were.
func TestRetarget(t *testing.T) {
	to := &schema.Target{Role: "textarea", Name: "Street address"}
	expects := []schema.Expect{
		{Op: schema.OpInputValue, Arg: `textbox "Street"`, Value: schema.RawJSON(`"x"`)},
		{Op: schema.OpSelectorVisible, Arg: `textbox   "Street"`},
		{Op: schema.OpSelectorVisible, Arg: `textbox "Street 2"`},
		{Op: schema.OpTextVisible, Arg: "Street"},
		{Op: schema.OpURLContains, Arg: "/vendors"},
	}
	got := retarget(&schema.Step{Target: &schema.Target{Role: "textbox", Name: "Street"}, Expect: expects}, to)
	want := []string{`textarea "Street address"`, `textarea "Street address"`, `textbox "Street 2"`, "Street", "/vendors"}
	for i := range want {
		if got[i].Arg != want[i] || got[i].Op != expects[i].Op {
			t.Errorf("expect %d: %s %q, want %q", i, got[i].Op, got[i].Arg, want[i])
		}
	}
	if untargeted := retarget(&schema.Step{Expect: expects}, to); !reflect.DeepEqual(untargeted, expects) {
		t.Errorf("a step without a target: %+v", untargeted)
	}
}

// TestDescribeStep shows the failed step as the repair prompt does.
func TestDescribeStep(t *testing.T) {
	got := describeStep(&schema.Step{ID: "street", Tool: "fill", Target: &schema.Target{Role: "textbox", Name: `Street "1"`},
		Args: map[string]any{"value": "{{street}}"}, Expect: []schema.Expect{{Op: schema.OpTextVisible, Arg: "Saved"}}})
	want := "Failed step: street\n  tool: fill\n  target: textbox \"Street \\\"1\\\"\"\n  args: {\"value\":\"{{street}}\"}\n  expect: text_visible \"Saved\"\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := describeStep(&schema.Step{ID: "go", Tool: "navigate"}); got != "Failed step: go\n  tool: navigate\n" {
		t.Errorf("a bare step: %q", got)
	}
}
