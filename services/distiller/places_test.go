package distiller

import (
	"encoding/json"
	"testing"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
)

// results is @playwright/mcp's snapshot of a list of documents whose
// titles share nothing, beside an ad and a "Next page" link.
func results(titles ...string) string {
	s := "- link \"Sponsored\" [ref=a1]\n- list [ref=e1]:\n"
	for i, title := range titles {
		s += "  - listitem [ref=i" + string(rune('0'+i)) + "]:\n    - link \"" + title + "\" [ref=r" + string(rune('0'+i)) + "]\n"
	}
	return s + "- link \"Next page\" [ref=n1]\n"
}

// TestDistillCountsThePlaceTheTaskStates: "open the third result" among
// links whose names hold nothing in common, through @playwright/mcp,
// replays as the third item of the list on a page of other titles (an
// ad and a "Next page" link beside it not counted), not as the title
// clicked once, and what the page showed after it (the address and
// title of the record that place held) is not checked; with no place in
// the task the link is the one its name says, and the page it left is
// checked. Through rote mcp browser, "tick the second checkbox" is a check
// of the second box by place, into the state the click left it.
func TestDistillCountsThePlaceTheTaskStates(t *testing.T) {
	inventory := &schema.Inventory{Environment: schema.Environment{Tools: []schema.ToolSpec{{Name: "browser_snapshot"}, {Name: "browser_click"}}}}
	distill := func(params map[string]string, task string) (*Candidate, error) {
		r := mcpRun(params, task,
			[3]string{"browser_snapshot", `{}`, textResult(results("Invoice 4821 Birch Ltd", "Receipt 1200 Cedar GmbH", "Quote 7700 Delta SA"))},
			[3]string{"browser_click", `{"element":"Quote 7700 Delta SA","target":"r2"}`, textResult("- Page URL: http://127.0.0.1:8090/docs/quote.html\n- Page Title: A quote")})
		r.Inventories = append(r.Inventories, inventory)
		return Distill(r, Options{})
	}
	c, err := distill(map[string]string{"place": "third"}, "Open the third result")
	if err != nil {
		t.Fatal(err)
	}
	var o schema.Output
	for _, x := range c.Playbook.Steps[0].Outputs {
		o = x
	}
	if o.Place == nil || o.Place.Nth != "{{place|ordinal}}" || o.Place.Among != schema.AmongItems {
		t.Fatalf("output %+v, want the place the task states", o)
	}
	if x := c.Playbook.Steps[1].Expect; len(x) > 0 {
		t.Errorf("the click by place checks %v: the page the recorded place held, another at replay", x)
	}
	other := schema.ToolResultWorld([]byte(textResult(results("Contract 1 Fjord AS", "Order 2 Garnet BV", "Statement 3 Indigo Oy", "Quote 4 Ember Inc"))))
	if got, err := o.Locate(other, schema.Bindings{Params: map[string]any{"place": "2nd"}}); err != nil || got != "r1" {
		t.Fatalf("the second of other titles: %v %v, want r1", got, err)
	}
	c, err = distill(nil, "Open a document")
	if err != nil {
		t.Fatal(err)
	}
	if x := c.Playbook.Steps[1].Expect; len(x) == 0 {
		t.Errorf("the click by name checks nothing of the page it left")
	}
	for _, x := range c.Playbook.Steps[0].Outputs {
		if x.Place != nil || x.Line == "" {
			t.Fatalf("no place in the task, output %+v: want the link's own line", x)
		}
	}

	boxes := &schema.RecordSet{Pattern: "*", Within: "main", Among: schema.AmongControls,
		Records: []schema.Record{{Name: "Basil", Key: "Basil"}, {Name: "Olives", Key: "Olives"}, {Name: "Tuna", Key: "Tuna"}}}
	meta, _ := json.Marshal(tools.Among{Chosen: 1, Records: boxes})
	text, _ := json.Marshal("click ok (target by id)\ncontrol: {\"id\":\"cb0002\",\"role\":\"checkbox\",\"name\":\"Olives\"}\n~ cb0002 [checked focused]\n")
	clicked := `{"content":[{"type":"text","text":` + string(text) + `}],"_meta":{"` + tools.AmongMeta + `":` + string(meta) + `}}`
	tick := func(params map[string]string, task string) (*Candidate, error) {
		r := mcpRun(params, task, [3]string{"click", `{"target":"cb0002"}`, clicked}, [3]string{"done", `{"reason":"done"}`, textResult("ok")})
		r.Inventories = append(r.Inventories, &schema.Inventory{Environment: schema.Environment{Identity: schema.Identity{Server: RoteBrowserServer}}})
		return Distill(r, Options{})
	}
	c, err = tick(map[string]string{"place": "second"}, "Tick the second checkbox")
	if err != nil {
		t.Fatal(err)
	}
	s := c.Playbook.Steps[0]
	if s.Tool != "check" || s.Args["checked"] != true || s.Target.Pick == nil || s.Target.Pick.Among != schema.AmongControls || s.Target.Pick.Rules[0].Value != "{{place|ordinal}}" {
		t.Fatalf("step %s %v, target %+v: want a check of the box by its place", s.Tool, s.Args, s.Target)
	}
	checkText, _ := json.Marshal("check ok (target by id)\ncontrol: {\"id\":\"cb0002\",\"role\":\"checkbox\",\"name\":\"Olives\"}\n~ cb0002 [checked focused]\n")
	checked := `{"content":[{"type":"text","text":` + string(checkText) + `}],"_meta":{"` + tools.AmongMeta + `":` + string(meta) + `}}`
	r := mcpRun(map[string]string{"place": "second"}, "Tick the second checkbox", [3]string{"check", `{"target":"cb0002","checked":true}`, checked}, [3]string{"done", `{"reason":"done"}`, textResult("ok")})
	r.Inventories = append(r.Inventories, &schema.Inventory{Environment: schema.Environment{Identity: schema.Identity{Server: RoteBrowserServer}}})
	if c, err := Distill(r, Options{}); err != nil {
		t.Fatalf("a box checked (not clicked) by its place: %v", err)
	} else if s := c.Playbook.Steps[0]; s.Tool != "check" || s.Args["checked"] != true || s.Target.Pick == nil {
		t.Fatalf("a box checked by its place: step %s %v", s.Tool, s.Args)
	}
	c, err = tick(nil, "Tick Olives")
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Playbook.Steps[0]; s.Target.Pick != nil || s.Tool != "check" || s.Args["target"] != "cb0002" {
		t.Fatalf("no place in the task: step %s %v, target %+v: want the box its id and name say", s.Tool, s.Args, s.Target)
	}
}

// TestDistillRunsOfPlacesDescribedByTitle: two @playwright/mcp runs of
// "open the Nth result", the third in one and the first in the other,
// whose clicks describe their link by its title (element), are one
// playbook: the description is for people, the place is the parameter.
func TestDistillRunsOfPlacesDescribedByTitle(t *testing.T) {
	inventory := &schema.Inventory{Environment: schema.Environment{Tools: []schema.ToolSpec{{Name: "browser_snapshot"}, {Name: "browser_click"}}}}
	run := func(id, place, title, ref string) *schema.RunFold {
		r := mcpRun(map[string]string{"place": place}, "Open the "+place+" result",
			[3]string{"browser_snapshot", `{}`, textResult(results("Invoice 4821 Birch Ltd", "Receipt 1200 Cedar GmbH", "Quote 7700 Delta SA"))},
			[3]string{"browser_click", `{"element":"` + title + `","target":"` + ref + `"}`, textResult("opened")})
		r.Spec.RunID = id
		r.Inventories = append(r.Inventories, inventory)
		return r
	}
	c, err := DistillRuns([]*schema.RunFold{run("run-3", "third", "Quote 7700 Delta SA", "r2"), run("run-1", "first", "Invoice 4821 Birch Ltd", "r0")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range c.Playbook.Steps[0].Outputs {
		if o.Place == nil {
			t.Fatalf("output %+v, want the place", o)
		}
	}
}
