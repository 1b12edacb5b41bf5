package distiller

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/rote-agent/rote/schema"
)

// choice distills a click on one of several sibling records (a row's
// Download link, an entry of a list of reports) into a target the replay
// chooses on the page as it is then, never the record clicked once:
// bound to a parameter when the record holds its value; else by the
// rules the task states and the choice obeyed (newest by a date column,
// highest by a number, first, last), all of which must agree at replay;
// else, when judge allows, by a judgment step before it that chooses
// among the records' keys read at replay. A choice it can explain none
// of these ways is refused: frozen, it would act on the same record
// whatever the data. Among siblings a place counts (set.Among), only a
// place the task states makes it a choice: with none, the target is nil
// and the control is the one its name says.
func (d *distillation) choice(what string, set *schema.RecordSet, k int, control *schema.Target, judge bool) (*schema.Target, error) {
	if set == nil || k < 0 || k >= len(set.Records) || set.Pattern == "" {
		return nil, schema.Errorf(schema.CodeInvalid, "%s: its record of the choice it made is malformed", what)
	}
	rec := set.Records[k]
	t := &schema.Target{Role: control.Role, Contract: d.recordContract(what, control), Pick: &schema.Pick{Name: set.Pattern, Rows: set.Rows, Within: set.Within, Among: set.Among, Field: set.Radios, Shapes: set.Shapes}}
	if set.Among == "" {
		if r, ok := d.namedRecord(*set, k); ok {
			t.Pick.Rules = []schema.PickRule{r} // what shows it is templated
			return t, nil
		}
		if d.b.fromTask(rec.Key) {
			return nil, schema.Errorf(schema.CodeUnbound, "%s chooses %q among %d records, and the task names it but no parameter does: declare it (--param) and run again", what, rec.Key, len(set.Records))
		}
		if set.More > 0 {
			return nil, schema.Errorf(schema.CodeUnbound, "%s chooses %q among more than %d records, which no parameter names: too many to tell by what rule it was chosen", what, rec.Key, schema.MaxRecords)
		}
	}
	r, placed, err := d.placeRule(what, *set, k)
	switch {
	case err != nil:
		return nil, err
	case placed:
		t.Pick.Rules = []schema.PickRule{r}
		d.placed = append(d.placed, what)
		return t, nil
	case set.Among != "":
		// Siblings whose names hold no data: only a place the task
		// states chooses among them, else the control is the one its
		// name says.
		return nil, nil
	}
	t.Pick.Rules = heldRules(*set, k, d.b.intent())
	switch {
	case len(t.Pick.Rules) > 0:
		d.note("%s chose %q among %d records: the replay picks %s", what, rec.Key, len(set.Records), t.Pick)
	case judge && distinctKeys(set.Records):
		d.add(schema.Step{ID: slug("choose "+strings.ReplaceAll(set.Pattern, "*", ""), 40), Kind: schema.StepJudgment,
			Target: &schema.Target{Role: t.Role, Pick: &schema.Pick{Name: set.Pattern, Rows: set.Rows, Within: set.Within}},
			Prompt: "Which of these records fits what the page shows, for this task: " + d.b.intent()})
		t.Pick.Rules = []schema.PickRule{{Order: schema.OrderIs, Value: "{{steps." + d.last + "}}"}}
		d.note("%s chose %q among %d records, by no parameter or stated rule: a judgment step (%s) chooses among the records on the page at replay", what, rec.Key, len(set.Records), d.last)
	default:
		return nil, schema.Errorf(schema.CodeUnbound, "%s chooses %q, record %d of %d (%s), which no parameter names and no rule the task states picks (the first or last, the newest or oldest by a date, the highest or lowest by a number): replayed, it would act on that record whatever the page holds; declare the record as a parameter and run again",
			what, rec.Key, k+1, len(set.Records), keysOf(set.Records))
	}
	d.picked = append(d.picked, rec.Key)
	return t, nil
}

// placeRule returns the nth rule for record k of set when a parameter's
// value is its place in words (place=third: {{place|ordinal}}). Two
// parameters that both name it leave which one the place is unknown:
// refused.
func (d *distillation) placeRule(what string, set schema.RecordSet, k int) (schema.PickRule, bool, error) {
	var named []string
	for _, name := range d.b.names {
		v := d.b.values[name]
		if n, ok := schema.Place(v); ok && n == k+1 && schema.ConvOrdinal.OwnForm(v) {
			named = append(named, name)
		}
	}
	switch {
	case len(named) == 1:
		return schema.PickRule{Order: schema.OrderNth, Value: "{{" + named[0] + "|" + string(schema.ConvOrdinal) + "}}"}, true, nil
	case len(named) > 1:
		return schema.PickRule{}, false, schema.Errorf(schema.CodeAmbiguous, "%s chose the %d. of %d records, a place that parameters %s all state: which one the task means is unknown", what, k+1, len(set.Records), strings.Join(named, " and "))
	}
	return schema.PickRule{}, false, nil
}

// afterPlace reports, noting it for what, whether a place the task
// states chose a control at this step or before: the page from there on
// shows the record that place held once (its address, its heading), a
// record that at replay may be any, whether or not its name is in it.
func (d *distillation) afterPlace(what string) bool {
	if len(d.placed) == 0 {
		return false
	}
	d.note("%s: the page it left shows what the place chosen by %s held when recorded, which may be another at replay: not checked", what, d.placed[0])
	return true
}

// holdsPicked reports whether s (a URL, a heading, a page line) holds the
// key of a record a pick chose, escaped in a URL or not: it showed that
// record, and at replay the pick may choose another.
func (d *distillation) holdsPicked(s string) bool {
	forms := []string{strings.ToLower(s)}
	if u, err := url.PathUnescape(s); err == nil {
		forms = append(forms, strings.ToLower(u))
	}
	if u, err := url.QueryUnescape(s); err == nil {
		forms = append(forms, strings.ToLower(u))
	}
	for _, k := range d.picked {
		k = strings.ToLower(strings.TrimSpace(k))
		for _, f := range forms {
			if len(k) >= 2 && strings.Contains(f, k) {
				return true
			}
		}
	}
	return false
}

// distinctKeys reports whether no two records share a key: a judgment's
// answer names one by it.
func distinctKeys(recs []schema.Record) bool {
	seen := map[string]bool{}
	for _, r := range recs {
		if seen[r.Key] {
			return false
		}
		seen[r.Key] = true
	}
	return true
}

// namedRecord returns the rule that finds record k of set by a field
// (its key first, then its cells) that is a parameter's value, or holds
// parameter values as whole words among constants: the field templated
// whole ("{{title}}", "Operations report {{period}}"), which a record
// must be at replay, never merely contain. A field that does not tell
// the record from its siblings (every row's author is admin) names
// nothing.
func (d *distillation) namedRecord(set schema.RecordSet, k int) (schema.PickRule, bool) {
	for _, f := range recordFields(&set, k) {
		v, ok := d.b.whole(f.value)
		if !ok {
			v = d.b.within(f.value)
		}
		if refs, _ := schema.ParseRefs(v); len(refs) == 0 {
			continue
		}
		value := v
		for name, val := range d.b.values {
			value = strings.ReplaceAll(value, "{{"+name+"}}", val)
		}
		r := schema.PickRule{Order: schema.OrderIs, By: f.by, Value: value}
		if got, err := r.Apply(set); err == nil && got == k {
			r.Value = v
			return r, true
		}
	}
	return schema.PickRule{}, false
}

// recordField is one field of a record a rule can read.
type recordField struct{ by, value string }

// recordFields lists record k's key and, in a table, its other cells,
// each named as a rule reads it: by its column's header, or its place.
func recordFields(set *schema.RecordSet, k int) []recordField {
	rec := set.Records[k]
	out := []recordField{{"", rec.Key}}
	for c := 1; c < len(rec.Cells); c++ {
		by := fmt.Sprintf("column %d", c+1)
		if c < len(set.Header) && set.Header[c] != "" && uniqueHeader(set.Header, c) {
			by = set.Header[c]
		}
		out = append(out, recordField{by, rec.Cells[c]})
	}
	return out
}

func uniqueHeader(h []string, c int) bool {
	for i, x := range h {
		if i != c && strings.EqualFold(x, h[c]) {
			return false
		}
	}
	return true
}

// heldRules returns the rules that choose record k of set and that the
// task states in words: every order by every field that picks it alone
// ("the latest report": newest by Period and by Published), and its
// place when the task asks for the first or the last. A rule the data
// happens to obey but the task never asked for is chance, not a reason:
// the post the agent judged right being the newest says nothing about
// the next one.
func heldRules(set schema.RecordSet, k int, task string) []schema.PickRule {
	stated := statedOrders(task)
	var out []schema.PickRule
	for _, f := range recordFields(&set, k) {
		for _, o := range []schema.PickOrder{schema.OrderNewest, schema.OrderOldest, schema.OrderHighest, schema.OrderLowest} {
			r := schema.PickRule{Order: o, By: f.by}
			if got, err := r.Apply(set); err == nil && got == k && stated[o] {
				out = append(out, r)
			}
		}
	}
	if k == 0 && stated[schema.OrderFirst] {
		out = append(out, schema.PickRule{Order: schema.OrderFirst})
	}
	if k == len(set.Records)-1 && stated[schema.OrderLast] {
		out = append(out, schema.PickRule{Order: schema.OrderLast})
	}
	if n := statedPlace(task); n > 1 && k == n-1 {
		out = append(out, schema.PickRule{Order: schema.OrderNth, Value: strconv.Itoa(n)})
	}
	return out
}

// statedPlace returns the one place (2 for "the second", "2nd") the task
// names among the records, 0 for none, for more than one, or where the
// task negates anything (as statedOrders reads it).
func statedPlace(task string) int {
	words := strings.FieldsFunc(strings.ToLower(task), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	place := 0
	for _, w := range words {
		if slices.Contains(negations, w) || strings.HasSuffix(w, "n't") {
			return 0
		}
		n, ok := schema.Place(w)
		if !ok || n < 2 || strings.Trim(w, "0123456789") == "" {
			continue // not a place, the first (an order), or a bare number
		}
		if place != 0 && place != n {
			return 0 // two places: which one the choice was is not the task's to say
		}
		place = n
	}
	return place
}

// orderWords are the words by which a task asks for each order.
var orderWords = map[schema.PickOrder][]string{
	schema.OrderNewest:  {"latest", "newest", "most recent", "most recently", "recent", "last", "last published"},
	schema.OrderOldest:  {"oldest", "earliest", "first published", "least recently"},
	schema.OrderHighest: {"highest", "largest", "biggest", "most expensive", "maximum", "greatest", "top-rated"},
	schema.OrderLowest:  {"lowest", "smallest", "cheapest", "least expensive", "least", "minimum", "fewest"},
	schema.OrderFirst:   {"first", "top", "topmost"},
	schema.OrderLast:    {"last", "bottom", "final"},
}

// negations are the words that turn a stated order around or away
// ("every memo except the newest", "not the latest"): a task that holds
// one states no order a rule could follow.
var negations = []string{"not", "never", "no", "except", "excluding", "besides", "other", "instead", "without", "but"}

// describers are the words after which an order word describes what a
// record is about, not which record: "the memo about the latest outage".
var describers = []string{"about", "regarding", "concerning", "titled", "named", "called", "mentioning", "re"}

// statedOrders returns the orders whose words the task text holds as an
// order of the records: none when the task negates or excepts anything,
// and not an order word that follows a word describing a record's
// content.
func statedOrders(task string) map[schema.PickOrder]bool {
	words := strings.FieldsFunc(strings.ToLower(task), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '\''
	})
	out := map[schema.PickOrder]bool{}
	for _, w := range words {
		if slices.Contains(negations, w) || strings.HasSuffix(w, "n't") {
			return out
		}
	}
	// Cut the words at the first describer: what follows it is content.
	if i := slices.IndexFunc(words, func(w string) bool { return slices.Contains(describers, w) }); i >= 0 {
		words = words[:i]
	}
	text := " " + strings.Join(words, " ") + " "
	for o, ws := range orderWords {
		for _, w := range ws {
			if strings.Contains(text, " "+w+" ") {
				out[o] = true
			}
		}
	}
	return out
}

func keysOf(recs []schema.Record) string {
	keys := make([]string, len(recs))
	for i, r := range recs {
		keys[i] = r.Key
	}
	return schema.ClipList(keys, 5)
}

// recordContract is the contract a picked record's control is held to:
// its kind and method, never its address, which names the record it was
// (/memos/b/delete, digits or not): at replay the pick may choose another.
func (d *distillation) recordContract(what string, control *schema.Target) *schema.Contract {
	c := d.contract(control)
	if c == nil {
		return nil
	}
	for _, f := range []*string{&c.FormAction, &c.Href} {
		if *f != "" {
			d.note("%s: the contract leaves out %s, the address of the record chosen", what, *f)
			*f = ""
		}
	}
	return c
}
