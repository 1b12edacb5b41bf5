package perception

import (
	"fmt"
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
		b.WriteString(strconv.Quote(n.Value))
	}
	if len(n.States) > 0 {
		b.WriteString(" [")
		b.WriteString(strings.Join(n.States, " "))
		b.WriteByte(']')
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
	for _, n := range nodes {
		if keep(n) {
			b.WriteByte('\n')
			b.WriteString(line(n))
		}
	}
	return b.String()
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
	for _, n := range nodes {
		switch old, ok := before[n.ID]; {
		case !ok:
			add("+ " + line(n))
		case old != line(n):
			add("~ " + changed(prev[n.ID], n))
		}
	}
	if b.Len() == 0 {
		return "="
	}
	return b.String()
}

// changed renders a node that kept its id: only its new value and states
// (`~ k3f9q2 = "Acme" [checked]`, with `= ""` and `[]` for cleared ones),
// or its whole line when its role or name changed.
func changed(was, now schema.ObservedNode) string {
	if was.Role != now.Role || was.Name != now.Name {
		return line(now)
	}
	var b strings.Builder
	b.WriteString(now.ID)
	if was.Value != now.Value {
		b.WriteString(" = ")
		b.WriteString(strconv.Quote(now.Value))
	}
	if strings.Join(was.States, " ") != strings.Join(now.States, " ") {
		b.WriteString(" [")
		b.WriteString(strings.Join(now.States, " "))
		b.WriteByte(']')
	}
	return b.String()
}
