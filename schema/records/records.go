// Package records reads the records on an observed page: the sibling
// controls a choice is made among (the same control in each row of a
// table, the entries of a list whose names differ in data), and the lists
// a page shows. A schema.Pick is evaluated here against a page: Choose
// applies its rules to the records it names, Take reads the first of
// them, Keys lists them for a judgment.
//
// What a rule means over a set of records (schema.PickRule.Apply) stays in
// package schema, which applies the same rules to the items of a listing
// in a step's result (schema.Output.Locate).
package records

import (
	"slices"
	"strings"

	"github.com/rote-agent/rote/schema"
)

// keyMark stands for a record's key inside a name pattern (schema.Pick's
// Name).
const keyMark = "*"

// pageSet is a set of records found on a page, and the index in the
// page's nodes of each record's control.
type pageSet struct {
	schema.RecordSet
	nodes []int
}

// Around returns the records the node at index i of nodes sits among,
// and which of them it is; ok is false when it has no sibling record (a
// lone control, a menu of unrelated links). They are the records a pick
// of the same name, rows and context finds: what a replay of the choice
// will choose among.
func Around(nodes []schema.ObservedNode, i int) (set schema.RecordSet, chosen int, ok bool) {
	n := nodes[i]
	if !n.Actionable {
		return schema.RecordSet{}, 0, false
	}
	table := tableRows(nodes)
	var s pageSet
	if r, in := table.of(i); in {
		s = recordsLike(nodes, table, n.Role, recordPattern(n.Name, r.key), true, r.ctx)
	} else if pattern, found := listPattern(nodes, i); found {
		s = recordsLike(nodes, table, n.Role, pattern, false, n.Context)
	} else {
		return schema.RecordSet{}, 0, false
	}
	if chosen = slices.Index(s.nodes, i); chosen < 0 {
		return schema.RecordSet{}, 0, false
	}
	return s.capped(chosen)
}

// Places returns what a place counts the node at index i of nodes among
// (schema.PlaceOf), as records keyed by their whole names, and its
// place there from 0: for a control among siblings whose names hold no
// data (a list of titles, a form's boxes), which only a place the task
// states can choose.
func Places(nodes []schema.ObservedNode, i int) (set schema.RecordSet, chosen int, ok bool) {
	c, place, ok := schema.PlaceOf(nodes, i)
	if !ok {
		return schema.RecordSet{}, 0, false
	}
	s, err := placedRecords(&schema.Pick{Name: c.Name, Within: c.Within, Among: c.Among, Field: c.Field, Shapes: c.Shapes}, c.Role, nodes)
	if err != nil || place > len(s.nodes) || s.nodes[place-1] != i {
		return schema.RecordSet{}, 0, false
	}
	return s.capped(place - 1)
}

// capped keeps the first schema.MaxRecords records, and the chosen one.
func (p pageSet) capped(chosen int) (schema.RecordSet, int, bool) {
	s := p.RecordSet
	if len(s.Records) < 2 {
		return s, chosen, false
	}
	if n := len(s.Records); n > schema.MaxRecords && chosen < schema.MaxRecords {
		s.More, s.Records = n-schema.MaxRecords, s.Records[:schema.MaxRecords]
	}
	return s, chosen, true
}

// like returns the records of a page that fit a pattern met before:
// nodes of role whose names fit pattern, in table rows or not as rows
// says, sharing the context within (with no within, the context of the
// first that fits: one table or list, never several).
func like(nodes []schema.ObservedNode, role, pattern string, rows bool, within string) pageSet {
	return recordsLike(nodes, tableRows(nodes), role, pattern, rows, within)
}

func recordsLike(nodes []schema.ObservedNode, table rowIndex, role, pattern string, rows bool, within string) pageSet {
	set := pageSet{RecordSet: schema.RecordSet{Pattern: pattern, Rows: rows}}
	for j, m := range nodes {
		if m.Role != role {
			continue
		}
		rec, ctx, fits := schema.Record{Name: m.Name}, m.Context, false
		if rows {
			r, in := table.of(j)
			rec.Key, rec.Cells, ctx = r.key, r.cells, r.ctx
			fits = in && strings.EqualFold(recordPattern(m.Name, r.key), pattern)
		} else {
			rec.Key, fits = keyOf(pattern, m.Name)
		}
		if !fits {
			continue
		}
		if within == "" {
			within = ctx
		}
		if strings.EqualFold(ctx, within) {
			set.Records = append(set.Records, rec)
			set.nodes = append(set.nodes, j)
		}
	}
	set.Within = within
	if rows {
		set.Header = table.header(within)
	}
	return set
}

// listRoles are the roles whose runs of siblings Lists reads as lists.
var listRoles = map[string]bool{"link": true, "heading": true, "row": true, "listitem": true, "button": true}

// maxLists bounds how many lists Lists returns.
const maxLists = 20

// Lists returns the lists a page shows: the nodes of one role (links,
// headings, rows, list items, buttons) that share a context, two or
// more, in the page's order, each as records keyed by their whole name.
// They are what an answer read off the page may be the first few of.
func Lists(nodes []schema.ObservedNode) []schema.RecordSet {
	type group struct{ role, ctx string }
	var order []group
	sets := map[group]*schema.RecordSet{}
	for _, n := range nodes {
		if !listRoles[n.Role] || n.Name == "" {
			continue
		}
		g := group{n.Role, n.Context}
		set := sets[g]
		if set == nil {
			set = &schema.RecordSet{Pattern: keyMark, Within: n.Context}
			sets[g] = set
			order = append(order, g)
		}
		if len(set.Records) < schema.MaxRecords {
			set.Records = append(set.Records, schema.Record{Name: n.Name, Key: n.Name})
		} else {
			set.More++
		}
	}
	var out []schema.RecordSet
	for _, g := range order {
		if s := sets[g]; len(s.Records) > 1 && len(out) < maxLists {
			s.Role = g.role
			out = append(out, *s)
		}
	}
	return out
}

// recordPattern is name with key, where it stands in it, as keyMark.
func recordPattern(name, key string) string {
	if key == "" || name == key {
		return keyMark
	}
	return strings.Replace(name, key, keyMark, 1)
}

// keyOf returns the part of name that keyMark stands for in pattern.
func keyOf(pattern, name string) (string, bool) {
	prefix, suffix, marked := strings.Cut(pattern, keyMark)
	if !marked {
		return "", false
	}
	if len(name) <= len(prefix)+len(suffix) || !strings.HasPrefix(strings.ToLower(name), strings.ToLower(prefix)) || !strings.HasSuffix(strings.ToLower(name), strings.ToLower(suffix)) {
		return "", false
	}
	return name[len(prefix) : len(name)-len(suffix)], true
}

// listPattern finds the pattern of the list entries that the node at i
// is one of (the actionable nodes of its role and context): the words its
// name shares, from the start and from the end, with the names of its
// siblings whose differing part holds a digit (data, an id or a date: not
// "Sign in" beside "Sign up"). The shared words hold no digit themselves.
func listPattern(nodes []schema.ObservedNode, i int) (string, bool) {
	n := nodes[i]
	var same []int
	for j, m := range nodes {
		if m.Actionable && m.Role == n.Role && m.Context == n.Context {
			same = append(same, j)
		}
	}
	words := strings.Fields(n.Name)
	best, bestCount := "", 0
	for _, j := range same {
		if j == i {
			continue
		}
		other := strings.Fields(nodes[j].Name)
		p := commonWords(words, other, false)
		s := commonWords(words[p:], other[p:], true)
		if p+s == 0 || p+s >= len(words) || p+s >= len(other) {
			continue
		}
		mine := strings.Join(words[p:len(words)-s], " ")
		theirs := strings.Join(other[p:len(other)-s], " ")
		if !strings.ContainsAny(mine, "0123456789") || !strings.ContainsAny(theirs, "0123456789") {
			continue
		}
		pattern := strings.Join(append(append(append([]string{}, words[:p]...), keyMark), words[len(words)-s:]...), " ")
		count := 0
		for _, k := range same {
			if key, ok := keyOf(pattern, nodes[k].Name); ok && strings.ContainsAny(key, "0123456789") {
				count++
			}
		}
		if count > bestCount {
			best, bestCount = pattern, count
		}
	}
	return best, bestCount > 1
}

// commonWords counts the words a and b share from the start (or from
// the end), stopping at a word with a digit in it.
func commonWords(a, b []string, fromEnd bool) int {
	n := 0
	for n < len(a) && n < len(b) {
		x, y := a[n], b[n]
		if fromEnd {
			x, y = a[len(a)-1-n], b[len(b)-1-n]
		}
		if !strings.EqualFold(x, y) || strings.ContainsAny(x, "0123456789") {
			break
		}
		n++
	}
	return n
}

// tableRow is a row of a table on a page: the context it sits in, its
// key (first cell with text) and its cells, each in its place.
type tableRow struct {
	ctx, key string
	cells    []string
}

// rowIndex maps the nodes of a page to the table rows they sit in.
type rowIndex struct {
	rows  []tableRow
	owner map[int]int // node index -> index in rows
}

// tableRows reads the rows of a page's tables: a node belongs to the
// last row before it when its context is that row's context and key (or,
// for a control named as the key itself, that row's context).
func tableRows(nodes []schema.ObservedNode) rowIndex {
	idx := rowIndex{owner: map[int]int{}}
	cur := -1
	for j, n := range nodes {
		if n.Role == "row" {
			cells := n.Cells
			if cells == nil { // an observation recorded before rows carried their cells
				cells = strings.Split(n.Name, " | ")
			}
			key := ""
			if k := slices.IndexFunc(cells, func(c string) bool { return c != "" }); k >= 0 {
				key = cells[k]
			}
			idx.rows = append(idx.rows, tableRow{ctx: n.Context, key: key, cells: cells})
			cur = len(idx.rows) - 1
			continue
		}
		if cur < 0 {
			continue
		}
		r := idx.rows[cur]
		if n.Context == joinContext(r.ctx, r.key) || (n.Name == r.key && n.Context == r.ctx) {
			idx.owner[j] = cur
		}
	}
	return idx
}

func joinContext(ctx, part string) string {
	if ctx == "" {
		return part
	}
	return ctx + " › " + part
}

func (x rowIndex) of(j int) (tableRow, bool) {
	k, ok := x.owner[j]
	if !ok {
		return tableRow{}, false
	}
	return x.rows[k], true
}

// header returns the cells of the header row of the table in ctx: its
// first row, when no control sits in it.
func (x rowIndex) header(ctx string) []string {
	for k, r := range x.rows {
		if !strings.EqualFold(r.ctx, ctx) {
			continue
		}
		for _, owner := range x.owner {
			if owner == k {
				return nil
			}
		}
		return r.cells
	}
	return nil
}
