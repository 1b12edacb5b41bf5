package schema_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
)

// resultsSnapshot is @playwright/mcp's snapshot of a page of results: an
// ad and a "Next page" link beside the list, a "cached" link in two of
// its items, and a form's boxes, the second ticked.
const resultsSnapshot = `- generic [ref=e1]:
  - link "Sponsored: cheap flights" [ref=e2]:
    - /url: /ad
  - list [ref=e3]:
    - listitem [ref=e4]:
      - link "Invoice 4821 Birch Ltd" [ref=e5]:
        - /url: /d/1
      - link "cached" [ref=e6]:
        - /url: /c/1
    - listitem [ref=e7]:
      - link "Receipt 1200 Cedar GmbH" [ref=e8]:
        - /url: /d/2
    - listitem [ref=e9]:
      - link "Quote 7700 Delta SA" [ref=e10]:
        - /url: /d/3
  - link "Next page" [ref=e11]:
    - /url: /next
  - checkbox "Basil" [ref=e12]
  - checkbox "Olives" [checked] [ref=e13]
  - checkbox "Tuna" [ref=e14]`

// TestPlacesInASnapshot: a place counts a list's items (not the links
// beside the list, nor a second link in an item) or a form's boxes; the
// Nth past the end, an item without the control, a second list, and a
// box half ticked are each stopped, never another control taken; a box
// already ticked is left as it is (AlreadyToggled).
func TestPlacesInASnapshot(t *testing.T) {
	nodes, _ := schema.SnapshotNodes(resultsSnapshot)
	at := func(name string) int {
		for i, n := range nodes {
			if n.Name == name {
				return i
			}
		}
		t.Fatalf("no %q", name)
		return -1
	}
	for name, want := range map[string]int{"Invoice 4821 Birch Ltd": 1, "Quote 7700 Delta SA": 3, "Tuna": 3} {
		if _, place, ok := schema.PlaceOf(nodes, at(name)); !ok || place != want {
			t.Errorf("%q: place %d (%v), want %d", name, place, ok, want)
		}
	}
	for _, name := range []string{"Sponsored: cheap flights", "cached", "Next page"} {
		if _, _, ok := schema.PlaceOf(nodes, at(name)); ok {
			t.Errorf("%q has a place", name)
		}
	}

	c, _, _ := schema.PlaceOf(nodes, at("Invoice 4821 Birch Ltd"))
	link := schema.Output{Place: &schema.Placing{Role: "link", Among: c.Among, Within: c.Within, Name: c.Name, Shapes: c.Shapes, Nth: "{{place|ordinal}}", Mark: "[ref="}, Token: "[a-z0-9]"}
	locate := func(o schema.Output, text, place string) (any, error) {
		return o.Locate(schema.World{Text: text}, schema.Bindings{Params: map[string]any{"place": place}})
	}
	for place, want := range map[string]string{"first": "e5", "2nd": "e8", "third": "e10"} {
		if got, err := locate(link, resultsSnapshot, place); err != nil || got != want {
			t.Errorf("the %s result: %v %v, want %s", place, got, err, want)
		}
	}
	if _, err := locate(link, resultsSnapshot, "fourth"); !errors.Is(err, schema.ErrBindingNotFound) {
		t.Errorf("the fourth of three: %v", err)
	}
	noLink := strings.Replace(resultsSnapshot, `      - link "Receipt 1200 Cedar GmbH" [ref=e8]:
        - /url: /d/2`, `      - text: Sponsored`, 1)
	if _, err := locate(link, noLink, "third"); !errors.Is(err, schema.ErrAmbiguous) {
		t.Errorf("an item without a link: %v", err)
	}
	// A link now before each title is not the link counted: a "Share"
	// link each, or an author's, named each its own way.
	before := func(names ...string) string {
		r := resultsSnapshot
		for k, title := range []string{"Invoice", "Receipt", "Quote"} {
			r = strings.Replace(r, `      - link "`+title, `      - link "`+names[k]+`" [ref=s`+title+`]
      - link "`+title, 1)
		}
		return r
	}
	// Learned on items of a title each: a link of a name that recurs,
	// after the title in some items, leaves the title first (counted as
	// before); one of its own before a title does not.
	plain := func(after, first string) string {
		return "- list [ref=l]:\n  - listitem [ref=i1]:\n    - link \"Alpha 1\" [ref=a]\n" +
			"  - listitem [ref=i2]:\n" + first + "    - link \"Bravo 2\" [ref=b]\n" + after +
			"  - listitem [ref=i3]:\n    - link \"Charlie 3\" [ref=c]\n" + after
	}
	titles, _ := schema.SnapshotNodes(plain("", ""))
	c, _, _ = schema.PlaceOf(titles, 4)
	second := schema.Output{Place: &schema.Placing{Role: "link", Among: c.Among, Within: c.Within, Name: c.Name, Shapes: c.Shapes, Nth: "{{place|ordinal}}", Mark: "[ref="}, Token: "[a-z0-9]"}
	if got, err := locate(second, plain("    - link \"cached\" [ref=x]\n", ""), "third"); err != nil || got != "c" {
		t.Errorf("a cached link after two titles: %v %v, want c", got, err)
	}
	if got, err := locate(second, plain("", "    - link \"alice\" [ref=x]\n"), "second"); !errors.Is(err, schema.ErrAmbiguous) {
		t.Errorf("an author's link before a title: %v %v, want ambiguous", got, err)
	}
	for name, page := range map[string]string{"a Share link": before("Share", "Share", "Share"), "an author's link": before("alice", "bob", "carol")} {
		if got, err := locate(link, page, "second"); !errors.Is(err, schema.ErrAmbiguous) {
			t.Errorf("%s before each title: %v %v, want ambiguous", name, got, err)
		}
	}
	// Radios a snapshot shows without their group's name are not counted.
	radios, _ := schema.SnapshotNodes("- generic [ref=e1]:\n  - radio \"Basic\" [checked] [ref=e2]\n  - radio \"Pro\" [ref=e3]\n  - radio \"Monthly\" [checked] [ref=e4]\n")
	if _, _, ok := schema.PlaceOf(radios, 2); ok {
		t.Errorf("a radio of a snapshot, its group unknown, has a place")
	}
	twoLists := resultsSnapshot + `
  - list [ref=e20]:
    - listitem [ref=e21]:
      - link "About" [ref=e22]`
	if _, err := locate(link, twoLists, "first"); !errors.Is(err, schema.ErrAmbiguous) {
		t.Errorf("two lists: %v", err)
	}

	// A box of another form above the form's own boxes: @playwright/mcp
	// shows both forms as generic containers.
	twoForms := `- generic [ref=e1]:
  - generic [ref=e3]:
    - generic [ref=e4]:
      - checkbox "Exact match" [ref=e5]
      - text: Exact match
    - textbox [ref=e6]
  - generic [ref=e7]:
    - generic [ref=e8]:
      - checkbox "Sports" [ref=e9]
    - generic [ref=e10]:
      - checkbox "Music" [ref=e11]
    - button "Save" [ref=e16]`
	formNodes, _ := schema.SnapshotNodes(twoForms)
	music := slices.IndexFunc(formNodes, func(n schema.ObservedNode) bool { return n.Name == "Music" })
	if _, _, ok := schema.PlaceOf(formNodes, music); ok {
		t.Errorf("Music counted across two forms")
	}

	c, _, _ = schema.PlaceOf(nodes, at("Basil"))
	box := schema.Output{Place: &schema.Placing{Role: "checkbox", Among: c.Among, Within: c.Within, Name: c.Name, Nth: "{{place|ordinal}}", Mark: "[ref="}, Token: "[a-z0-9]", State: "none"}
	if got, err := locate(box, resultsSnapshot, "third"); err != nil || got != "e14" {
		t.Errorf("the third box: %v %v", got, err)
	}
	if got, err := locate(box, resultsSnapshot, "second"); err != nil || got != (schema.AlreadyToggled{State: "checked"}) {
		t.Errorf("the second box, ticked already: %v %v, want it left as it is", got, err)
	}
	mixed := strings.Replace(resultsSnapshot, `"Olives" [checked]`, `"Olives" [checked=mixed]`, 1)
	if _, err := locate(box, mixed, "second"); !errors.Is(err, schema.ErrStateChanged) {
		t.Errorf("the second box, half ticked: %v", err)
	}
}

// TestAPlaceNoOneCanReadIsRefusedFirst: a place parameter the ordinal
// conversion cannot read ("three", "last") is refused when the
// parameters are bound, before any step acts.
func TestAPlaceNoOneCanReadIsRefusedFirst(t *testing.T) {
	p, err := schema.DecodePlaybook([]byte(`name: open-nth
intent: open the {{place}} result
params:
  place: {type: string, required: true}
steps:
  - id: open
    kind: deterministic
    tool: click
    target: {role: link, pick: {name: "*", among: items, rules: [{order: nth, value: "{{place|ordinal}}"}]}}
verify:
  - text_visible: opened
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, place := range []string{"three", "last", "#3"} {
		if _, err := p.Bind(map[string]string{"place": place}); !errors.Is(err, schema.ErrParamType) {
			t.Errorf("place %q: %v, want param_type", place, err)
		}
	}
	for _, place := range []string{"third", "3rd", " 3 "} {
		if _, err := p.Bind(map[string]string{"place": place}); err != nil {
			t.Errorf("place %q: %v", place, err)
		}
	}
}
