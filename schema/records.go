package schema

import (
	"slices"
	"strings"
)

// Record is one of the sibling controls a choice was made among: the
// same control in each row of a table ("Download" in every report's
// row), or one entry of a list whose names share a pattern and differ in
// data ("Download RPT-2026-11", "Download RPT-2026-10").
type Record struct {
	Name string `msgpack:"name" json:"name"`
	// Key tells the record from its siblings: its row's first cell, or
	// the part of its name its siblings do not share.
	Key string `msgpack:"key" json:"key"`
	// Cells are its row's cells, when it sits in a table row.
	Cells []string `msgpack:"cells,omitempty" json:"cells,omitempty"`
}

// RecordSet is the records a control sits among, found on a page.
type RecordSet struct {
	// Pattern is the controls' shared name, "*" standing for the key
	// where the name holds it.
	Pattern string `msgpack:"pattern" json:"pattern"`
	// Rows says the records are table rows, keyed by their first cell.
	Rows bool `msgpack:"rows,omitempty" json:"rows,omitempty"`
	// Within is the context the records share.
	Within  string   `msgpack:"within,omitempty" json:"within,omitempty"`
	Records []Record `msgpack:"records" json:"records"`
	// Header is the cells of the rows' header row, when the table has one.
	Header []string `msgpack:"header,omitempty" json:"header,omitempty"`
	// Role is the role of a list's nodes (ListsOf).
	Role string `msgpack:"role,omitempty" json:"role,omitempty"`
	// More counts the records left out past MaxRecords.
	More  int   `msgpack:"more,omitempty" json:"more,omitempty"`
	nodes []int // the index in the page's nodes of each record's control
}

// MaxRecords is how many records RecordsAround keeps: what a choice was
// made among travels in an event.
const MaxRecords = 100

// keyMark stands for a record's key inside a name pattern.
const keyMark = "*"

// RecordsAround returns the records the node at index i of nodes sits
// among, and which of them it is; ok is false when it has no sibling
// record (a lone control, a menu of unrelated links). They are the
// records RecordsLike finds for its pattern and context: what a replay of
// the choice will choose among.
func RecordsAround(nodes []ObservedNode, i int) (set RecordSet, chosen int, ok bool) {
	n := nodes[i]
	if !n.Actionable {
		return RecordSet{}, 0, false
	}
	table := tableRows(nodes)
	if r, in := table.of(i); in {
		set = recordsLike(nodes, table, n.Role, recordPattern(n.Name, r.key), true, r.ctx)
	} else if pattern, found := listPattern(nodes, i); found {
		set = recordsLike(nodes, table, n.Role, pattern, false, n.Context)
	} else {
		return RecordSet{}, 0, false
	}
	if chosen = slices.Index(set.nodes, i); chosen < 0 {
		return RecordSet{}, 0, false
	}
	return set.capped(chosen)
}

// capped keeps the first MaxRecords records, and the chosen one.
func (s RecordSet) capped(chosen int) (RecordSet, int, bool) {
	if len(s.Records) < 2 {
		return s, chosen, false
	}
	if n := len(s.Records); n > MaxRecords && chosen < MaxRecords {
		s.More, s.Records, s.nodes = n-MaxRecords, s.Records[:MaxRecords], s.nodes[:MaxRecords]
	}
	return s, chosen, true
}

// RecordsLike returns the records of a page that fit a pattern met
// before: nodes of role whose names fit pattern, in table rows or not as
// rows says, sharing the context within (with no within, the context of
// the first that fits: one table or list, never several).
func RecordsLike(nodes []ObservedNode, role, pattern string, rows bool, within string) RecordSet {
	return recordsLike(nodes, tableRows(nodes), role, pattern, rows, within)
}

func recordsLike(nodes []ObservedNode, table rowIndex, role, pattern string, rows bool, within string) RecordSet {
	set := RecordSet{Pattern: pattern, Rows: rows}
	for j, m := range nodes {
		if m.Role != role {
			continue
		}
		rec, ctx, fits := Record{Name: m.Name}, m.Context, false
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

// listRoles are the roles whose runs of siblings ListsOf reads as lists.
var listRoles = map[string]bool{"link": true, "heading": true, "row": true, "listitem": true, "button": true}

// maxLists bounds how many lists ListsOf returns.
const maxLists = 20

// ListsOf returns the lists a page shows: the nodes of one role (links,
// headings, rows, list items, buttons) that share a context, two or
// more, in the page's order, each as records keyed by their whole name.
// They are what an answer read off the page may be the first few of.
func ListsOf(nodes []ObservedNode) []RecordSet {
	type group struct{ role, ctx string }
	var order []group
	sets := map[group]*RecordSet{}
	for j, n := range nodes {
		if !listRoles[n.Role] || n.Name == "" {
			continue
		}
		g := group{n.Role, n.Context}
		set := sets[g]
		if set == nil {
			set = &RecordSet{Pattern: keyMark, Within: n.Context}
			sets[g] = set
			order = append(order, g)
		}
		if len(set.Records) < MaxRecords {
			set.Records = append(set.Records, Record{Name: n.Name, Key: n.Name})
			set.nodes = append(set.nodes, j)
		} else {
			set.More++
		}
	}
	var out []RecordSet
	for _, g := range order {
		if s := sets[g]; len(s.Records) > 1 && len(out) < maxLists {
			s.Role = g.role
			out = append(out, *s)
		}
	}
	return out
}

// Node returns the index in the page's nodes of record k's control.
func (s RecordSet) Node(k int) int { return s.nodes[k] }

// keys lists the records' keys, in order.
func (s RecordSet) keys() []string {
	out := make([]string, len(s.Records))
	for i, r := range s.Records {
		out[i] = r.Key
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
func listPattern(nodes []ObservedNode, i int) (string, bool) {
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
func tableRows(nodes []ObservedNode) rowIndex {
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
