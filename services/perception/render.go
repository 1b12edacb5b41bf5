package perception

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rote-agent/rote/schema"
)

// Budgets, in characters of render.
const (
	DefaultBudget    = 32_000  // what a page normally may take
	EmergencyCeiling = 100_000 // the most one grounded bootstrap may take
)

// line renders one node: id, role, quoted name, value and states.
func line(n schema.ObservedNode) string {
	var b strings.Builder
	b.WriteString(n.ID)
	b.WriteByte(' ')
	b.WriteString(n.Role)
	b.WriteByte(' ')
	b.WriteString(strconv.Quote(n.Name))
	if n.Value != "" {
		b.WriteString(" = ")
		b.WriteString(strconv.Quote(schema.Clip(n.Value, maxTextChars)))
	}
	if len(n.States) > 0 {
		b.WriteString(" [")
		b.WriteString(strings.Join(n.States, " "))
		b.WriteByte(']')
	}
	if len(n.Options) > 0 {
		b.WriteString(" options: ")
		for i, o := range n.Options {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(o)
		}
		if more := n.OptionCount - len(n.Options); more > 0 {
			fmt.Fprintf(&b, " | … %d more", more)
		}
	}
	return b.String()
}

// header is the first line of a full render: where the page is.
func header(url, title string) string {
	return fmt.Sprintf("page %s %s", strconv.Quote(title), url)
}

// renderFull renders every node, or, over budget, drops loose text first.
// A render over budget but under the ceiling is a bootstrap; above the
// ceiling it is a *schema.Error with CodeTooLarge: the planner must not
// get a summary without selectors instead.
func renderFull(url, title string, nodes []schema.ObservedNode, budget int) (string, bool, error) {
	full := renderNodes(url, title, nodes, func(schema.ObservedNode) bool { return true })
	if runes(full) <= budget {
		return full, false, nil
	}
	compact := renderNodes(url, title, nodes, func(n schema.ObservedNode) bool { return n.Role != "text" })
	switch {
	case runes(compact) <= budget:
		return compact, false, nil
	case runes(full) <= EmergencyCeiling:
		return full, true, nil
	case runes(compact) <= EmergencyCeiling:
		return compact, true, nil
	}
	return "", false, schema.Errorf(schema.CodeTooLarge, "%d nodes render to %d characters even without loose text, over the %d-character ceiling",
		len(nodes), runes(compact), EmergencyCeiling)
}

func runes(s string) int { return utf8.RuneCountInString(s) }

func renderNodes(url, title string, nodes []schema.ObservedNode, keep func(schema.ObservedNode) bool) string {
	var b strings.Builder
	b.WriteString(header(url, title))
	apart := twinsApart(nodes)
	for i, n := range nodes {
		if keep(n) {
			b.WriteByte('\n')
			b.WriteString(line(n))
			b.WriteString(apart[i])
		}
	}
	return b.String()
}

// twinsApart says, for every control that shares its role and name with
// another on the page, what tells it apart, as a suffix to its line: the
// parts of its context the others do not share (" (in row Contoso)"), or
// its place among them (" (2 of 2)") when their contexts are the same.
// Other nodes get "".
func twinsApart(nodes []schema.ObservedNode) []string {
	type look struct{ role, name string }
	groups := map[look][]int{}
	var order []look
	for i, n := range nodes {
		if !n.Actionable {
			continue
		}
		k := look{n.Role, strings.ToLower(n.Name)}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	out := make([]string, len(nodes))
	for _, k := range order {
		twins := groups[k]
		if len(twins) < 2 {
			continue
		}
		parts := make([][]string, len(twins))
		for j, i := range twins {
			if nodes[i].Context != "" {
				parts[j] = strings.Split(nodes[i].Context, " › ")
			}
		}
		shared := commonPrefix(parts)
		seen := map[string]int{}
		for j, i := range twins {
			apart := strings.Join(parts[j][shared:], " › ")
			seen[apart]++
			out[i] = apart
		}
		place := map[string]int{}
		for _, i := range twins {
			apart := out[i]
			switch {
			case seen[apart] == 1:
				// The one outside what the others share is told by where it is.
				out[i] = " (in " + cmp.Or(apart, nodes[i].Context, "the page") + ")"
			case apart == "":
				place[apart]++
				out[i] = fmt.Sprintf(" (%d of %d)", place[apart], seen[apart])
			default:
				place[apart]++
				out[i] = fmt.Sprintf(" (in %s, %d of %d)", apart, place[apart], seen[apart])
			}
		}
	}
	return out
}

// commonPrefix is how many leading parts every list shares.
func commonPrefix(lists [][]string) int {
	n := 0
	for ; ; n++ {
		for _, l := range lists {
			if n >= len(l) || l[n] != lists[0][n] {
				return n
			}
		}
	}
}

// renderDiff renders what changed from the grounded observation: removed
// ids ("- id"), added nodes ("+ line"), changed nodes ("~ id" and what
// changed), and the URL or title when they changed. An unchanged page
// renders as "=".
func renderDiff(grounded *schema.Observation, url, title string, nodes []schema.ObservedNode) string {
	before := make(map[string]string, len(grounded.Nodes))
	for _, n := range grounded.Nodes {
		before[n.ID] = line(n)
	}
	now := make(map[string]bool, len(nodes))
	var b strings.Builder
	add := func(s string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	if url != grounded.URL || title != grounded.Title {
		add("~ " + header(url, title))
	}
	for _, n := range grounded.Nodes {
		now[n.ID] = false
	}
	for _, n := range nodes {
		now[n.ID] = true
	}
	for _, n := range grounded.Nodes {
		if !now[n.ID] {
			add("- " + n.ID)
		}
	}
	prev := make(map[string]schema.ObservedNode, len(grounded.Nodes))
	for _, n := range grounded.Nodes {
		prev[n.ID] = n
	}
	apart := twinsApart(nodes)
	twins := twinned(grounded.Nodes, nodes)
	for i, n := range nodes {
		old, ok := before[n.ID]
		switch {
		case !ok:
			add("+ " + line(n) + apart[i])
		case twins[baseID(n.ID)] && (prev[n.ID].Backend != n.Backend || prev[n.ID].Frame != n.Frame):
			// A twin's id is its place among its twins: one inserted or
			// removed before it moved the id onto another element, which
			// is said in full, with its place.
			add("~ " + line(n) + apart[i])
		case old != line(n):
			add("~ " + changed(prev[n.ID], n))
		}
	}
	if b.Len() == 0 {
		return "="
	}
	return b.String()
}

// twinned returns the base ids that several nodes share, before or now.
func twinned(before, now []schema.ObservedNode) map[string]bool {
	out := map[string]bool{}
	for _, nodes := range [][]schema.ObservedNode{before, now} {
		for _, n := range nodes {
			if base := baseID(n.ID); base != n.ID {
				out[base] = true
			}
		}
	}
	return out
}

// baseID is an id without its twin ordinal: "k3f9q2" of "k3f9q2~2".
func baseID(id string) string {
	base, _, _ := strings.Cut(id, "~")
	return base
}

// changed renders a node that kept its id: only its new value and states
// (`~ k3f9q2 = "Acme" [checked]`, with `= ""` and `[]` for cleared ones),
// or its whole line when its role, name or options changed.
func changed(was, now schema.ObservedNode) string {
	if was.Role != now.Role || was.Name != now.Name || was.OptionCount != now.OptionCount || !slices.Equal(was.Options, now.Options) {
		return line(now)
	}
	var b strings.Builder
	b.WriteString(now.ID)
	if was.Value != now.Value {
		b.WriteString(" = ")
		b.WriteString(strconv.Quote(schema.Clip(now.Value, maxTextChars)))
	}
	if strings.Join(was.States, " ") != strings.Join(now.States, " ") {
		b.WriteString(" [")
		b.WriteString(strings.Join(now.States, " "))
		b.WriteByte(']')
	}
	return b.String()
}
