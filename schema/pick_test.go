package schema_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/schema"
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

// TestRecordsAroundTableRows: a row's control is one of the records of
// its table, keyed by the row's first cell, with the header read.
func TestRecordsAroundTableRows(t *testing.T) {
	nodes := reportsPage(11, 10, 9)
	set, chosen, ok := schema.RecordsAround(nodes, indexOf(t, nodes, "Download Operations report October 2026"))
	if !ok || chosen != 1 || len(set.Records) != 3 || !set.Rows || set.Pattern != "Download *" || set.Within != "main › Reports" {
		t.Fatalf("records %+v chosen %d ok %v", set, chosen, ok)
	}
	if got := strings.Join(set.Header, "|"); got != "Report|Period|Published|File" {
		t.Errorf("header %q", got)
	}
	if set.Records[0].Key != "Operations report November 2026" || set.Records[2].Cells[2] != "2026-10-01" {
		t.Errorf("records %+v", set.Records)
	}
	if _, _, ok := schema.RecordsAround(nodes, indexOf(t, nodes, "Vendors")); ok {
		t.Error("navigation links are records")
	}
}

// TestRecordsAroundList: entries of a list whose names share words and
// differ in data are records; names that differ in words are not.
func TestRecordsAroundList(t *testing.T) {
	nodes := []schema.ObservedNode{
		{Role: "button", Name: "Sign in", Actionable: true, Context: "main"},
		{Role: "button", Name: "Sign up", Actionable: true, Context: "main"},
		{Role: "link", Name: "Download RPT-2026-11 (CSV)", Actionable: true, Context: "main › Files"},
		{Role: "link", Name: "Download RPT-2026-10 (CSV)", Actionable: true, Context: "main › Files"},
		{Role: "link", Name: "Help", Actionable: true, Context: "main › Files"},
	}
	if _, _, ok := schema.RecordsAround(nodes, 0); ok {
		t.Error(`"Sign in" beside "Sign up" is a choice among records`)
	}
	set, chosen, ok := schema.RecordsAround(nodes, 3)
	if !ok || chosen != 1 || set.Pattern != "Download * (CSV)" || set.Rows || len(set.Records) != 2 || set.Records[1].Key != "RPT-2026-10" {
		t.Fatalf("records %+v chosen %d ok %v", set, chosen, ok)
	}
	p := schema.Pick{Name: set.Pattern, Within: set.Within, Rules: []schema.PickRule{{Order: schema.OrderLast}}}
	if i, _, err := p.Choose("link", nodes); err != nil || i != 3 {
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
			i, why, err := latest.Choose("link", nodes)
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
	if _, _, err := gone.Choose("link", reportsPage(11, 10)); err == nil || !strings.Contains(err.Error(), `no column "Released"`) {
		t.Errorf("a rule by a column that is gone: %v", err)
	}
	byTitle := schema.Pick{Name: "Download *", Rows: true, Within: "main › Reports", Rules: []schema.PickRule{{Order: schema.OrderNewest}}}
	if _, _, err := byTitle.Choose("link", reportsPage(11, 10)); err == nil || !strings.Contains(err.Error(), "not a date") {
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
		i, _, err := p.Choose("link", nodes)
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

// TestPickValidate refuses a pick that cannot choose.
func TestPickValidate(t *testing.T) {
	for _, p := range []schema.Pick{
		{Name: "Download", Rules: []schema.PickRule{{Order: schema.OrderFirst}}},
		{Name: "", Rows: true, Rules: []schema.PickRule{{Order: schema.OrderFirst}}},
		{Name: "Download *"},
		{Name: "Download *", Rules: []schema.PickRule{{Order: "random"}}},
		{Name: "Download *", Rules: []schema.PickRule{{Order: schema.OrderIs}}},
	} {
		if err := p.Validate(); err == nil {
			t.Errorf("%+v validates", p)
		}
	}
}

// TestPickWithoutWithin: a pick that names no context chooses among the
// first table of such records on the page.
func TestPickWithoutWithin(t *testing.T) {
	p := schema.Pick{Name: "Download *", Rows: true, Rules: []schema.PickRule{{Order: schema.OrderOldest, By: "Published"}}}
	nodes := reportsPage(11, 10, 9)
	if i, _, err := p.Choose("link", nodes); err != nil || nodes[i].Name != "Download Operations report September 2026" {
		t.Fatalf("chose %d: %v", i, err)
	}
}

// TestStepsUsePicksAsTheyMean: a playbook whose step puts a pick where it
// chooses nothing, beside a name it contradicts, or reads a count that is
// no count, is refused on load.
func TestStepsUsePicksAsTheyMean(t *testing.T) {
	pick := &schema.Pick{Name: "Download *", Rows: true, Rules: []schema.PickRule{{Order: schema.OrderFirst}}}
	for name, c := range map[string]struct {
		step schema.Step
		want string
	}{
		"pick and name": {schema.Step{Tool: "click", Target: &schema.Target{Role: "link", Name: "Download X", Pick: pick}}, "no id, name or near"},
		"pick on fill":  {schema.Step{Tool: "fill", Target: &schema.Target{Role: "textbox", Pick: pick}, Args: map[string]any{"value": "x"}}, "a pick chooses among records"},
		"count zero":    {schema.Step{Tool: "extract", Target: &schema.Target{Role: "link", Pick: pick}, Args: map[string]any{"count": 0}}, "not a number from 1"},
		"count words":   {schema.Step{Tool: "extract", Target: &schema.Target{Role: "link", Pick: pick}, Args: map[string]any{"count": "abc"}}, "not a number from 1"},
		"count no pick": {schema.Step{Tool: "extract", Args: map[string]any{"count": "2"}}, "needs a target that picks them"},
		"column zero": {schema.Step{Tool: "click", Target: &schema.Target{Role: "link", Pick: &schema.Pick{Name: "Download *", Rows: true,
			Rules: []schema.PickRule{{Order: schema.OrderNewest, By: "column 0"}}}}}, "no column"},
	} {
		c.step.ID, c.step.Kind = "s", schema.StepDeterministic
		p := &schema.Playbook{Name: "p", Intent: "do it", Steps: []schema.Step{c.step}, Verify: []schema.Expect{{Op: schema.OpURLContains, Arg: "/"}}}
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	ok := &schema.Playbook{Name: "p", Intent: "read the top {{n}}", Params: map[string]schema.Param{"n": {Type: schema.ParamString, Required: true}},
		Steps:  []schema.Step{{ID: "s", Kind: schema.StepDeterministic, Tool: "extract", Target: &schema.Target{Role: "link", Pick: &schema.Pick{Name: "*", Rules: []schema.PickRule{{Order: schema.OrderFirst}}}}, Args: map[string]any{"count": "{{n}}"}}},
		Verify: []schema.Expect{{Op: schema.OpURLContains, Arg: "/"}}}
	if err := ok.Validate(); err != nil {
		t.Errorf("a count from a parameter: %v", err)
	}
}

// TestActionsUsePicksAsTheyMean: an action taken from a tool call (rote mcp
// browser's pick argument) is held to the same shape as a step: a pick
// with rules it knows, for a click or a hover, and nothing beside it.
func TestActionsUsePicksAsTheyMean(t *testing.T) {
	pick := &schema.Pick{Name: "Trash", Rows: true, Rules: []schema.PickRule{{Order: schema.OrderIs, Value: "Glacier"}}}
	if err := (schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Pick: pick}}).ValidatePick(); err != nil {
		t.Fatalf("a click that picks: %v", err)
	}
	// Recorded, the action holds the control the pick found beside it.
	if err := (schema.Action{Kind: schema.ActClick, Target: &schema.Target{ID: "b1", Role: "button", Name: "Trash", Pick: pick}}).Validate(); err != nil {
		t.Fatalf("a click that picked, as recorded: %v", err)
	}
	for name, c := range map[string]struct {
		a    schema.Action
		want string
	}{
		"check":          {schema.Action{Kind: schema.ActCheck, Target: &schema.Target{Role: "checkbox", Pick: pick}}, "a pick chooses among records"},
		"with id":        {schema.Action{Kind: schema.ActClick, Target: &schema.Target{ID: "b1", Role: "button", Pick: pick}}, "no id, name or near"},
		"no role":        {schema.Action{Kind: schema.ActHover, Target: &schema.Target{Pick: pick}}, "needs the role"},
		"no rule":        {schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Pick: &schema.Pick{Name: "Trash", Rows: true}}}, "no rule"},
		"bad order":      {schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Pick: &schema.Pick{Name: "Trash", Rows: true, Rules: []schema.PickRule{{Order: "best"}}}}}, "want is, only, first"},
		"value on first": {schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Pick: &schema.Pick{Name: "Trash", Rows: true, Rules: []schema.PickRule{{Order: schema.OrderFirst, Value: "Memo 99"}}}}}, "it takes no value"},
		"by on last":     {schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Pick: &schema.Pick{Name: "Trash", Rows: true, Rules: []schema.PickRule{{Order: schema.OrderLast, By: "Date"}}}}}, "reads no column"},
		"huge value":     {schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Pick: &schema.Pick{Name: "Trash", Rows: true, Rules: []schema.PickRule{{Order: schema.OrderIs, Value: strings.Repeat("x", 5000)}}}}}, "over 1000 bytes"},
	} {
		err := c.a.Validate()
		if err == nil {
			err = c.a.ValidatePick()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// TestOrdinalNumbers: the numbers a highest or lowest rule orders, and a
// dot that may group thousands ("1.200" in German) or a comma that marks
// decimals ("87,5"), which it refuses.
func TestOrdinalNumbers(t *testing.T) {
	for text, want := range map[string]float64{"1,200": 1200, "$1,200.50": 1200.5, "12.5": 12.5, "0.125": 0.125, "-3": -3, "45 %": 45, "1234.500": 1234.5, "1,234,567": 1234567} {
		if got, ok := schema.Ordinal(text, false); !ok || got != want {
			t.Errorf("%q: %v %v, want %v", text, got, ok, want)
		}
	}
	for _, text := range []string{"1.200", "12.500", "€ 300.000", "1 200", "1.2k", "n/a", "87,5", "1,25", "1,2500", "12,34,567"} {
		if got, ok := schema.Ordinal(text, false); ok {
			t.Errorf("%q read as %v: it is no number a rule can order", text, got)
		}
	}
}

// TestOrdinalDates: a date a newest or oldest rule orders, whole or as
// the one ISO date or month inside a name.
func TestOrdinalDates(t *testing.T) {
	month := func(y, m int) float64 { return float64(time.Date(y, time.Month(m), 1, 0, 0, 0, 0, time.UTC).Unix()) }
	for text, want := range map[string]float64{"2026-11": month(2026, 11), "RPT-2026-11": month(2026, 11), "Report 2026-10-01 final": month(2026, 10), "November 2026": month(2026, 11)} {
		if got, ok := schema.Ordinal(text, true); !ok || got != want {
			t.Errorf("%q: %v %v, want %v", text, got, ok, want)
		}
	}
	for _, text := range []string{"PO-1234-56", "2026-11 to 2026-12", "RPT-12026-11", "pending"} {
		if got, ok := schema.Ordinal(text, true); ok {
			t.Errorf("%q read as the date %v", text, got)
		}
	}
}

// A judgment answer that differs from one option only in case, spacing
// or the quotes and punctuation around it is that option; anything else,
// or an answer two options fit, is out of the set.
func TestChooseReadsAnAnswerLoosely(t *testing.T) {
	step := &schema.Step{ID: "route"}
	options := []string{"Billing", "Shipping", "C++", "Returns desk"}
	for answer, want := range map[string]string{"Billing": "Billing", "**billing.**": "Billing", " “Shipping” ": "Shipping", "returns  desk": "Returns desk", "C++": "C++"} {
		if got, err := step.Choose(answer, options); err != nil || got != want {
			t.Errorf("Choose(%q) = %q, %v; want %q", answer, got, err, want)
		}
	}
	for _, answer := range []string{"C", "Bill", "Billing or Shipping", ""} {
		if got, err := step.Choose(answer, options); !errors.Is(err, schema.ErrOutOfSet) {
			t.Errorf("Choose(%q) = %q, %v; want out of set", answer, got, err)
		}
	}
	if got, err := step.Choose("BILLING", []string{"Billing", "billing"}); !errors.Is(err, schema.ErrOutOfSet) {
		t.Errorf("an answer two options fit chose %q (%v)", got, err)
	}
}
