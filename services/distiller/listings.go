package distiller

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/rote-agent/rote/schema"
)

// A value a later call passes may be one item of a listing an earlier
// result returned: the report a directory listing showed, joined to its
// directory (reports/report-2026-01.md); the branch a branch listing
// named; the name of a search's one hit. Replayed as a constant it would
// act on the recorded item whatever the listing holds then, and rebuilt
// from a parameter by word substitution (Alice {{query}}) on an item the
// listing may not hold. So it is an output of the listing's step that
// chooses among the items at replay by the rule the run followed: the
// item a parameter names, the order the task states (newest, oldest,
// highest, lowest), or the one item there was. A choice among several
// items that no rule explains is refused at learn time.

// pickArgs binds the listing items inside a call's arguments to outputs
// of the steps whose results listed them, leaving the rest of each value
// as it was (the directory joined to a picked name, for templateArgs).
func (d *distillation) pickArgs(what string, args map[string]any, producers []producer) (map[string]any, error) {
	out, err := mapStrings(args, "", func(key, s string) (any, error) {
		return d.pickString(what, key, s, producers)
	})
	if err != nil {
		return nil, err
	}
	return out.(map[string]any), nil
}

// mapStrings rebuilds v with each string inside it replaced by f's
// answer; key is the map key a value sits under (an item of a list sits
// under its list's).
func mapStrings(v any, key string, f func(key, s string) (any, error)) (any, error) {
	switch x := v.(type) {
	case string:
		return f(key, x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) { // parameters inferred on the way are named alike every time
			e := x[k]
			t, err := mapStrings(e, k, f)
			if err != nil {
				return nil, err
			}
			out[k] = t
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			t, err := mapStrings(e, key, f)
			if err != nil {
				return nil, err
			}
			out[i] = t
		}
		return out, nil
	}
	return v, nil
}

// pickString binds the longest run of s's /-separated segments that is
// an item of an earlier listing, the latest listing first.
func (d *distillation) pickString(what, key, s string, producers []producer) (any, error) {
	if strings.Contains(s, "{{") || strings.HasPrefix(s, "secret:") {
		return s, nil
	}
	for _, run := range segmentRuns(s) {
		if _, task := d.b.whole(run); task || d.b.inTask(run) {
			continue // the task's value: notBoth asks whether a result issued it
		}
		for i := len(producers) - 1; i >= 0; i-- {
			p := producers[i]
			o, items, ok := listingOf(p.world, run)
			// The one item of a listing, passed whole, is flow's when it
			// finds it on its own: by a path to a handle or id, or by the
			// text before it on its line and its characters.
			if !ok || len(items) == 1 && run == s && (o.JSON == "" || d.flowBinds(s, p)) {
				continue
			}
			o, err := d.bindPick(what, key, p, o, items, run)
			if err != nil {
				return nil, err
			}
			ref := d.declare(what, p, o, run)
			return strings.Replace(s, run, "{{"+ref+"}}", 1), nil
		}
	}
	// A file-like name that is an item of a listing rote cannot read
	// items from (a name followed by more columns) would be replayed as
	// the recorded one.
	for _, run := range segmentRuns(s) {
		if _, task := d.b.whole(run); task || d.b.inTask(run) || len(run) < minLiteral || !fileLike.MatchString(run) || run == s && isHandle(s) {
			continue
		}
		for i := len(producers) - 1; i >= 0; i-- {
			if oneLineOf(producers[i].world.Text, run) {
				return nil, schema.Errorf(schema.CodeUnbound, "%s passes %q, which %s listed on one of its lines, in a form rote cannot choose from again (more columns after it?): replayed, it would act on that item whatever the listing holds; name it with a parameter, or learn from a plainer listing", what, run, producers[i].what)
			}
		}
	}
	return s, nil
}

// fileLike is a name a listing would hold: no white space, with a dot or
// a digit in it (cafe.log, release/1.10).
var fileLike = regexp.MustCompile(`^[^\s]*[.0-9][^\s]*$`)

// oneLineOf reports whether v stands as a whole token on exactly one of
// the lines of text, a text of several lines that is no JSON: an item of
// a listing.
func oneLineOf(text, v string) bool {
	if isJSONText(text) {
		return false
	}
	lines, holding := 0, 0
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		lines++
		if containsToken(l, v) {
			holding++
		}
	}
	return lines >= 2 && holding == 1
}

// flowBinds reports whether flow binds s, the one item of p's listing,
// on its own: a handle, or an id-like field's value, found by its path.
func (d *distillation) flowBinds(s string, p producer) bool {
	if _, ok := d.jsonOutput(p.world, s); !ok {
		return false
	}
	_, _, id := d.producedID(s, []producer{p})
	return isHandle(s) || id
}

// segmentRuns lists the runs of s's /-separated segments, s itself
// first, then the longer before the shorter, each once: for
// reports/2026/r.md, reports/2026/r.md, reports/2026, 2026/r.md, reports,
// 2026, r.md. Runs under two characters are left out.
func segmentRuns(s string) []string {
	segs := strings.Split(s, "/")
	var out []string
	for n := len(segs); n >= 1; n-- {
		for i := 0; i+n <= len(segs); i++ {
			run := strings.Join(segs[i:i+n], "/")
			if len(strings.Trim(run, "/")) >= 2 && !slices.Contains(out, run) {
				out = append(out, run)
			}
		}
	}
	return out
}

// listingOf finds v as an item of a listing in w: a JSON list holding it
// (or holding objects with a field that holds it), on the shortest path;
// else the text lines that end with it after the same text it follows.
// It returns the output that reads the listing (with an item pick that
// has no rule yet) and the listing's items.
func listingOf(w schema.World, v string) (schema.Output, []schema.ListItem, bool) {
	if doc, ok := schema.ResultDocument(w.Output); ok {
		if o, ok := jsonListing(doc, v); ok {
			items, err := o.Items(w, schema.Bindings{})
			return o, items, err == nil
		}
	}
	for _, line := range strings.Split(w.Text, "\n") {
		line = strings.TrimSpace(line)
		// The item ends its line, or its first column (a size after it).
		columns := false
		if m := columnAfter.FindStringIndex(line); m != nil && strings.HasSuffix(line[:m[0]], v) {
			line, columns = line[:m[0]], true
		}
		prefix, ok := strings.CutSuffix(line, v)
		if !ok || prefix != "" && !strings.HasSuffix(prefix, " ") && isTokenByte(prefix[len(prefix)-1]) {
			continue
		}
		o := schema.Output{Line: strings.TrimLeft(prefix, " \t"), Pick: &schema.ItemPick{Columns: columns}}
		if strings.TrimSpace(o.Line) == "" {
			o.Line = ""
		}
		items, err := o.Items(w, schema.Bindings{})
		if err == nil && len(items) > 0 {
			return o, items, true
		}
	}
	return schema.Output{}, nil, false
}

// columnAfter is the gap before a line's second column.
var columnAfter = regexp.MustCompile(`(?:[ \t]{2,}|\t)\S`)

// jsonListing finds the list in doc that holds v as an item or as a
// field of its items, on the shortest path (through one-item lists only).
func jsonListing(doc any, v string) (schema.Output, bool) {
	var found []schema.Output
	var walk func(node any, path string)
	walk = func(node any, path string) {
		switch n := node.(type) {
		case map[string]any:
			for k, c := range n {
				if outputKey.MatchString(k) {
					walk(c, path+"."+k)
				}
			}
		case []any:
			for _, e := range n {
				switch item := e.(type) {
				case map[string]any:
					for _, k := range fieldKeys(item) {
						if s, ok := item[k].(string); ok && s == v {
							found = append(found, schema.Output{JSON: path, Pick: &schema.ItemPick{Field: k}})
						}
					}
				case string:
					if item == v {
						found = append(found, schema.Output{JSON: path, Pick: &schema.ItemPick{}})
					}
				}
			}
			if len(n) == 1 {
				walk(n[0], path+"[0]")
			}
		}
	}
	walk(doc, "$")
	if len(found) == 0 {
		return schema.Output{}, false
	}
	sort.SliceStable(found, func(i, j int) bool { return len(found[i].JSON) < len(found[j].JSON) })
	return found[0], true
}

// fieldKeys lists an object's keys that a pick may name, sorted.
func fieldKeys(m map[string]any) []string {
	var keys []string
	for k := range m {
		if schema.FieldName.MatchString(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// bindPick gives o the rules that choose v among items as the run did,
// proven on the recorded result: the item a parameter names (unless the
// parameter was what the listing was asked for: a search's query names
// all its hits); else the order the task states; else the one item like
// v there was. A part of v that the task names and no other item like it
// holds (2026-01 of report-2026-01.md, for "the report for 2026-01") is
// a parameter, inferred, that the item is chosen by. A choice that none
// explains is refused (CodeUnbound).
func (d *distillation) bindPick(what, key string, p producer, o schema.Output, items []schema.ListItem, v string) (schema.Output, error) {
	pick := *o.Pick
	o.Pick = &pick
	switch ext := path.Ext(v); {
	case digit.MatchString(v):
		pick.Like = familyShape(&pick, schema.ShapeOf(v), items)
	case len(ext) > 1 && !strings.Contains(ext, "/"):
		pick.Like = "*" + ext // the largest log is a .log
	}
	var like []string
	chosen := -1
	for i, it := range items {
		if pick.Likes(it.Text()) {
			like = append(like, it.Text())
		}
		if it.Text() == v && chosen < 0 {
			chosen = i
		}
	}
	// try gives the pick rules, and the kind of item the run chose
	// (kindRules), and says whether they choose v in the recorded result.
	try := func(rules ...schema.PickRule) error {
		params := schema.Bindings{Params: map[string]any{}}
		for k, x := range d.b.values {
			params.Params[k] = x
		}
		pick.Rules = append(rules, kindRules(items[chosen])...)
		got, err := o.Locate(p.world, params)
		if err == nil && fmt.Sprint(got) != v {
			err = schema.Errorf(schema.CodeAmbiguous, "it chooses %v", got)
		}
		return err
	}
	if named, ok := d.namedWithin(v, p); ok && try(schema.PickRule{Order: schema.OrderIs, Value: named}) == nil {
		return o, nil
	}
	// A listing's order is the server's own: only the orders of its
	// items' values are rules.
	stated := statedOrders(d.b.task)
	for _, order := range []schema.PickOrder{schema.OrderNewest, schema.OrderOldest, schema.OrderHighest, schema.OrderLowest} {
		if !stated[order] {
			continue
		}
		err := try(schema.PickRule{Order: order})
		if err == nil {
			return o, nil
		}
		// Or by another column (a size), the first that holds.
		for c := 2; pick.Columns && c <= len(items[chosen].Columns); c++ {
			if try(schema.PickRule{Order: order, By: fmt.Sprintf("column %d", c)}) == nil {
				return o, nil
			}
		}
		return o, schema.Errorf(schema.CodeUnbound, "%s passes %q, one of %d items %s listed (%s), and the task says %s, which rote cannot follow there: %s. Name the item with a parameter, or learn from a listing it can order (ISO or compact dates, plain numbers)", what, v, len(like), p.what, schema.ClipList(like, 5), order, schema.AsError(err).Message)
	}
	if part := d.distinguishing(v, pick.Like, like, p); part != "" {
		ref := d.b.infer(d, key, part)
		if try(schema.PickRule{Order: schema.OrderIs, Value: strings.Replace(v, part, ref, 1)}) == nil {
			return o, nil
		}
	}
	if len(like) == 1 && try(schema.PickRule{Order: schema.OrderOnly}) == nil {
		return o, nil
	}
	return o, schema.Errorf(schema.CodeUnbound, "%s passes %q, one of %d items %s listed (%s), and neither a parameter nor the task says which: replayed, it could only act on that item or guess; name it with a parameter, or say in the task how to choose it (newest, oldest, highest, lowest)", what, v, len(like), p.what, schema.ClipList(like, 5))
}

// familyShape widens shape, the chosen item's, to the items of its
// family the listing also held (items with digits that begin as it does,
// or end as it does when it begins with digits): the runs they share
// before and after, with a * between (Rechnung #-#-# *.pdf for invoices
// of several customers, report-#*.txt for report-2026-01-03.txt beside
// report-20260301.txt).
func familyShape(p *schema.ItemPick, shape string, items []schema.ListItem) string {
	p.Like = shape
	prefix, suffix := shape, shape
	kin := false
	for _, it := range items {
		s := schema.ShapeOf(it.Text())
		if s == shape || !p.Kin(it.Text()) {
			continue
		}
		kin = true
		for !strings.HasPrefix(s, prefix) {
			_, n := utf8.DecodeLastRuneInString(prefix)
			prefix = prefix[:len(prefix)-n]
		}
		for !strings.HasSuffix(s, suffix) || len(prefix)+len(suffix) > len(s) {
			_, n := utf8.DecodeRuneInString(suffix)
			suffix = suffix[n:]
		}
	}
	if !kin || !strings.Contains(prefix, "#") {
		return shape
	}
	if len(prefix)+len(suffix) > len(shape) {
		suffix = shape[len(prefix):]
	}
	return prefix + "*" + suffix
}

// kindKey is a field that says what kind of thing an item is: a memory
// graph's entityType, a type, kind or category.
var kindKey = regexp.MustCompile(`(?i)^(type|kind|category)$|[a-z](Type|Kind)$`)

// kindRules hold a pick to the kind of item the run chose: the one hit
// of a search for a person is not an organisation's at replay.
func kindRules(it schema.ListItem) []schema.PickRule {
	var out []schema.PickRule
	for _, k := range slices.Sorted(maps.Keys(it.Fields)) {
		if kindKey.MatchString(k) && it.Fields[k] != "" {
			out = append(out, schema.PickRule{Order: schema.OrderIs, By: k, Value: it.Fields[k]})
		}
	}
	return out
}

// distinguishing is the longest part of v, between separators, that the
// task's text names as whole words and that no other item of like holds,
// nor their shape (report of report-#-#.md names them all); "" when there
// is none, or when the listing call was passed it.
func (d *distillation) distinguishing(v, shape string, like []string, p producer) string {
	asked := strings.Join(stringValues(p.args), "\n")
	var bounds []int
	for i := 0; i <= len(v); i++ {
		if i == 0 || i == len(v) || !isAlnum(v[i]) || !isAlnum(v[i-1]) {
			bounds = append(bounds, i)
		}
	}
	best := ""
	for a, i := range bounds {
		for _, j := range bounds[a+1:] {
			part := v[i:j]
			if len(part) <= len(best) || part == v || !isAlnum(part[0]) || !isAlnum(part[len(part)-1]) || !d.b.inferable(part) || strings.Contains(asked, part) || shape != "" && strings.Contains(shape, part) {
				continue
			}
			others := 0
			for _, it := range like {
				if it != v && strings.Contains(it, part) {
					others++
				}
			}
			if others == 0 {
				best = part
			}
		}
	}
	return best
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// namedWithin returns v with the task's parameter values in it written
// as references ({{name}}.md for alpha.md), longest first, when one is
// there and none of them was passed to the listing call (a search's
// query is in every hit: it names none of them).
func (d *distillation) namedWithin(v string, p producer) (string, bool) {
	asked := strings.Join(stringValues(p.args), "\n")
	out := v
	for _, k := range d.b.names {
		x := d.b.values[k]
		if len(x) < minLiteral || !strings.Contains(out, x) {
			continue
		}
		if strings.Contains(asked, x) {
			return "", false
		}
		out = strings.ReplaceAll(out, x, "{{"+k+"}}")
	}
	return out, out != v
}
