package schema

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Pick chooses a step's target among sibling records on the page as it is
// at replay: the report whose row is newest, the row whose title is a
// parameter's value. Every rule must choose the same record, or the step
// stops: a rule that held when the run was learned and no longer agrees
// with the others means the page changed in a way the playbook cannot
// tell right from wrong.
type Pick struct {
	// Name is the records' control name, "*" standing for the record's
	// key where the name holds it (always, outside a table).
	Name string `yaml:"name" json:"name" msgpack:"name"`
	// Rows says the records are table rows, keyed by their first cell.
	Rows bool `yaml:"rows,omitempty" json:"rows,omitempty" msgpack:"rows,omitempty"`
	// Within is the context the records share (landmark, heading).
	Within string `yaml:"within,omitempty" json:"within,omitempty" msgpack:"within,omitempty"`
	// Among counts the records by place (see AmongItems,
	// AmongControls), by the one rule, an nth: Name is then "*" for
	// controls named each their own way, or the name they all share
	// (Count.Name); Field, for radios, the name of their group.
	Among string `yaml:"among,omitempty" json:"among,omitempty" msgpack:"among,omitempty"`
	Field string `yaml:"field,omitempty" json:"field,omitempty" msgpack:"field,omitempty"`
	// Shapes, with among items, are the shapes of the list's items
	// when learned (Count.Shapes).
	Shapes []string   `yaml:"shapes,omitempty" json:"shapes,omitempty" msgpack:"shapes,omitempty"`
	Rules  []PickRule `yaml:"rules" json:"rules" msgpack:"rules"`
}

// Count is what a pick by place counts among, controls of role.
func (p *Pick) Count(role string) Count {
	return Count{Role: role, Among: p.Among, Within: p.Within, Field: p.Field, Name: p.Name, Shapes: p.Shapes}
}

// PickRule is one rule a Pick applies.
type PickRule struct {
	Order PickOrder `yaml:"order" json:"order" msgpack:"order"`
	// By is what the rule reads: "" the record's key; else a column's
	// header, or "column N" (from 1) for a table without one.
	By string `yaml:"by,omitempty" json:"by,omitempty" msgpack:"by,omitempty"`
	// Value is what OrderIs looks for, most often {{a parameter}}.
	Value string `yaml:"value,omitempty" json:"value,omitempty" msgpack:"value,omitempty"`
}

// PickOrder is how a rule chooses a record.
type PickOrder string

// Pick orders.
const (
	OrderIs      PickOrder = "is"      // the one record whose field is Value, case and spacing aside
	OrderFirst   PickOrder = "first"   // the first in the page's order
	OrderLast    PickOrder = "last"    // the last in the page's order
	OrderNth     PickOrder = "nth"     // the Value-th in the page's order (2 for "the second")
	OrderOnly    PickOrder = "only"    // the one record there is; several are ambiguous
	OrderNewest  PickOrder = "newest"  // the latest date
	OrderOldest  PickOrder = "oldest"  // the earliest date
	OrderHighest PickOrder = "highest" // the largest number
	OrderLowest  PickOrder = "lowest"  // the smallest number
)

// Validate checks that p names its records and has rules it knows.
func (p *Pick) Validate() error {
	if p == nil {
		return nil
	}
	if err := p.validateRecords(); err != nil {
		return err
	}
	if len(p.Rules) == 0 {
		return Errorf(CodeInvalid, "pick: no rule")
	}
	if len(p.Rules) > maxPickRules {
		return Errorf(CodeTooLarge, "pick: %d rules, at most %d", len(p.Rules), maxPickRules)
	}
	for _, r := range p.Rules {
		if err := r.validate(); err != nil {
			return err
		}
	}
	switch {
	case p.Among == "":
	case p.Among != AmongItems && p.Among != AmongControls:
		return Errorf(CodeOutOfSet, "pick: among %q: want %s or %s", Clip(p.Among, 40), AmongItems, AmongControls)
	case p.Rows || len(p.Rules) != 1 || p.Rules[0].Order != OrderNth:
		return Errorf(CodeInvalid, "pick: among %s counts by place: it reads no rows, and its one rule is nth", p.Among)
	}
	return validShapes(p.Shapes)
}

// validShapes bounds a count's item shapes.
func validShapes(shapes []string) error {
	if len(shapes) > MaxShapes {
		return Errorf(CodeTooLarge, "pick: %d item shapes, at most %d", len(shapes), MaxShapes)
	}
	for _, s := range shapes {
		if len(s) > maxPickText {
			return Errorf(CodeTooLarge, "pick: an item shape over %d bytes", maxPickText)
		}
	}
	return nil
}

// validate checks that r is an order the pick knows, with what it takes.
func (r PickRule) validate() error {
	switch r.Order {
	case OrderIs:
		if strings.TrimSpace(r.Value) == "" {
			return Errorf(CodeInvalid, "pick: is needs a value")
		}
	case OrderFirst, OrderLast, OrderOnly:
		if r.Value != "" || r.By != "" {
			return Errorf(CodeInvalid, "pick: %s is a place in the result's order: it takes no value and reads no column (by)", r.Order)
		}
	case OrderNth:
		if refs, _ := ParseRefs(r.Value); len(refs) > 0 && r.By == "" {
			break // a place the task states, {{place|ordinal}}: read when rendered
		}
		if n, err := strconv.Atoi(r.Value); err != nil || n < 1 || n > MaxNth || r.By != "" {
			return Errorf(CodeInvalid, "pick: nth takes a place from 1 to %d as its value, and reads no column (by)", MaxNth)
		}
	case OrderNewest, OrderOldest, OrderHighest, OrderLowest:
		if r.Value != "" {
			return Errorf(CodeInvalid, "pick: %s takes no value (only is and nth do)", r.Order)
		}
	default:
		return Errorf(CodeOutOfSet, "pick: order %q: want is, only, first, last, nth, newest, oldest, highest or lowest", r.Order)
	}
	if len(r.Value) > maxPickText || len(r.By) > maxPickText {
		return Errorf(CodeTooLarge, "pick: a rule's value or by is over %d bytes", maxPickText)
	}
	return nil
}

// MaxNth is the furthest place an nth rule names.
const MaxNth = 100

// Bounds of a pick: what a choice was made by travels in every event.
const (
	maxPickRules = 8
	maxPickText  = 1000
)

// validateRecords checks that p names its records, as a judgment among
// them needs, with no rule to choose one.
func (p *Pick) validateRecords() error {
	if p == nil {
		return nil
	}
	if strings.TrimSpace(p.Name) == "" || (!p.Rows && p.Among == "" && !strings.Contains(p.Name, keyMark)) {
		return Errorf(CodeInvalid, "pick: name %q does not say which controls to pick among (a table's, or a list's with * where its key stands)", p.Name)
	}
	if len(p.Name) > maxPickText || len(p.Within) > maxPickText || len(p.Field) > maxPickText {
		return Errorf(CodeTooLarge, "pick: its name or within is over %d bytes", maxPickText)
	}
	return nil
}

// validatePick checks how step s uses a pick: only a click, a hover, a
// drag or a check chooses among records, and an extract reads the first of them; a pick
// is the whole target (an id, name or near beside it would say another
// control); and an extract's count is the first records of a list.
func (s *Step) validatePick() error {
	t := s.Target
	if s.Kind == StepJudgment && t != nil {
		switch {
		case t.Pick == nil || len(t.Pick.Rules) > 0:
			return Errorf(CodeInvalid, "a judgment step's target says which records it chooses among: a pick with no rules")
		case t.ID != "" || t.Name != "" || t.Near != "" || t.Contract != nil:
			return Errorf(CodeInvalid, "a judgment step's target is only the records' role and pick")
		case t.Role == "":
			return Errorf(CodeInvalid, "a judgment step's target needs the role of the records' controls")
		}
		return nil
	}
	count, counted := s.Args["count"]
	if s.Tool == string(ActExtract) && counted {
		if err := readsList(t); err != nil {
			return err
		}
		if refs, _ := ParseRefs(fmt.Sprint(count)); len(refs) == 0 {
			if err := checkCount(fmt.Sprint(count)); err != nil {
				return err
			}
		}
	}
	return validatePicking(s.Tool, t, counted)
}

// validatePicking checks the shape of a target of a tool's action that
// picks: a click's, hover's, drag's or check's, or an extract's with a count; the pick is
// the whole target; its rules read columns it can name.
func validatePicking(tool string, t *Target, counted bool) error {
	if t == nil || t.Pick == nil {
		return nil
	}
	switch {
	case tool != string(ActClick) && tool != string(ActHover) && tool != string(ActDrag) && tool != string(ActCheck) && !(tool == string(ActExtract) && counted):
		return Errorf(CodeInvalid, "%s: a pick chooses among records for a click, a hover, a drag or a check, or reads a list for an extract with a count", tool)
	case t.ID != "" || t.Name != "" || t.Near != "":
		return Errorf(CodeInvalid, "a target with a pick has no id, name or near: the pick chooses the control")
	case t.Role == "":
		return Errorf(CodeInvalid, "a target with a pick needs the role of the records' controls")
	}
	for _, r := range t.Pick.Rules {
		if _, _, err := columnNumber(r.By); err != nil {
			return err
		}
	}
	return nil
}

// columnNumber reads a rule's "column N" (from 1) as an index from 0; ok
// is false for a by that names no column number (the key, a header).
func columnNumber(by string) (col int, ok bool, err error) {
	n, ok := strings.CutPrefix(by, "column ")
	if !ok {
		return 0, false, nil
	}
	if c, err := strconv.Atoi(n); err == nil && c >= 1 {
		return c - 1, true, nil
	}
	return 0, true, Errorf(CodeInvalid, "pick: %q is no column (columns count from 1)", by)
}

// readsList checks that an extract with a count has a target that reads
// the first records of a list.
func readsList(t *Target) error {
	if t == nil || t.Pick == nil || len(t.Pick.Rules) != 1 || t.Pick.Rules[0].Order != OrderFirst {
		return Errorf(CodeInvalid, "extract: a count reads the first records of a list: it needs a target that picks them (pick with the one rule first)")
	}
	return nil
}

// checkCount checks an extract's count: a number from 1 to MaxRecords.
func checkCount(count string) error {
	if n, err := strconv.Atoi(count); err != nil || n < 1 || n > MaxRecords {
		return Errorf(CodeInvalid, "extract: count %q is not a number from 1 to %d", count, MaxRecords)
	}
	return nil
}

// values lists the values p's rules look for, for their references.
func (p *Pick) values() []any {
	if p == nil {
		return nil
	}
	return ruleValues(p.Rules)
}

// ruleValues lists the values of rules, for their references.
func ruleValues(rules []PickRule) []any {
	var out []any
	for _, r := range rules {
		out = append(out, r.Value)
	}
	return out
}

// String says the rules in words: "newest by Published, first".
func (p *Pick) String() string {
	var parts []string
	for _, r := range p.Rules {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ", ")
}

// String says the rule in words: "newest by Published", "is \"Memo 9\"".
func (r PickRule) String() string {
	s := string(r.Order)
	switch r.Order {
	case OrderIs:
		s += " " + strconv.Quote(r.Value)
	case OrderNth:
		s += " " + r.Value
	}
	if r.By != "" {
		s += " by " + r.By
	}
	return s
}

// Apply returns the index of the record r chooses in set.
func (r PickRule) Apply(set RecordSet) (int, error) {
	switch r.Order {
	case OrderFirst:
		return 0, nil
	case OrderLast:
		return len(set.Records) - 1, nil
	case OrderNth:
		n, err := strconv.Atoi(r.Value)
		if err != nil || n < 1 || n > MaxNth {
			return 0, Errorf(CodeInvalid, "nth: %q is no place from 1 to %d", Clip(r.Value, 40), MaxNth)
		}
		if n > len(set.Records) {
			return 0, Errorf(CodeNotFound, "the %s of %d records is not there: refusing to take another", r.Value, len(set.Records))
		}
		return n - 1, nil
	case OrderOnly:
		if n := len(set.Records); n != 1 {
			return 0, Errorf(CodeAmbiguous, "%d records where the run had one (%s): refusing to guess which is meant", n, ClipList(set.keys(), 5))
		}
		return 0, nil
	}
	fields, err := set.Field(r.By)
	if err != nil {
		return 0, err
	}
	if r.Order == OrderIs {
		found := -1
		for k, f := range fields {
			if sameText(f, r.Value) {
				if found >= 0 {
					return 0, Errorf(CodeAmbiguous, "two records are %q %s: refusing to guess", r.Value, r.where())
				}
				found = k
			}
		}
		if found < 0 {
			return 0, Errorf(CodeNotFound, "no record is %q %s (a record that only holds it is another record)", r.Value, r.where())
		}
		return found, nil
	}
	values := make([]float64, len(fields))
	kinds := make([]string, len(fields))
	for k, f := range fields {
		v, kind, ok := ordinal(f, r.Order == OrderNewest || r.Order == OrderOldest)
		if !ok {
			return 0, Errorf(CodeNotFound, "record %d has %q %s, which is not a %s: cannot pick the %s", k+1, f, r.where(), r.kind(), r.Order)
		}
		if k > 0 && kind != kinds[0] {
			return 0, Errorf(CodeAmbiguous, "record %d has %q %s, a %s, where record 1 has %q, a %s: refusing to order the two kinds together", k+1, f, r.where(), kind, fields[0], kinds[0])
		}
		values[k], kinds[k] = v, kind
	}
	best, tied := 0, false
	for k := 1; k < len(values); k++ {
		better := values[k] > values[best]
		if r.Order == OrderOldest || r.Order == OrderLowest {
			better = values[k] < values[best]
		}
		switch {
		case better:
			best, tied = k, false
		case values[k] == values[best]:
			tied = true
		}
	}
	if tied {
		return 0, Errorf(CodeAmbiguous, "two records tie for the %s %s: refusing to guess", r.Order, r.where())
	}
	return best, nil
}

// sameText reports whether field is value, case and runs of spaces
// aside: "Memo 9" is not "Memo 9 draft", nor "Memo 99".
func sameText(field, value string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(field), " "), strings.Join(strings.Fields(value), " "))
}

func (r PickRule) where() string {
	if r.By == "" {
		return "by key"
	}
	return "in " + r.By
}

func (r PickRule) kind() string {
	if r.Order == OrderNewest || r.Order == OrderOldest {
		return "date"
	}
	return "number"
}

// Field returns each record's field by: its key (""), the cell under
// the column headed by, or "column N".
func (s RecordSet) Field(by string) ([]string, error) {
	col, numbered, err := columnNumber(by)
	if err != nil {
		return nil, err
	}
	if !numbered {
		col = -1 // the key, unless a header names the column
		for k, h := range s.Header {
			if by != "" && strings.EqualFold(h, by) {
				col = k
			}
		}
		if by != "" && col < 0 {
			return nil, Errorf(CodeNotFound, "the table has no column %q to pick by", by)
		}
	}
	out := make([]string, len(s.Records))
	for k, rec := range s.Records {
		if col < 0 {
			out[k] = rec.Key
			continue
		}
		if col >= len(rec.Cells) {
			return nil, Errorf(CodeNotFound, "the record %s has no %s", rec.Label(), by)
		}
		out[k] = rec.Cells[col]
	}
	return out, nil
}

// dateLayouts are the ways a page writes the dates a rule compares.
var dateLayouts = []string{
	"2006-01-02", "2006-01-02 15:04", "2006-01-02 15:04:05", time.RFC3339, "2006/01/02", "2006-01",
	"January 2006", "Jan 2006", "January 2, 2006", "Jan 2, 2006", "2 January 2006", "2 Jan 2006",
	"Monday, January 2, 2006", "Mon, 02 Jan 2006",
}

// numberText is a number as an English page writes one: its commas group
// thousands in threes ("1,250"), so "87,5" (a German 87.5) is none.
var numberText = regexp.MustCompile(`^[-+]?[$€£¥]?\s*[-+]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?\s*%?$`)

// embeddedDate is an ISO date or month standing as its own token.
var embeddedDate = regexp.MustCompile(`(?:^|[^\d])(\d{4}-\d{2}(?:-\d{2})?)(?:[^\d-]|$)`)

// sizeText is a size as listings write one: 300 B, 4.88 KB, 2 GiB.
var sizeText = regexp.MustCompile(`(?i)^(\d+(?:\.\d+)?)\s*(b|bytes|kb|kib|mb|mib|gb|gib|tb|tib)$`)

// sizeUnits are the sizes' units in bytes, at 1024 to the next.
var sizeUnits = map[string]float64{"b": 1, "bytes": 1, "kb": 1 << 10, "kib": 1 << 10, "mb": 1 << 20, "mib": 1 << 20, "gb": 1 << 30, "gib": 1 << 30, "tb": 1 << 40, "tib": 1 << 40}

// version is a dotted version standing as its own run: 1.10, v2.3.1.
var version = regexp.MustCompile(`(?:^|[^\d.])v?(\d{1,5}(?:\.\d{1,5}){1,3})(?:[^\d.]|$)`)

// versionOrdinal reads the one version in s as a number that orders
// versions part by part (1.10 after 1.9).
func versionOrdinal(s string) (float64, bool) {
	m := version.FindAllStringSubmatch(s, -1)
	if len(m) != 1 {
		return 0, false
	}
	parts := strings.Split(m[0][1], ".")
	v := 0.0
	for i := 0; i < 4; i++ {
		v *= 100000
		if i < len(parts) {
			n, _ := strconv.Atoi(parts[i])
			v += float64(n)
		}
	}
	return v, true
}

// compactDate is a date written YYYYMMDD standing as its own run of
// digits.
var compactDate = regexp.MustCompile(`(?:^|\D)((?:19|20)\d{6})(?:\D|$)`)

// thousandsOrDecimal is a number whose one dot may group thousands (as
// "1.200" does in German) or mark decimals: no rule can order it.
var thousandsOrDecimal = regexp.MustCompile(`^\D*[1-9]\d{0,2}\.\d{3}\D*$`)

// Ordinal reads s as a date (asDate) or a number, for a rule to order:
// a date in one of dateLayouts, or a number with an optional currency
// sign, thousands commas and percent. A date may stand inside a name
// (RPT-2026-11) when it is the name's only one. A number whose one dot may
// be a thousands separator ("1.200") is read as neither.
func Ordinal(s string, asDate bool) (float64, bool) {
	v, _, ok := ordinal(s, asDate)
	return v, ok
}

// ordinal is Ordinal, and the kind of value it read: date, version,
// size or number. Values of two kinds are not ordered together.
func ordinal(s string, asDate bool) (float64, string, bool) {
	s = strings.TrimSpace(s)
	if asDate {
		for _, l := range dateLayouts {
			if t, err := time.Parse(l, s); err == nil {
				return float64(t.Unix()), "date", true
			}
		}
		// One ISO date or month inside a name: RPT-2026-11.
		if m := embeddedDate.FindAllStringSubmatch(s, -1); len(m) == 1 && m[0][1] != s {
			return ordinal(m[0][1], true)
		}
		// One compact date inside a name: backup-20251231.tar.
		if m := compactDate.FindAllStringSubmatch(s, -1); len(m) == 1 {
			if t, err := time.Parse("20060102", m[0][1]); err == nil {
				return float64(t.Unix()), "date", true
			}
		}
		// No date, one version: release/1.10 is newer than release/1.9.
		v, ok := versionOrdinal(s)
		return v, "version", ok
	}
	if m := sizeText.FindStringSubmatch(s); m != nil {
		n, err := strconv.ParseFloat(m[1], 64)
		return n * sizeUnits[strings.ToLower(m[2])], "size", err == nil
	}
	if !numberText.MatchString(s) || thousandsOrDecimal.MatchString(s) {
		return 0, "", false
	}
	neg := strings.Contains(s, "-")
	digits := strings.Map(func(r rune) rune {
		if (r >= '0' && r <= '9') || r == '.' {
			return r
		}
		return -1
	}, s)
	v, err := strconv.ParseFloat(digits, 64)
	if err != nil {
		return 0, "", false
	}
	if neg {
		v = -v
	}
	return v, "number", true
}
