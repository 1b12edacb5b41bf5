package schema_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
)

// TestListItems: a list parameter's items are apart by commas, the last
// "and" read as one; an empty item, a repeated one or a template's
// braces are refused.
func TestListItems(t *testing.T) {
	for in, want := range map[string][]string{
		"Basil, Olives, Tuna":     {"Basil", "Olives", "Tuna"},
		"Basil, Olives, and Tuna": {"Basil", "Olives", "Tuna"},
		"Salt and pepper, Chives": {"Salt and pepper", "Chives"},
		"Tuna":                    {"Tuna"},
		" Basil ,Olives ":         {"Basil", "Olives"},
	} {
		if got, err := schema.ListItems(in); err != nil || !slices.Equal(got, want) {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "Basil,,Tuna", "Basil, Basil", "Basil, {{secret}}", strings.Repeat("a,", 60) + "b"} {
		if got, err := schema.ListItems(in); !errors.Is(err, schema.ErrParamType) {
			t.Errorf("%q: %q %v, want param_type", in, got, err)
		}
	}
}

// TestCheckedExactly: the page's checked boxes must be the list's items,
// no more and no fewer, as rote's page text and @playwright/mcp's
// snapshot show them.
func TestCheckedExactly(t *testing.T) {
	rote := "x1 checkbox \"Basil\" [checked]\nx2 checkbox \"Olives\"\nx3 checkbox \"Tuna\" [checked]\nx4 button \"Order\"\n"
	pw := "- checkbox \"Basil\" [checked] [ref=e4]\n- checkbox \"Olives\" [ref=e5]\n- checkbox \"Tuna\" [checked] [active] [ref=e6]\n"
	for _, text := range []string{rote, pw} {
		w := schema.World{Text: text}
		for list, want := range map[string]bool{"Basil, Tuna": true, "Tuna, Basil": true, "Basil": false, "Basil, Olives, Tuna": false, "Basil, Capers": false} {
			chk, err := schema.Expect{Op: schema.OpCheckedExactly, Arg: list}.Evaluate(w)
			if err != nil || chk.Passed != want {
				t.Errorf("%q on %q: %+v %v, want passed %t", list, text, chk, err, want)
			}
		}
	}
}

// TestEachNeedsAListParameter: a step runs once per item only of a list
// parameter, and only as a deterministic step with no outputs.
func TestEachNeedsAListParameter(t *testing.T) {
	doc := func(typ, step string) string {
		return "name: p\nintent: tick {{toppings}}\nparams:\n  toppings: {type: " + typ + ", required: true}\nsteps:\n  - " + step + "\nverify: [{checked_exactly: \"{{toppings}}\"}]\n"
	}
	ok := `{id: tick, kind: deterministic, tool: check, each: toppings, args: {role: checkbox, name: "{{toppings}}", checked: true}}`
	if _, err := schema.DecodePlaybook([]byte(doc("list", ok))); err != nil {
		t.Fatalf("a list ticked box by box: %v", err)
	}
	for why, d := range map[string]string{
		"a string parameter": doc("string", ok),
		"a slot step":        doc("list", `{id: tick, kind: slot, prompt: "{{toppings}}", each: toppings}`),
		"an unknown name":    doc("list", strings.Replace(ok, "each: toppings", "each: sauces", 1)),
	} {
		if _, err := schema.DecodePlaybook([]byte(d)); err == nil {
			t.Errorf("%s: decoded", why)
		}
	}
}
