package schema

import (
	"errors"
	"strings"
	"testing"
)

// TestConversions: each conversion reads its form strictly and writes
// the control's, and a date or time written one way only (ISO, a named
// month, 14:30) whatever its form; a value another reading would take
// otherwise, or that is no value of its form, is refused, never guessed.
func TestConversions(t *testing.T) {
	cases := []struct {
		conv    Conversion
		in, out string
	}{
		{ConvDateMDY, "09/10/2012", "2012-09-10"},
		{ConvDateMDY, "9-1-2012", "2012-09-01"},
		{ConvDateDMY, "09/10/2012", "2012-10-09"},
		{ConvDateDMY, "31.12.1999", "1999-12-31"},
		{ConvDateLong, "September 10, 2012", "2012-09-10"},
		{ConvDateLong, "10 Sep 2012", "2012-09-10"},
		{ConvTime12h, "2:30 PM", "14:30"},
		{ConvTime12h, "12:05 am", "00:05"},
		{ConvTime12h, "12 p.m.", "12:00"},
		{ConvNumber, "$1,234.50", "1234.50"},
		{ConvNumber, "-17", "-17"},
		{ConvNumberEU, "1.234,50 €", "1234.50"},
		{ConvNumberEU, "1 234,5", "1234.5"},
		{ConvUpper, "ab-12", "AB-12"},
		{ConvLower, "AB-12", "ab-12"},
		{ConvTrim, "  a   b ", "a b"},
		// Forms that read one way only are taken by any date or time.
		{ConvDateMDY, "2012-10-13", "2012-10-13"},
		{ConvDateDMY, "Sep 10, 2012", "2012-09-10"},
		{ConvDateMDY, "10 September 2012", "2012-09-10"},
		{ConvTime12h, "14:30", "14:30"},
		{ConvNumber, ".5", "0.5"},
		{ConvNumber, "-.5", "-0.5"},
		{ConvNumber, "+5", "5"},
		{ConvNumberEU, "-,5", "-0.5"},
		{ConvOrdinal, "third", "3"},
		{ConvOrdinal, "Second", "2"},
		{ConvOrdinal, "11th", "11"},
		{ConvOrdinal, "22nd", "22"},
		{ConvOrdinal, "4", "4"},
		{ConvQuery, "Oak desk & co", "Oak+desk+%26+co"},
		{ConvPath, "Oak desk/2", "Oak%20desk%2F2"},
	}
	for _, c := range cases {
		got, err := c.conv.Apply(c.in)
		if err != nil || got != c.out {
			t.Errorf("%s(%q) = %q, %v; want %q", c.conv, c.in, got, err, c.out)
		}
	}
	for _, c := range []struct {
		conv Conversion
		in   string
	}{
		{ConvDateMDY, "13/10/2012"}, // a day-first date: no month 13
		{ConvDateMDY, "02/30/2012"},
		{ConvDateDMY, "10/13/2012"},
		{ConvDateLong, "10/09/2012"},
		{ConvTime12h, "09:30"}, // morning or evening: a 12-hour task's form says neither
		{ConvTime12h, "13:00 PM"},
		{ConvNumber, "1.234,50"}, // a decimal comma read as a point would be 1.23450
		{ConvNumber, "12,34"},
		{ConvNumberEU, "1,234.50"},
		{Conversion("rot13"), "x"},
		{ConvOrdinal, "3th"}, // a suffix its number does not take
		{ConvOrdinal, "0th"},
		{ConvOrdinal, "last"},
		{ConvOrdinal, "101st"},
	} {
		if got, err := c.conv.Apply(c.in); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s(%q) = %q, %v; want invalid", c.conv, c.in, got, err)
		}
	}
}

// TestConvertedReference: {{date|date_mdy}} renders the parameter
// converted; an unknown conversion does not parse, a value the
// conversion cannot read fails to render, and a secret is never
// converted.
func TestConvertedReference(t *testing.T) {
	b := Bindings{Params: map[string]any{"date": "09/10/2012"}}
	if got, err := RenderString("on {{ date | date_mdy }}", b); err != nil || got != "on 2012-09-10" {
		t.Errorf("rendered %q, %v", got, err)
	}
	if v, err := RenderValue("{{date|date_dmy}}", b); err != nil || v != "2012-10-09" {
		t.Errorf("rendered %v, %v", v, err)
	}
	if _, err := ParseRefs("{{date|rot13}}"); !errors.Is(err, ErrInvalid) {
		t.Errorf("an unknown conversion: %v", err)
	}
	b.Params["date"] = "13/10/2012"
	if _, err := RenderString("{{date|date_mdy}}", b); !errors.Is(err, ErrInvalid) {
		t.Errorf("13/10/2012 month first: %v, want invalid", err)
	}
	p := &Playbook{Name: "p", Fingerprint: "f", Params: map[string]Param{"pin": {Type: ParamSecret, Required: true}},
		Steps: []Step{{ID: "s", Kind: StepDeterministic, Tool: "fill", Args: map[string]any{"value": "{{pin|trim}}"}}}}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "only a string parameter is converted") {
		t.Errorf("a converted secret: %v", err)
	}
}
