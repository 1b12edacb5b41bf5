package distiller

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

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
	return s, nil
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
		prefix, ok := strings.CutSuffix(line, v)
		if !ok || prefix != "" && !strings.HasSuffix(prefix, " ") && isTokenByte(prefix[len(prefix)-1]) {
			continue
		}
		o := schema.Output{Line: strings.TrimLeft(prefix, " \t"), Pick: &schema.ItemPick{}}
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
	if digit.MatchString(v) {
		pick.Like = schema.ShapeOf(v)
	}
	var like []string
	for _, it := range items {
		if pick.Like == "" || schema.ShapeOf(it.Text()) == pick.Like {
			like = append(like, it.Text())
		}
	}
	holds := func(rules ...schema.PickRule) bool {
		params := schema.Bindings{Params: map[string]any{}}
		for k, x := range d.b.values {
			params.Params[k] = x
		}
		pick.Rules = rules
		got, err := o.Locate(p.world, params)
		return err == nil && fmt.Sprint(got) == v
	}
	if named, ok := d.namedWithin(v, p); ok && holds(schema.PickRule{Order: schema.OrderIs, Value: named}) {
		return o, nil
	}
	// A listing's order is the server's own: only the orders of its
	// items' values are rules.
	stated := statedOrders(d.b.task)
	var orders []schema.PickOrder
	for _, order := range []schema.PickOrder{schema.OrderNewest, schema.OrderOldest, schema.OrderHighest, schema.OrderLowest} {
		if stated[order] {
			orders = append(orders, order)
			if holds(schema.PickRule{Order: order}) {
				return o, nil
			}
		}
	}
	if len(orders) > 0 {
		return o, schema.Errorf(schema.CodeUnbound, "%s passes %q, one of %d items %s listed (%s), but the task's %s chooses another there: learn from a run that did what the task says", what, v, len(like), p.what, schema.ClipList(like, 5), orders[0])
	}
	if part := d.distinguishing(v, pick.Like, like, p); part != "" {
		ref := d.b.infer(d, key, part)
		if holds(schema.PickRule{Order: schema.OrderIs, Value: strings.Replace(v, part, ref, 1)}) {
			return o, nil
		}
	}
	if len(like) == 1 && holds(schema.PickRule{Order: schema.OrderOnly}) {
		return o, nil
	}
	return o, schema.Errorf(schema.CodeUnbound, "%s passes %q, one of %d items %s listed (%s), and neither a parameter nor the task says which: replayed, it could only act on that item or guess; name it with a parameter, or say in the task how to choose it (newest, oldest, highest, lowest)", what, v, len(like), p.what, schema.ClipList(like, 5))
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
