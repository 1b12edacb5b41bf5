package distiller

import (
	"testing"

	"github.com/rote-agent/rote/schema"
)

func TestLearnContractsKeepsKnownOnesAndDropsRecordAddresses(t *testing.T) {
	known := &schema.Contract{Tag: "button", InputType: "submit", FormAction: "/vendors", FormMethod: "post"}
	p := &schema.Playbook{Steps: []schema.Step{
		{ID: "open", Tool: "browser_click", Target: &schema.Target{Contract: known}},
		{ID: "row", Tool: "browser_click"},
		{ID: "send", Tool: "browser_press_key"},
		{ID: "look", Tool: "browser_snapshot"},
	}}
	read := map[string]*schema.Contract{
		"open": {Tag: "a", Href: "/elsewhere"},
		"row":  {Tag: "a", Href: "/inbox/M-01"},
		"send": {Tag: "input", InputType: "text", FormAction: "/vendors", FormMethod: "post"},
	}
	if n := learnContracts(p, read, nil); n != 2 {
		t.Fatalf("learned %d contracts, want 2", n)
	}
	if p.Steps[0].Target.Contract != known {
		t.Errorf("a contract the distillation knew was replaced: %+v", p.Steps[0].Target.Contract)
	}
	if c := p.Steps[1].Target.Contract; c == nil || c.Tag != "a" || c.Href != "" {
		t.Errorf("a link to one record must keep its tag and lose its href: %+v", c)
	}
	if read["row"].Href != "/inbox/M-01" {
		t.Errorf("learning changed the replay's own record of what it read")
	}
	if c := p.Steps[2].Target.Contract; c == nil || c.FormAction != "/vendors" {
		t.Errorf("the focused field's contract was not learned: %+v", c)
	}
	if p.Steps[3].Target != nil {
		t.Errorf("a step whose control was not read got a target: %+v", p.Steps[3].Target)
	}
}

// TestLearnContractsTemplatesTheRunsValues: a result link's address that
// holds the product searched for, escaped, is learned templated, so a
// replay for another product holds it to that product's address.
func TestLearnContractsTemplatesTheRunsValues(t *testing.T) {
	p := &schema.Playbook{Steps: []schema.Step{{ID: "open", Tool: "browser_click"}}}
	b := newBinder(schema.TaskSpec{Text: "Open the Oak desk", Params: map[string]string{"product": "Oak desk"}})
	learnContracts(p, map[string]*schema.Contract{"open": {Tag: "a", Href: "/search/submit?product=Oak+desk"}}, b)
	if c := p.Steps[0].Target.Contract; c == nil || c.Href != "/search/submit?product={{product|query}}" {
		t.Fatalf("contract %+v", c)
	}
}

// TestLearnContractsDropsTheAddressAPlaceHeld: a link a place chose (an
// output found by its place) is held to being a link, not to the address
// the shadow replay's place held: at replay the third result is another.
func TestLearnContractsDropsTheAddressAPlaceHeld(t *testing.T) {
	third := schema.Output{Place: &schema.Placing{Role: "link", Among: schema.AmongItems, Nth: "{{place|ordinal}}", Mark: "[ref="}, Token: "[a-z0-9]"}
	p := &schema.Playbook{Steps: []schema.Step{
		{ID: "look", Tool: "browser_snapshot", Outputs: map[string]schema.Output{"value": third}},
		{ID: "open", Tool: "browser_click", Args: map[string]any{"ref": "{{steps.look.value}}"}},
		{ID: "about", Tool: "browser_click", Args: map[string]any{"ref": "e9"}},
	}}
	learnContracts(p, map[string]*schema.Contract{"open": {Tag: "a", Href: "/charlie.html"}, "about": {Tag: "a", Href: "/about.html"}}, nil)
	if c := p.Steps[1].Target.Contract; c == nil || c.Tag != "a" || c.Href != "" {
		t.Errorf("the link a place chose: %+v, want a link of no fixed address", c)
	}
	if c := p.Steps[2].Target.Contract; c == nil || c.Href != "/about.html" {
		t.Errorf("a link by name lost its address: %+v", c)
	}
}
