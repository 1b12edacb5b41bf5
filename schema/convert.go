package schema

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A Conversion turns a parameter's value from the form a task gives it
// in into the form a control takes: "09/10/2012" in a task, 2012-09-10 in
// a date input. It is written in a template after the parameter's name,
// {{date|date_mdy}}. Each reads its input strictly and refuses, as
// CodeInvalid, a value it cannot read as it was recorded: a value that
// another reading would take differently (13/10/2012 is no month-first
// date) stops the replay, it is never guessed.
type Conversion string

// The conversions a template may name.
const (
	ConvDateMDY  Conversion = "date_mdy"  // 09/10/2012, 9-10-2012 (month first) -> 2012-09-10
	ConvDateDMY  Conversion = "date_dmy"  // 10/09/2012, 10.09.2012 (day first) -> 2012-09-10
	ConvDateLong Conversion = "date_long" // September 10, 2012; 10 Sep 2012 -> 2012-09-10
	ConvTime12h  Conversion = "time_12h"  // 2:30 PM -> 14:30
	ConvNumber   Conversion = "number"    // $1,234.50 -> 1234.50 (a '.' decimal point)
	ConvNumberEU Conversion = "number_eu" // 1.234,50 € -> 1234.50 (a ',' decimal comma)
	ConvUpper    Conversion = "upper"     // abc-12 -> ABC-12
	ConvLower    Conversion = "lower"     // ABC-12 -> abc-12
	ConvTrim     Conversion = "trim"      // " a  b " -> "a b"
	ConvOrdinal  Conversion = "ordinal"   // third, 3rd -> 3 (a place, for an nth pick)
	ConvQuery    Conversion = "query"     // Oak desk -> Oak+desk (in a URL's query)
	ConvPath     Conversion = "path"      // Oak desk -> Oak%20desk (in a URL's path)
)

// Conversions lists every conversion, in the order a distiller tries them.
var Conversions = []Conversion{ConvDateMDY, ConvDateDMY, ConvDateLong, ConvTime12h, ConvNumber, ConvNumberEU, ConvUpper, ConvLower, ConvTrim, ConvOrdinal, ConvQuery, ConvPath}

// ParseConversion reads a conversion's name.
func ParseConversion(s string) (Conversion, error) {
	for _, c := range Conversions {
		if string(c) == s {
			return c, nil
		}
	}
	return "", Errorf(CodeInvalid, "conversion %q: want one of %s", s, joinConversions())
}

func joinConversions() string {
	names := make([]string, len(Conversions))
	for i, c := range Conversions {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

var (
	numericDate = regexp.MustCompile(`^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$`)
	time12h     = regexp.MustCompile(`(?i)^(\d{1,2})(?::(\d{2}))?\s*([ap])\.?\s*m\.?$`)
	time24h     = regexp.MustCompile(`^([01]\d|2[0-3]):[0-5]\d$`)
	isoDate     = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})$`)
	numberUS    = regexp.MustCompile(`^[-+]?(\d{1,3}(,\d{3})*|\d+)(\.\d+)?$|^[-+]?\.\d+$`)
	numberEU    = regexp.MustCompile(`^[-+]?(\d{1,3}([. ]\d{3})*|\d+)(,\d+)?$|^[-+]?,\d+$`)
)

// longDates are the layouts date_long reads, month named.
var longDates = []string{"January 2, 2006", "January 2 2006", "Jan 2, 2006", "Jan 2 2006", "Jan. 2, 2006", "2 January 2006", "2 Jan 2006", "Monday, January 2, 2006", "Mon, Jan 2, 2006"}

// currency is what a number may carry beside its digits.
const currency = "$€£¥ \u00a0"

// OwnForm reports whether v is written in c's own form, not only in one
// every date or time conversion reads: what a value learned in tells
// which conversion the task writes its values by (September 10, 2012 is
// date_long's, not date_mdy's, though date_mdy reads it too).
func (c Conversion) OwnForm(v string) bool {
	s := strings.TrimSpace(v)
	switch c {
	case ConvDateMDY, ConvDateDMY:
		return numericDate.MatchString(s)
	case ConvDateLong:
		_, ok := unambiguousDate(s)
		return ok && !isoDate.MatchString(s)
	case ConvTime12h:
		return time12h.MatchString(s)
	case ConvOrdinal:
		_, ok := Place(s)
		return ok && !strings.ContainsAny(s[:1], "0123456789") || numberedOrdinal.MatchString(strings.ToLower(s))
	}
	return true
}

// ordinalWords are the places a task names in words, from the first.
var ordinalWords = []string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
	"eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth", "nineteenth", "twentieth"}

// numberedOrdinal is a place in digits: 1st, 2nd, 3rd, 11th.
var numberedOrdinal = regexp.MustCompile(`^([1-9][0-9]?)(st|nd|rd|th)$`)

// Place reads a place, "third", "3rd" or "3", as its number; ok is
// false for anything else, or a suffix that does not fit its number
// (3th), or a place past MaxNth.
func Place(s string) (int, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	for i, w := range ordinalWords {
		if s == w {
			return i + 1, true
		}
	}
	n, err := strconv.Atoi(s)
	if m := numberedOrdinal.FindStringSubmatch(s); m != nil {
		n, err = strconv.Atoi(m[1])
		suffix := "th"
		if n%100 < 11 || n%100 > 13 {
			suffix = map[int]string{1: "st", 2: "nd", 3: "rd"}[n%10]
			if suffix == "" {
				suffix = "th"
			}
		}
		if m[2] != suffix {
			return 0, false
		}
	}
	if err != nil || n < 1 || n > MaxNth {
		return 0, false
	}
	return n, true
}

// Apply converts v, or says why it cannot: an *Error with CodeInvalid.
func (c Conversion) Apply(v string) (string, error) {
	bad := func(form string) (string, error) {
		return "", Errorf(CodeInvalid, "%q is no %s (the playbook converts it with %s)", Clip(v, 60), form, c)
	}
	s := strings.TrimSpace(v)
	switch c {
	case ConvDateMDY, ConvDateDMY:
		if iso, ok := unambiguousDate(s); ok {
			return iso, nil // 2012-10-13 or September 10, 2012 read one way only
		}
		m := numericDate.FindStringSubmatch(s)
		if m == nil {
			return bad("date in the form " + map[Conversion]string{ConvDateMDY: "month/day/year", ConvDateDMY: "day/month/year"}[c])
		}
		month, day := m[1], m[2]
		if c == ConvDateDMY {
			month, day = day, month
		}
		if out, ok := calendarDate(m[3], month, day); ok {
			return out, nil
		}
		return bad("date the calendar has")
	case ConvDateLong:
		if iso, ok := unambiguousDate(s); ok {
			return iso, nil
		}
		return bad("date with its month named (September 10, 2012)")
	case ConvTime12h:
		if m := time24h.FindStringSubmatch(s); m != nil {
			// 14:30 or 00:15 is a 24-hour time; 09:30 could be either.
			if h, _ := strconv.Atoi(m[1]); h == 0 || h >= 13 {
				return s, nil
			}
		}
		m := time12h.FindStringSubmatch(s)
		if m == nil {
			return bad("time of day with AM or PM")
		}
		h, _ := strconv.Atoi(m[1])
		if h < 1 || h > 12 {
			return bad("time of day with AM or PM")
		}
		if strings.EqualFold(m[3], "p") && h != 12 {
			h += 12
		} else if strings.EqualFold(m[3], "a") && h == 12 {
			h = 0
		}
		minutes := m[2]
		if minutes == "" {
			minutes = "00"
		}
		if mm, _ := strconv.Atoi(minutes); mm > 59 {
			return bad("time of day with AM or PM")
		}
		return strconv.Itoa(100 + h)[1:] + ":" + minutes, nil
	case ConvNumber, ConvNumberEU:
		n := strings.Trim(s, currency)
		pattern, group, point := numberUS, ",", "."
		if c == ConvNumberEU {
			pattern, group, point = numberEU, ".", ","
			n = strings.ReplaceAll(n, " ", ".")
		}
		if !pattern.MatchString(n) {
			return bad("number written " + map[Conversion]string{ConvNumber: "1,234.50", ConvNumberEU: "1.234,50"}[c])
		}
		// Written as an HTML number is (-0.5, 5): no '+', a digit before the point.
		n = strings.TrimPrefix(strings.Replace(strings.ReplaceAll(n, group, ""), point, ".", 1), "+")
		if strings.HasPrefix(n, ".") || strings.HasPrefix(n, "-.") {
			n = strings.Replace(n, ".", "0.", 1)
		}
		return n, nil
	case ConvUpper:
		return strings.ToUpper(v), nil
	case ConvLower:
		return strings.ToLower(v), nil
	case ConvTrim:
		return strings.Join(strings.Fields(v), " "), nil
	case ConvQuery:
		return url.QueryEscape(v), nil
	case ConvPath:
		return url.PathEscape(v), nil
	case ConvOrdinal:
		n, ok := Place(s)
		if !ok {
			return bad("place (third, 3rd)")
		}
		return strconv.Itoa(n), nil
	}
	return "", Errorf(CodeInvalid, "conversion %q: want one of %s", string(c), joinConversions())
}

// unambiguousDate reads a date written one way only, ISO (2012-10-13)
// or with its month named, as 2006-01-02.
func unambiguousDate(s string) (string, bool) {
	if m := isoDate.FindStringSubmatch(s); m != nil {
		return calendarDate(m[1], m[2], m[3])
	}
	for _, layout := range longDates {
		if t, err := time.Parse(layout, s); err == nil {
			return t.Format(time.DateOnly), true
		}
	}
	return "", false
}

// calendarDate writes year, month and day as 2006-01-02; ok is false
// for a date the calendar does not have (02/30/2012).
func calendarDate(year, month, day string) (string, bool) {
	m, _ := strconv.Atoi(month)
	d, _ := strconv.Atoi(day)
	y, _ := strconv.Atoi(year)
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if m < 1 || m > 12 || t.Day() != d || t.Month() != time.Month(m) {
		return "", false
	}
	return t.Format(time.DateOnly), true
}
