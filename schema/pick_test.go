package schema_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/schema"
)

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
		"fill":           {schema.Action{Kind: schema.ActFill, Value: "x", Target: &schema.Target{Role: "textbox", Pick: pick}}, "a pick chooses among records"},
		"among no name":  {schema.Action{Kind: schema.ActCheck, Target: &schema.Target{Role: "checkbox", Pick: &schema.Pick{Name: " ", Among: schema.AmongControls, Rules: []schema.PickRule{{Order: schema.OrderNth, Value: "2"}}}}}, "does not say which controls"},
		"among by date":  {schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "link", Pick: &schema.Pick{Name: "*", Among: schema.AmongItems, Rules: []schema.PickRule{{Order: schema.OrderNewest}}}}}, "counts by place"},
		"among what":     {schema.Action{Kind: schema.ActClick, Target: &schema.Target{Role: "link", Pick: &schema.Pick{Name: "*", Among: "rows", Rules: []schema.PickRule{{Order: schema.OrderNth, Value: "2"}}}}}, `among "rows"`},
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
