package schema

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// ItemPick chooses an output's value among the items of a listing in a
// step's result, by rules, as a person would at replay: the newest
// report in a directory listing, the branch a parameter names, the one
// hit of a search. The items are, for an output with a JSON path, the
// list the path reaches (each item's value its Field); for one with a
// Line, the result's lines that begin with it (each value the rest of
// its line); for one with neither, every non-empty line of the result.
// Only the items Like the recorded one are chosen among. Every rule must
// choose the same item, or the step stops: no item is
// CodeBindingNotFound, and several a rule cannot tell apart, or rules
// that disagree, are CodeAmbiguous.
type ItemPick struct {
	// Field is the key of each item of a JSON list that holds its value;
	// "" for a list of strings or numbers.
	Field string `yaml:"field,omitempty" json:"field,omitempty" msgpack:"field,omitempty"`
	// Like is the shape of the items to choose among: the recorded
	// item's value with each run of digits written # (report-#-#.md),
	// where * stands for any run of characters (Rechnung #-#-# *.pdf,
	// whoever the invoice is for); "" for every item.
	Like string `yaml:"like,omitempty" json:"like,omitempty" msgpack:"like,omitempty"`
	// Kind holds the pick to the kind of item the run chose: only items
	// whose fields hold these values are chosen among (entityType:
	// person, for the person a search found).
	Kind map[string]string `yaml:"kind,omitempty" json:"kind,omitempty" msgpack:"kind,omitempty"`
	// Columns says an item's line holds columns apart by two spaces or
	// more (a name, then its size): the value is the first, and a rule
	// reads another by "column N" (from 1).
	Columns bool `yaml:"columns,omitempty" json:"columns,omitempty" msgpack:"columns,omitempty"`
	// Rules read an item's value (by "") or, in a JSON list, another of
	// its fields (by the key), or in columns another column.
	// OrderOnly takes the one item there is.
	Rules []PickRule `yaml:"rules" json:"rules" msgpack:"rules"`
}

// columnGap is what parts the columns of a listing's line.
var columnGap = regexp.MustCompile(`[ \t]{2,}|\t`)

// MaxListItems is the most items a listing may hold for a pick to read
// it: more is a result no rule should be trusted to choose from.
const MaxListItems = 10000

// ListItem is one item of a listing: its value, and its other fields
// (a JSON item's strings and numbers, by key).
type ListItem struct {
	Value  any
	Fields map[string]string
	// Columns are a line's columns, the value first (ItemPick.Columns).
	Columns []string
}

// Text is the item's value as text.
func (it ListItem) Text() string { return scalarText(it.Value) }

// digitRun is a run of digits, which ShapeOf writes as #.
var digitRun = regexp.MustCompile(`[0-9]+`)

// ShapeOf is s with each run of digits written #: the shape a listing's
// items share with the one a run chose (report-2026-01.md is
// report-#-#.md).
func ShapeOf(s string) string { return digitRun.ReplaceAllString(s, "#") }

// validate reports what is wrong with an item pick of an output.
func (p *ItemPick) validate(o Output) error {
	switch {
	case len(p.Rules) == 0:
		return Errorf(CodeInvalid, "pick: no rule")
	case len(p.Rules) > maxPickRules:
		return Errorf(CodeTooLarge, "pick: %d rules, at most %d", len(p.Rules), maxPickRules)
	case len(p.Kind) > 0 && o.JSON == "":
		return Errorf(CodeInvalid, "pick: kind reads fields of a JSON list's items")
	case len(p.Kind) > maxPickRules:
		return Errorf(CodeTooLarge, "pick: %d kind fields, at most %d", len(p.Kind), maxPickRules)
	case p.Columns && o.JSON != "":
		return Errorf(CodeInvalid, "pick: columns are a text listing's: no json path")
	case o.JSON == "" && p.Field != "":
		return Errorf(CodeInvalid, "pick: field names a key of a JSON list's items: it needs a json path")
	case p.Field != "" && !FieldName.MatchString(p.Field):
		return Errorf(CodeInvalid, "pick: field %q: want a letter or _ then letters, digits or _", p.Field)
	case len(p.Like) > maxPickText || len(p.Field) > maxPickText:
		return Errorf(CodeTooLarge, "pick: like or field over %d bytes", maxPickText)
	}
	for k, v := range p.Kind {
		if !FieldName.MatchString(k) || len(v) > maxPickText {
			return Errorf(CodeInvalid, "pick: kind %q: want a field's key and a value of at most %d bytes", k, maxPickText)
		}
	}
	for _, r := range p.Rules {
		if err := r.validate(); err != nil {
			return err
		}
		_, column, _ := columnNumber(r.By)
		switch {
		case r.By == "":
		case p.Columns && column:
		case o.JSON == "" || !FieldName.MatchString(r.By):
			return Errorf(CodeInvalid, "pick: by %q: a rule reads another field of a JSON list's items, by its key, or another column of a listing with columns", r.By)
		}
	}
	return nil
}

// FieldName is a key a pick names: a letter or _, then letters, digits
// or _.
var FieldName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// String says the pick in words: "newest among items like report-#-#.md".
func (p *ItemPick) String() string {
	var rules []string
	for _, r := range p.Rules {
		rules = append(rules, r.String())
	}
	s := strings.Join(rules, ", ")
	if p.Field != "" {
		s += " of the items' " + p.Field
	}
	if p.Like != "" || len(p.Kind) > 0 {
		s += " among items " + p.wanted()
	}
	return s
}

// Items reads the items of the listing o's locator reaches in w, in the
// result's order, all of them, whatever o's Like.
func (o Output) Items(w World, b Bindings) ([]ListItem, error) {
	if o.JSON != "" {
		return o.jsonItems(w)
	}
	line, err := RenderString(o.Line, b)
	if err != nil {
		return nil, err
	}
	var items []ListItem
	for _, l := range strings.Split(w.Text, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimLeft(l, " \t"), line)
		if rest = strings.TrimSpace(rest); !ok || rest == "" {
			continue
		}
		if o.Pick != nil && o.Pick.Columns {
			cols := columnGap.Split(rest, -1)
			items = append(items, ListItem{Value: cols[0], Columns: cols})
			continue
		}
		items = append(items, ListItem{Value: rest})
	}
	return items, nil
}

// jsonItems reads the items of the JSON list at o's path.
func (o Output) jsonItems(w World) ([]ListItem, error) {
	node, err := o.nodeAt(w)
	if err != nil {
		return nil, err
	}
	list, ok := node.([]any)
	if !ok {
		return nil, Errorf(CodeBindingNotFound, "%s is not a list", o.JSON)
	}
	var items []ListItem
	for _, e := range list {
		if o.Pick.Field == "" {
			if isScalar(e) {
				items = append(items, ListItem{Value: e})
			}
			continue
		}
		m, ok := e.(map[string]any)
		if !ok || !isScalar(m[o.Pick.Field]) {
			continue
		}
		it := ListItem{Value: m[o.Pick.Field], Fields: map[string]string{}}
		for k, v := range m {
			if isScalar(v) {
				it.Fields[k] = scalarText(v)
			}
		}
		items = append(items, it)
	}
	return items, nil
}

// locateItem chooses o's value among the items of its listing in w.
func (o Output) locateItem(w World, b Bindings) (any, error) {
	all, err := o.Items(w, b)
	if err != nil {
		return nil, err
	}
	var items, unlike []ListItem
	likes := o.Pick.liker()
	for _, it := range all {
		switch {
		case !o.Pick.ofKind(it):
		case likes(it.Text()):
			items = append(items, it)
		case o.Pick.Kin(it.Text()):
			unlike = append(unlike, it)
		}
	}
	switch {
	case len(items) == 0:
		return nil, Errorf(CodeBindingNotFound, "the listing at %s holds no item %s (%d items: %s)", o.where(), o.Pick.wanted(), len(all), ClipList(texts(all), 5))
	case len(items) > MaxListItems:
		return nil, Errorf(CodeAmbiguous, "the listing at %s holds %d items, over %d: refusing to choose among them", o.where(), len(items), MaxListItems)
	}
	k, err := o.Pick.choose(items, b)
	if err != nil {
		return nil, err
	}
	if err := o.Pick.outranks(items[k], unlike); err != nil {
		return nil, err
	}
	return items[k].Value, nil
}

// outranks checks the chosen item against the kin not Like: items of
// another shape that name themselves as the run's did, digits and all
// (report 2026-03.md beside report-2026-02.md, draft-report-2026-05.md).
// One may be what the rule should weigh: an order that reads values
// passes only when each such item reads as the same kind of value and
// would not have been chosen over it; an is rule names its item; any
// other rule cannot tell, and stops.
func (p *ItemPick) outranks(chosen ListItem, unlike []ListItem) error {
	if len(unlike) == 0 || p.names() {
		return nil
	}
	for _, r := range p.Rules {
		asDate := r.Order == OrderNewest || r.Order == OrderOldest
		if r.By != "" || !asDate && r.Order != OrderHighest && r.Order != OrderLowest {
			continue
		}
		best, kind, _ := ordinal(chosen.Text(), asDate)
		for _, u := range unlike {
			v, k, ok := ordinal(u.Text(), asDate)
			if !ok || k != kind || v == best || (v > best) == (r.Order == OrderNewest || r.Order == OrderHighest) {
				return Errorf(CodeAmbiguous, "%q, not shaped like %q, the items the run chose among, would be the %s or cannot be ordered with them: refusing to guess whether it counts", u.Text(), p.Like, r.Order)
			}
		}
		return nil
	}
	return Errorf(CodeAmbiguous, "the listing holds %s, with digits but not shaped like %q, the items the run chose among: refusing to guess whether it counts", ClipList(texts(unlike), 3), p.Like)
}

// wanted says which items p chooses among, for messages.
func (p *ItemPick) wanted() string {
	var parts []string
	if p.Like != "" {
		parts = append(parts, fmt.Sprintf("like %q", p.Like))
	}
	for _, k := range slices.Sorted(maps.Keys(p.Kind)) {
		parts = append(parts, fmt.Sprintf("with %s %q", k, p.Kind[k]))
	}
	if len(parts) == 0 {
		return "at all"
	}
	return strings.Join(parts, " ")
}

// ofKind reports whether it is of the kind the run chose (Kind).
func (p *ItemPick) ofKind(it ListItem) bool {
	for k, v := range p.Kind {
		if it.Fields[k] != v {
			return false
		}
	}
	return true
}

// choose applies p's rules to items: the index of the one they agree on.
func (p *ItemPick) choose(items []ListItem, b Bindings) (int, error) {
	set := RecordSet{}
	for _, it := range items {
		for k := range it.Fields {
			if !slices.Contains(set.Header, k) {
				set.Header = append(set.Header, k)
			}
		}
	}
	for _, it := range items {
		rec := Record{Name: it.Text(), Key: it.Text(), Cells: it.Columns}
		for _, h := range set.Header {
			rec.Cells = append(rec.Cells, it.Fields[h])
		}
		set.Records = append(set.Records, rec)
	}
	chosen := -1
	for _, r := range p.Rules {
		if r.Order == OrderIs {
			v, err := RenderString(r.Value, b)
			if err != nil {
				return 0, err
			}
			r.Value = v
		}
		k, err := r.Apply(set)
		if err != nil {
			return 0, err
		}
		if chosen >= 0 && k != chosen {
			return 0, Errorf(CodeAmbiguous, "the rules disagree on this listing, which they must not: %s chooses %q, the one before it %q", r.String(), items[k].Text(), items[chosen].Text())
		}
		chosen = k
	}
	return chosen, nil
}

// Likes reports whether item v is shaped as p's Like says: its ShapeOf
// is Like, where a * in Like stands for any run of characters.
func (p *ItemPick) Likes(v string) bool { return p.liker()(v) }

// liker is Likes with Like compiled once, for a listing's every item.
func (p *ItemPick) liker() func(string) bool {
	if p.Like == "" {
		return func(string) bool { return true }
	}
	parts := strings.Split(p.Like, "*")
	for i, part := range parts {
		parts[i] = regexp.QuoteMeta(part)
	}
	re, err := regexp.Compile("^" + strings.Join(parts, ".*") + "$")
	return func(v string) bool { return err == nil && re.MatchString(ShapeOf(v)) }
}

// Kin reports whether v, an item not Like, is of the same kind as the
// items Like: it has digits, and holds what they begin with before their
// first digits (case and separators aside: report 2026-03.md and
// draft-report-2026-05.md are kin of report-#-#.md), or, where they
// begin with digits, ends as they do after their last.
func (p *ItemPick) Kin(v string) bool {
	if p.Like == "" || !digitRun.MatchString(v) {
		return false
	}
	head, tail := p.Like[:strings.IndexAny(p.Like, "#*")], p.Like[strings.LastIndexAny(p.Like, "#*")+1:]
	if head = looseName(head); head != "" {
		return strings.Contains(looseName(v), head)
	}
	return tail != "" && strings.HasSuffix(v, tail)
}

// looseName is a name in lower case with its separators (space, -, _)
// all written -.
func looseName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '_' {
			return '-'
		}
		return unicode.ToLower(r)
	}, s)
}

// names reports whether a rule of p names its item (is, by its value).
func (p *ItemPick) names() bool {
	return slices.ContainsFunc(p.Rules, func(r PickRule) bool { return r.Order == OrderIs && r.By == "" })
}

// values lists the values p's rules look for, for their references.
func (p *ItemPick) values() []any {
	if p == nil {
		return nil
	}
	return ruleValues(p.Rules)
}

// where names the listing o reads, for messages.
func (o Output) where() string {
	switch {
	case o.JSON != "":
		return o.JSON
	case o.Line != "":
		return fmt.Sprintf("the lines beginning %q", o.Line)
	}
	return "the result's lines"
}

func texts(items []ListItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Text()
	}
	return out
}

func isScalar(v any) bool {
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}
