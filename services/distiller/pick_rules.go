package distiller

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rote-agent/rote/schema"
)

// The rules an item pick chooses by are the run's, proven on the
// recorded listing: which items are its family, which rule re-chooses
// the recorded item, and which kind of item it must be.

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
		pick.Like = familyShape(schema.ShapeOf(v), items)
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
	// (kindOf), and says whether they choose v in the recorded result.
	try := func(rules ...schema.PickRule) error {
		params := schema.Bindings{Params: map[string]any{}}
		for k, x := range d.b.values {
			params.Params[k] = x
		}
		pick.Rules, pick.Kind = rules, kindOf(items[chosen])
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
		// Items with nothing to order by: the word meant something else
		// ("the latest version of the readme"); the other rules decide.
		if errors.Is(err, schema.ErrNotFound) && !slices.ContainsFunc(like, func(s string) bool { _, ok := schema.Ordinal(s, true); return ok }) {
			continue
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
func familyShape(shape string, items []schema.ListItem) string {
	p := schema.ItemPick{Like: shape}
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

// kindOf is the kind of item the run chose, which a pick holds to: the
// one hit of a search for a person is not an organisation's at replay.
func kindOf(it schema.ListItem) map[string]string {
	var out map[string]string
	for k, v := range it.Fields {
		if kindKey.MatchString(k) && v != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
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
