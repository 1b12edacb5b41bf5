package actuator

import (
	"errors"
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
)

var samplePage = []schema.ObservedNode{
	{ID: "aaaaaa", Role: "textbox", Name: "Company name", Context: "main › Register a vendor"},
	{ID: "bbbbbb", Role: "link", Name: "Edit", Context: "main › Records › Northwind"},
	{ID: "cccccc", Role: "link", Name: "Edit", Context: "main › Records › Contoso"},
	{ID: "dddddd", Role: "button", Name: "Next", Context: "main › Register a vendor"},
	{ID: "eeeeee", Role: "textbox", Name: "Tax ID", Context: "main › Register a vendor"},
}

func TestResolveLadder(t *testing.T) {
	cases := []struct {
		target schema.Target
		want   string
		rung   schema.Resolution
		err    error
	}{
		{schema.Target{ID: "dddddd", Role: "button", Name: "Next"}, "dddddd", schema.ResolvedByID, nil},
		{schema.Target{ID: "gone00", Role: "button", Name: "Next"}, "dddddd", schema.ResolvedByRoleName, nil},
		{schema.Target{ID: "gone00", Role: "link", Name: "Edit", Near: "Contoso"}, "cccccc", schema.ResolvedByText, nil},
		{schema.Target{Role: "link", Name: "Edit"}, "", "", schema.ErrAmbiguous},
		{schema.Target{Role: "link", Name: "Edit", Near: "Records"}, "", "", schema.ErrAmbiguous},
		{schema.Target{Role: "textbox", Name: "Legal entity name", Near: "Register a vendor"}, "", "", schema.ErrAmbiguous},
		{schema.Target{Role: "button", Name: "Register", Near: "Register a vendor"}, "dddddd", schema.ResolvedByText, nil},
		{schema.Target{Role: "button", Name: "Delete"}, "", "", schema.ErrNotFound},
		{schema.Target{ID: "zzzzzz"}, "", "", schema.ErrNotFound},
		{schema.Target{}, "", "", schema.ErrInvalid},
	}
	for _, c := range cases {
		got, rung, err := resolve(&c.target, samplePage)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%+v: err %v, want %v", c.target, err, c.err)
			}
			continue
		}
		if err != nil || got.ID != c.want || rung != c.rung {
			t.Errorf("%+v: got %v by %s (%v), want %s by %s", c.target, got, rung, err, c.want, c.rung)
		}
	}
}

// Twins (the same role, name and context) differ only by order. A form
// inserted before the recorded one takes its ids, so a recorded target
// (id with role or name) refuses them; an id alone, picked from the
// render just shown, means the one at that place.
func TestResolveRefusesTwinsForRecordedTargets(t *testing.T) {
	page := []schema.ObservedNode{
		{ID: "ffffff", Role: "button", Name: "Register", Context: "main › Register a vendor"},
		{ID: "ffffff~2", Role: "button", Name: "Register", Context: "main › Register a vendor"},
		{ID: "gggggg", Role: "button", Name: "Cancel", Context: "main › Register a vendor"},
	}
	for _, target := range []schema.Target{
		{ID: "ffffff", Role: "button", Name: "Register"},
		{ID: "ffffff~2", Name: "Register"},
	} {
		if _, _, err := resolve(&target, page); !errors.Is(err, schema.ErrAmbiguous) {
			t.Errorf("%+v: err %v, want ambiguous", target, err)
		}
	}
	for _, target := range []schema.Target{{ID: "ffffff~2"}, {ID: "gggggg", Role: "button", Name: "Cancel"}} {
		if got, rung, err := resolve(&target, page); err != nil || got.ID != target.ID || rung != schema.ResolvedByID {
			t.Errorf("%+v: got %v by %s (%v), want itself by id", target, got, rung, err)
		}
	}
}

// TestUsableRefusesWhatThePageDoesNotTake: a disabled control is not
// clicked, filled, chosen, checked, set or dragged, and a read-only one
// is not filled or set; looking at one (hover, extract) is not refused,
// nor is clicking a read-only one.
func TestUsableRefusesWhatThePageDoesNotTake(t *testing.T) {
	disabled := &schema.ObservedNode{Role: "button", Name: "Pay", States: []string{"focused", "disabled"}}
	readonly := &schema.ObservedNode{Role: "textbox", Name: "IBAN", States: []string{"readonly"}}
	plain := &schema.ObservedNode{Role: "textbox", Name: "Name"}
	cases := []struct {
		kind schema.ActionKind
		node *schema.ObservedNode
		want string // "" allowed; else what the refusal says
	}{
		{schema.ActClick, disabled, `button "Pay" is disabled: refusing to click it`},
		{schema.ActFill, disabled, "is disabled: refusing to fill"},
		{schema.ActSelect, disabled, "is disabled: refusing to select"},
		{schema.ActCheck, disabled, "is disabled: refusing to check"},
		{schema.ActSetValue, disabled, "is disabled: refusing to set_value"},
		{schema.ActDrag, disabled, "is disabled: refusing to drag"},
		{schema.ActHover, disabled, ""},
		{schema.ActExtract, disabled, ""},
		{schema.ActFill, readonly, `textbox "IBAN" is read-only: refusing to fill it`},
		{schema.ActSetValue, readonly, "is read-only: refusing to set_value"},
		{schema.ActClick, readonly, ""},
		{schema.ActSelect, readonly, ""},
		{schema.ActFill, plain, ""},
		{schema.ActClick, plain, ""},
	}
	for _, c := range cases {
		t.Run(string(c.kind)+" "+c.node.Name, func(t *testing.T) {
			err := usable(c.kind, c.node)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (!errors.Is(err, schema.ErrStateChanged) || !strings.Contains(err.Error(), c.want)):
				t.Errorf("err %v, want state_changed saying %q", err, c.want)
			}
		})
	}
}

// TestAmbiguousNamesAtMostFiveCandidates: a refusal says how many
// candidates there were and what the target was, and lists five ids at
// most.
func TestAmbiguousNamesAtMostFiveCandidates(t *testing.T) {
	var nodes []*schema.ObservedNode
	for _, id := range []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7"} {
		nodes = append(nodes, &schema.ObservedNode{ID: id, Role: "button", Name: "Delete"})
	}
	cases := []struct {
		name   string
		target schema.Target
		n      int
		want   string
	}{
		{"five", schema.Target{Role: "button", Name: "Delete"}, 5, `5 elements are button "Delete" (a1, a2, a3, a4, a5): refusing to guess`},
		{"seven", schema.Target{Role: "button", Name: "Delete"}, 7, `7 elements are button "Delete" (a1, a2, a3, a4, a5, and 2 more): refusing to guess`},
		{"every part of the target", schema.Target{ID: "a1", Role: "button", Name: "Delete", Near: "Invoices"}, 2, `2 elements are id a1, button "Delete", near "Invoices" (a1, a2)`},
		{"near alone", schema.Target{Near: "Invoices"}, 2, `2 elements are near "Invoices" (a1, a2)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := ambiguous(&c.target, nodes[:c.n])
			if !errors.Is(err, schema.ErrAmbiguous) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want ambiguous saying %q", err, c.want)
			}
		})
	}
}

// TestResolveRecordedRecordsTheChoice: a pick chooses by its rules and
// says why; a click on one of several sibling records records what it
// was chosen among, a fill does not (it chose no record).
func TestResolveRecordedRecordsTheChoice(t *testing.T) {
	files := []schema.ObservedNode{
		{ID: "in", Role: "button", Name: "Sign in", Actionable: true, Context: "main"},
		{ID: "up", Role: "button", Name: "Sign up", Actionable: true, Context: "main"},
		{ID: "nov", Role: "link", Name: "Download RPT-2026-11 (CSV)", Actionable: true, Context: "main › Files"},
		{ID: "oct", Role: "link", Name: "Download RPT-2026-10 (CSV)", Actionable: true, Context: "main › Files"},
		{ID: "help", Role: "link", Name: "Help", Actionable: true, Context: "main › Files"},
		{ID: "home", Role: "link", Name: "Home", Actionable: true, Context: "banner"},
	}
	cases := []struct {
		name   string
		action schema.Action
		want   string
		rung   schema.Resolution
		among  int // records chosen among; 0 none
		chosen int
		picked bool
		err    error
	}{
		{"a click on a record", schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "link", Name: "Download RPT-2026-10 (CSV)"}},
			"oct", schema.ResolvedByRoleName, 2, 1, false, nil},
		{"a hover on a record", schema.Action{Kind: schema.ActHover, Target: &schema.Target{ID: "nov"}},
			"nov", schema.ResolvedByID, 2, 0, false, nil},
		{"a click on a control beside others named otherwise", schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: "Sign up"}},
			"up", schema.ResolvedByRoleName, 0, 0, false, nil},
		{"a click on a lone control", schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "link", Name: "Home"}},
			"home", schema.ResolvedByRoleName, 0, 0, false, nil},
		{"an extract of a record", schema.Action{Kind: schema.ActExtract, Target: &schema.Target{Role: "link", Name: "Download RPT-2026-10 (CSV)"}},
			"oct", schema.ResolvedByRoleName, 0, 0, false, nil},
		{"a pick", schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "link", Pick: &schema.Pick{Name: "Download * (CSV)", Within: "main › Files", Rules: []schema.PickRule{{Order: schema.OrderLast}}}}},
			"oct", schema.ResolvedByRule, 0, 0, true, nil},
		{"a pick that finds nothing", schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "link", Pick: &schema.Pick{Name: "Export * (PDF)", Rules: []schema.PickRule{{Order: schema.OrderFirst}}}}},
			"", "", 0, 0, false, schema.ErrNotFound},
		{"a missing control", schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "link", Name: "Archive"}},
			"", "", 0, 0, false, schema.ErrNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := &schema.BrowserAction{Action: c.action}
			node, rung, err := resolveRecorded(ev, files)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err %v, want %v", err, c.err)
				}
				return
			}
			if err != nil || node.ID != c.want || rung != c.rung {
				t.Fatalf("resolved %+v by %s (%v), want %s by %s", node, rung, err, c.want, c.rung)
			}
			switch {
			case c.among == 0 && ev.Among != nil:
				t.Errorf("recorded a choice among %+v", ev.Among)
			case c.among > 0 && (ev.Among == nil || len(ev.Among.Records) != c.among || ev.Chosen != c.chosen):
				t.Errorf("among %+v chosen %d, want %d records, chosen %d", ev.Among, ev.Chosen, c.among, c.chosen)
			}
			if (ev.Picked != "") != c.picked {
				t.Errorf("picked %q", ev.Picked)
			}
		})
	}
}

// Twin fields told apart by order alone: a recorded target that counted
// them (Twins) takes its place among them while the page shows as many,
// as the agent did when it acted, all of the recorded kind and form; a
// page with more or fewer of them, one in another form, or twins that
// are buttons (records of a list), stay ambiguous.
func TestResolveTwinFieldsByTheirRecordedPlace(t *testing.T) {
	signIn := &schema.Contract{Tag: "input", InputType: "text", FormAction: "/session", FormMethod: "post"}
	fields := func(n int, role string) []schema.ObservedNode {
		var page []schema.ObservedNode
		for i := 1; i <= n; i++ {
			id := "hhhhhh"
			if i > 1 {
				id += "~" + string(rune('0'+i))
			}
			page = append(page, schema.ObservedNode{ID: id, Role: role, Context: "main › Sign in", Contract: signIn})
		}
		return page
	}
	otherForm := fields(2, "textbox")
	otherForm[0].Contract = &schema.Contract{Tag: "input", InputType: "text", FormAction: "/search", FormMethod: "get"}
	cases := []struct {
		name   string
		target schema.Target
		page   []schema.ObservedNode
		want   string
		err    error
	}{
		{"second of two, as recorded", schema.Target{ID: "hhhhhh~2", Role: "textbox", Twins: 2, Contract: signIn}, fields(2, "textbox"), "hhhhhh~2", nil},
		{"first of two, as recorded", schema.Target{ID: "hhhhhh", Role: "textbox", Twins: 2, Contract: signIn}, fields(2, "textbox"), "hhhhhh", nil},
		{"a third field appeared", schema.Target{ID: "hhhhhh~2", Role: "textbox", Twins: 2, Contract: signIn}, fields(3, "textbox"), "", schema.ErrAmbiguous},
		{"one of them in another form", schema.Target{ID: "hhhhhh~2", Role: "textbox", Twins: 2, Contract: signIn}, otherForm, "", schema.ErrAmbiguous},
		{"recorded without a contract", schema.Target{ID: "hhhhhh~2", Role: "textbox", Twins: 2}, fields(2, "textbox"), "", schema.ErrAmbiguous},
		{"recorded without a count", schema.Target{ID: "hhhhhh~2", Role: "textbox", Contract: signIn}, fields(2, "textbox"), "", schema.ErrAmbiguous},
		{"buttons are records, not fields", schema.Target{ID: "hhhhhh~2", Role: "button", Twins: 2, Contract: signIn}, fields(2, "button"), "", schema.ErrAmbiguous},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, rung, err := resolve(&c.target, c.page)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err %v, want %v", err, c.err)
				}
				return
			}
			if err != nil || got.ID != c.want || rung != schema.ResolvedByPlace {
				t.Fatalf("got %v by %s (%v), want %s by place", got, rung, err, c.want)
			}
		})
	}
}

// TestResolveTwinsByTheTextJustBefore: one Add button an item, each
// after its item's name and nothing else telling them apart: near names
// the item whose text stands just before the button, exactly; a longer
// name that holds it, or an item the page lacks, finds none.
func TestResolveTwinsByTheTextJustBefore(t *testing.T) {
	page := func(items ...string) []schema.ObservedNode {
		var nodes []schema.ObservedNode
		for i, it := range items {
			nodes = append(nodes, schema.ObservedNode{ID: "t" + it, Role: "text", Name: it, Context: "main › Shop"},
				schema.ObservedNode{ID: "add" + strings.Repeat("~", min(i, 1)) + string(rune('1'+i)), Role: "button", Name: "Add", Actionable: true, Context: "main › Shop"})
		}
		return nodes
	}
	nodes := page("Walnut tray", "Cork board", "Tin box")
	got, rung, err := resolve(&schema.Target{Role: "button", Name: "Add", Near: "cork board"}, nodes)
	if err != nil || got != &nodes[3] || rung != schema.ResolvedByText {
		t.Fatalf("the Add of Cork board: %v by %s (%v)", got, rung, err)
	}
	for _, items := range [][]string{{"Walnut tray", "Cork board XL", "Tin box"}, {"Walnut tray", "Tin box"}, {"Cork board", "Cork board"}} {
		if got, _, err := resolve(&schema.Target{Role: "button", Name: "Add", Near: "Cork board"}, page(items...)); !errors.Is(err, schema.ErrAmbiguous) {
			t.Errorf("%q: %v (%v), want ambiguous", items, got, err)
		}
	}
}
