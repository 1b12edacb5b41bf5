package records_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/records"
)

// reportsPage is a page of reports as perception distills it: a header
// row, then per report a row and its Download link, newest first, then
// the navigation around them.
func reportsPage(months ...int) []schema.ObservedNode {
	nodes := []schema.ObservedNode{
		{Role: "link", Name: "Reports", Actionable: true, Context: "navigation Main"},
		{Role: "link", Name: "Vendors", Actionable: true, Context: "navigation Main"},
		{Role: "heading", Name: "Reports", Context: "main"},
		{Role: "row", Name: "Report | Period | Published | File", Context: "main › Reports"},
	}
	for _, m := range months {
		y, mo := 2026+(m-1)/12, (m-1)%12+1
		period := fmt.Sprintf("%s %d", []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}[mo-1], y)
		title := "Operations report " + period
		pub := fmt.Sprintf("%d-%02d-01", y+mo/12, mo%12+1)
		nodes = append(nodes,
			schema.ObservedNode{Role: "row", Name: title + " | " + period + " | " + pub + " | Download", Context: "main › Reports"},
			schema.ObservedNode{Role: "link", Name: "Download " + title, Actionable: true, Context: "main › Reports › " + title})
	}
	return nodes
}

func indexOf(t *testing.T, nodes []schema.ObservedNode, name string) int {
	t.Helper()
	for i, n := range nodes {
		if n.Name == name && n.Actionable {
			return i
		}
	}
	t.Fatalf("no control %q", name)
	return -1
}

// TestAroundTableRows: a row's control is one of the records of
// its table, keyed by the row's first cell, with the header read.
func TestAroundTableRows(t *testing.T) {
	nodes := reportsPage(11, 10, 9)
	set, chosen, ok := records.Around(nodes, indexOf(t, nodes, "Download Operations report October 2026"))
	if !ok || chosen != 1 || len(set.Records) != 3 || !set.Rows || set.Pattern != "Download *" || set.Within != "main › Reports" {
		t.Fatalf("records %+v chosen %d ok %v", set, chosen, ok)
	}
	if got := strings.Join(set.Header, "|"); got != "Report|Period|Published|File" {
		t.Errorf("header %q", got)
	}
	if set.Records[0].Key != "Operations report November 2026" || set.Records[2].Cells[2] != "2026-10-01" {
		t.Errorf("records %+v", set.Records)
	}
	if _, _, ok := records.Around(nodes, indexOf(t, nodes, "Vendors")); ok {
		t.Error("navigation links are records")
	}
}

// TestAroundList: entries of a list whose names share words and
// differ in data are records; names that differ in words are not.
func TestAroundList(t *testing.T) {
	nodes := []schema.ObservedNode{
		{Role: "button", Name: "Sign in", Actionable: true, Context: "main"},
		{Role: "button", Name: "Sign up", Actionable: true, Context: "main"},
		{Role: "link", Name: "Download RPT-2026-11 (CSV)", Actionable: true, Context: "main › Files"},
		{Role: "link", Name: "Download RPT-2026-10 (CSV)", Actionable: true, Context: "main › Files"},
		{Role: "link", Name: "Help", Actionable: true, Context: "main › Files"},
	}
	if _, _, ok := records.Around(nodes, 0); ok {
		t.Error(`"Sign in" beside "Sign up" is a choice among records`)
	}
	set, chosen, ok := records.Around(nodes, 3)
	if !ok || chosen != 1 || set.Pattern != "Download * (CSV)" || set.Rows || len(set.Records) != 2 || set.Records[1].Key != "RPT-2026-10" {
		t.Fatalf("records %+v chosen %d ok %v", set, chosen, ok)
	}
	p := schema.Pick{Name: set.Pattern, Within: set.Within, Rules: []schema.PickRule{{Order: schema.OrderLast}}}
	if i, _, err := records.Choose(&p, "link", nodes); err != nil || i != 3 {
		t.Errorf("last: %d %v", i, err)
	}
}

// TestPickFollowsTheData: the rules learned on one page choose on the
// next by what it holds; when they no longer agree, or cannot read the
// page, the step stops with a typed reason.
func TestPickFollowsTheData(t *testing.T) {
	latest := schema.Pick{Name: "Download *", Rows: true, Within: "main › Reports", Rules: []schema.PickRule{
		{Order: schema.OrderNewest, By: "Published"}, {Order: schema.OrderNewest, By: "Period"}, {Order: schema.OrderFirst}}}
	if err := latest.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		months []int
		want   string
		code   schema.Code
	}{
		{"as learned", []int{11, 10, 9}, "Download Operations report November 2026", ""},
		{"a newer report on top", []int{13, 12, 11, 10}, "Download Operations report January 2027", ""},
		{"a newer report at the bottom", []int{11, 10, 12}, "", schema.CodeAmbiguous},
		{"no reports", nil, "", schema.CodeNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			nodes := reportsPage(c.months...)
			i, why, err := records.Choose(&latest, "link", nodes)
			if c.code != "" {
				var se *schema.Error
				if !errors.As(err, &se) || se.Code != c.code {
					t.Fatalf("err %v, want %s", err, c.code)
				}
				return
			}
			if err != nil || nodes[i].Name != c.want {
				t.Fatalf("chose %q (%v), want %q", nodes[i].Name, err, c.want)
			}
			if !strings.Contains(why, "newest by Published") || !strings.Contains(why, c.want) {
				t.Errorf("evaluation %q", why)
			}
		})
	}
	gone := latest
	gone.Rules = []schema.PickRule{{Order: schema.OrderNewest, By: "Released"}}
	if _, _, err := records.Choose(&gone, "link", reportsPage(11, 10)); err == nil || !strings.Contains(err.Error(), `no column "Released"`) {
		t.Errorf("a rule by a column that is gone: %v", err)
	}
	byTitle := schema.Pick{Name: "Download *", Rows: true, Within: "main › Reports", Rules: []schema.PickRule{{Order: schema.OrderNewest}}}
	if _, _, err := records.Choose(&byTitle, "link", reportsPage(11, 10)); err == nil || !strings.Contains(err.Error(), "not a date") {
		t.Errorf("a date rule over keys that are no dates: %v", err)
	}
}

// TestPickIsTheWholeField: an is rule chooses the record whose field is
// the value, case and spacing aside; a record that only holds the value
// ("Glacier safety memo 99 — Draft" for "Glacier safety memo 99") is
// another record, and two records that are the value stop the pick.
func TestPickIsTheWholeField(t *testing.T) {
	var nodes []schema.ObservedNode
	for _, title := range []string{"Glacier safety memo 99 — Draft", "Glacier safety memo 9", "Harbor log", "Harbor log"} {
		nodes = append(nodes,
			schema.ObservedNode{Role: "row", Name: title + " | admin | 2026-11-02", Context: "main › Posts"},
			schema.ObservedNode{Role: "link", Name: "Trash", Actionable: true, Context: "main › Posts › " + title})
	}
	pick := func(v string) (string, error) {
		p := schema.Pick{Name: "Trash", Rows: true, Within: "main › Posts", Rules: []schema.PickRule{{Order: schema.OrderIs, Value: v}}}
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		i, _, err := records.Choose(&p, "link", nodes)
		if err != nil {
			return "", err
		}
		return nodes[i].Context, nil
	}
	if got, err := pick("glacier  safety memo 9"); err != nil || got != "main › Posts › Glacier safety memo 9" {
		t.Errorf("memo 9: %q %v", got, err)
	}
	if got, err := pick("Glacier safety memo 99 — Draft"); err != nil || !strings.HasSuffix(got, "memo 99 — Draft") {
		t.Errorf("memo 99 — Draft: %q %v", got, err)
	}
	for _, v := range []string{"Glacier safety memo 99", "Glacier safety memo 7", "Glacier"} {
		if got, err := pick(v); !errors.Is(err, schema.ErrNotFound) {
			t.Errorf("%q, which no row is: %q %v", v, got, err)
		}
	}
	if _, err := pick("Harbor log"); !errors.Is(err, schema.ErrAmbiguous) {
		t.Errorf("a value two rows are: %v", err)
	}
}

// TestPickWithoutWithin: a pick that names no context chooses among the
// first table of such records on the page.
func TestPickWithoutWithin(t *testing.T) {
	p := schema.Pick{Name: "Download *", Rows: true, Rules: []schema.PickRule{{Order: schema.OrderOldest, By: "Published"}}}
	nodes := reportsPage(11, 10, 9)
	if i, _, err := records.Choose(&p, "link", nodes); err != nil || nodes[i].Name != "Download Operations report September 2026" {
		t.Fatalf("chose %d: %v", i, err)
	}
}

// TestTakeKeysAndLists: an extract reads the first records of a list in
// the page's order, a judgment the keys of all of them, and a page's
// lists are its runs of one role in one context.
func TestTakeKeysAndLists(t *testing.T) {
	nodes := reportsPage(11, 10, 9)
	p := &schema.Pick{Name: "Download *", Rows: true, Within: "main › Reports", Rules: []schema.PickRule{{Order: schema.OrderFirst}}}
	names, why, err := records.Take(p, "link", nodes, 2)
	if err != nil || strings.Join(names, "|") != "Download Operations report November 2026|Download Operations report October 2026" || !strings.HasPrefix(why, "the first 2 of 3 link records") {
		t.Errorf("take: %q %q %v", names, why, err)
	}
	keys, err := records.Keys(p, "link", nodes)
	if err != nil || strings.Join(keys, "|") != "Operations report November 2026|Operations report October 2026|Operations report September 2026" {
		t.Errorf("keys: %q %v", keys, err)
	}
	if _, err := records.Keys(p, "link", reportsPage(11, 11)); !errors.Is(err, schema.ErrAmbiguous) {
		t.Errorf("keys that repeat: %v", err)
	}
	if _, err := records.Keys(p, "button", nodes); !errors.Is(err, schema.ErrNotFound) {
		t.Errorf("no such records: %v", err)
	}
	lists := records.Lists(nodes)
	if len(lists) != 2 || lists[0].Role != "link" || lists[0].Within != "navigation Main" || len(lists[0].Records) != 2 ||
		lists[1].Role != "row" || len(lists[1].Records) != 4 || lists[1].Records[1].Key != nodes[4].Name {
		t.Errorf("lists %+v", lists)
	}
}

// TestChooseByPlaceCountsRows: "the third person" counts the table's
// rows; with a row that has no Archive button (already archived), the
// buttons alone would make another row the third: refused. With every
// row's button there, the third row's is chosen.
func TestChooseByPlaceCountsRows(t *testing.T) {
	table := func(withButton ...bool) []schema.ObservedNode {
		nodes := []schema.ObservedNode{{Role: "row", Name: "Name | Role", Cells: []string{"Name", "Role"}, Context: "main › Members"}}
		for i, has := range withButton {
			name := []string{"Ada", "Bob", "Carol", "Dan"}[i]
			nodes = append(nodes, schema.ObservedNode{Role: "row", Name: name + " | Editor", Cells: []string{name, "Editor"}, Context: "main › Members"})
			if has {
				nodes = append(nodes, schema.ObservedNode{ID: "ar" + name, Role: "button", Name: "Archive", Actionable: true, Context: "main › Members › " + name})
			}
		}
		return nodes
	}
	pick := &schema.Pick{Name: "Archive", Rows: true, Within: "main › Members", Rules: []schema.PickRule{{Order: schema.OrderNth, Value: "3"}}}
	nodes := table(true, true, true, true)
	if i, _, err := records.Choose(pick, "button", nodes); err != nil || nodes[i].ID != "arCarol" {
		t.Fatalf("the third row's button: %d %v", i, err)
	}
	if i, _, err := records.Choose(pick, "button", table(true, false, true, true)); !errors.Is(err, schema.ErrAmbiguous) {
		t.Fatalf("with Bob's row archived: chose %d (%v), want ambiguous", i, err)
	}
}

// TestPlacesCountItemsOrBoxes: a control among siblings whose names hold
// no data has a place (Places) only in a list's items or among a form's
// boxes, and a pick by that place chooses on a page of other names: the
// third item's first link, the second box; an item without a link stops.
func TestPlacesCountItemsOrBoxes(t *testing.T) {
	page := func(titles ...string) []schema.ObservedNode {
		nodes := []schema.ObservedNode{{Role: "link", Name: "Sponsored", Actionable: true, Context: "main"}}
		for i, title := range titles {
			if title != "" {
				nodes = append(nodes, schema.ObservedNode{ID: fmt.Sprint("r", i+1), Role: "link", Name: title, Actionable: true, Context: "main", List: 1, Item: i + 1},
					schema.ObservedNode{Role: "link", Name: "cached", Actionable: true, Context: "main", List: 1, Item: i + 1})
			}
		}
		for _, box := range []string{"Basil", "Olives", "Tuna"} {
			nodes = append(nodes, schema.ObservedNode{ID: "cb" + box, Role: "checkbox", Name: box, Actionable: true, Context: "main › form Order"})
		}
		return append(nodes, schema.ObservedNode{Role: "link", Name: "Next page", Actionable: true, Context: "main"})
	}
	learned := page("Invoice Birch", "Receipt Cedar", "Quote Delta")
	set, chosen, ok := records.Places(learned, 5)
	if !ok || set.Among != schema.AmongItems || chosen != 2 || len(set.Records) != 3 {
		t.Fatalf("the third result: %+v %d %v", set, chosen, ok)
	}
	if _, _, ok := records.Places(learned, 0); ok {
		t.Errorf("the ad outside the list has a place")
	}
	third := &schema.Pick{Name: set.Pattern, Within: set.Within, Among: set.Among, Shapes: set.Shapes, Rules: []schema.PickRule{{Order: schema.OrderNth, Value: "3"}}}
	if len(third.Shapes) != 1 || third.Shapes[0] != "link:* | link:cached" {
		t.Fatalf("the items' shapes: %q", third.Shapes)
	}
	other := page("Contract Fjord", "Order Garnet", "Statement Indigo", "Quote Ember")
	if i, _, err := records.Choose(third, "link", other); err != nil || other[i].ID != "r3" {
		t.Fatalf("the third of other titles: %d %v", i, err)
	}
	if i, _, err := records.Choose(third, "link", page("Contract Fjord", "", "Statement Indigo")); !errors.Is(err, schema.ErrAmbiguous) {
		t.Fatalf("an item without its link: chose %d (%v), want ambiguous", i, err)
	}
	authors := page("Contract Fjord", "Order Garnet", "Statement Indigo")
	for i, n := range authors {
		if n.Item > 0 && n.Name != "cached" {
			authors = slices.Insert(authors, i, schema.ObservedNode{Role: "link", Name: "author " + n.Name, Actionable: true, Context: "main", List: 1, Item: n.Item})
			break
		}
	}
	if i, _, err := records.Choose(third, "link", authors); !errors.Is(err, schema.ErrAmbiguous) {
		t.Fatalf("an author's link before a title: chose %d (%v), want ambiguous", i, err)
	}
	box := &schema.Pick{Name: "*", Within: "main › form Order", Among: schema.AmongControls, Rules: []schema.PickRule{{Order: schema.OrderNth, Value: "2"}}}
	if i, _, err := records.Choose(box, "checkbox", other); err != nil || other[i].ID != "cbOlives" {
		t.Fatalf("the second box: %d %v", i, err)
	}
}
