package suite

import (
	"strconv"
	"strings"
)

// Node is one line of a rendered observation.
type Node struct {
	ID, Role, Name, Value string
	States                []string
}

// Has reports whether the node carries state s (checked, disabled, ...).
func (n Node) Has(s string) bool {
	for _, st := range n.States {
		if st == s {
			return true
		}
	}
	return false
}

// Page is a page as an oracle reads it from a request: the last full
// render with the diff since applied.
type Page struct {
	URL, Title string
	Nodes      []Node
}

// parsePage reads a full render: a `page "title" url` header, then a
// node per line. Lines it does not understand (statistics, truncation
// notes) are skipped.
func parsePage(text string) Page {
	var p Page
	for _, l := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(l, "page "); ok {
			p.Title, p.URL = header(rest)
			continue
		}
		if n, ok := parseNode(l); ok {
			p.Nodes = append(p.Nodes, n)
		}
	}
	return p
}

// header splits `"title" url`.
func header(s string) (title, url string) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", strings.TrimSpace(s)
	}
	title, _ = strconv.Unquote(q)
	return title, strings.TrimSpace(s[len(q):])
}

// parseNode reads `id role "name" = "value" [states]`.
func parseNode(l string) (Node, bool) {
	id, rest, ok := strings.Cut(l, " ")
	if !ok || id == "" {
		return Node{}, false
	}
	role, rest, ok := strings.Cut(rest, " ")
	if !ok {
		return Node{}, false
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return Node{}, false
	}
	n := Node{ID: id, Role: role}
	n.Name, _ = strconv.Unquote(q)
	n.Value, n.States, _ = valueStates(rest[len(q):])
	return n, true
}

// valueStates reads ` = "value" [states]`, either part optional, and
// leaves what follows.
func valueStates(s string) (value string, states []string, hasValue bool) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "= "); ok {
		if q, err := strconv.QuotedPrefix(rest); err == nil {
			value, _ = strconv.Unquote(q)
			hasValue = true
			s = strings.TrimSpace(rest[len(q):])
		}
	}
	// What follows the states (a select's options, what tells twins
	// apart) is not a state.
	if end := strings.IndexByte(s, ']'); strings.HasPrefix(s, "[") && end > 0 {
		states = strings.Fields(s[1:end])
		if states == nil {
			states = []string{}
		}
	}
	return value, states, hasValue
}

// apply applies a diff render to p: `~ page ...` for a new header, `- id`
// for a node gone, `+ line` for a new node, `~ id = "v" [states]` for a
// changed value or states, `~ line` for a renamed node, `=` for none.
func (p Page) apply(diff string) Page {
	out := Page{URL: p.URL, Title: p.Title, Nodes: append([]Node(nil), p.Nodes...)}
	index := func(id string) int {
		for i, n := range out.Nodes {
			if n.ID == id {
				return i
			}
		}
		return -1
	}
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "~ page "):
			out.Title, out.URL = header(strings.TrimPrefix(l, "~ page "))
		case strings.HasPrefix(l, "- "):
			if i := index(strings.TrimSpace(l[2:])); i >= 0 {
				out.Nodes = append(out.Nodes[:i], out.Nodes[i+1:]...)
			}
		case strings.HasPrefix(l, "+ "):
			if n, ok := parseNode(l[2:]); ok {
				out.Nodes = append(out.Nodes, n)
			}
		case strings.HasPrefix(l, "~ "):
			id, rest, _ := strings.Cut(l[2:], " ")
			if !strings.HasPrefix(rest, "= ") && !strings.HasPrefix(rest, "[") {
				if n, ok := parseNode(l[2:]); ok { // renamed: the whole line
					if i := index(n.ID); i >= 0 {
						out.Nodes[i] = n
					}
				}
				continue
			}
			if i := index(id); i >= 0 {
				v, st, hasValue := valueStates(rest)
				if hasValue {
					out.Nodes[i].Value = v
				}
				if st != nil {
					out.Nodes[i].States = st
				}
			}
		}
	}
	return out
}

// byID finds the node with id.
func (p Page) byID(id string) (Node, bool) {
	for _, n := range p.Nodes {
		if n.ID == id {
			return n, true
		}
	}
	return Node{}, false
}

// Find returns the first node with role whose name equals name (case
// folded), or false.
func (p Page) Find(role, name string) (Node, bool) {
	for _, n := range p.Nodes {
		if n.Role == role && strings.EqualFold(n.Name, name) {
			return n, true
		}
	}
	return Node{}, false
}

// FindPrefix returns the first node with role whose name starts with
// prefix (case folded).
func (p Page) FindPrefix(role, prefix string) (Node, bool) {
	for _, n := range p.Nodes {
		if n.Role == role && strings.HasPrefix(strings.ToLower(n.Name), strings.ToLower(prefix)) {
			return n, true
		}
	}
	return Node{}, false
}

// dialogButton returns the first button after the first dialog: what
// dismisses a dialog in the way.
func (p Page) dialogButton() (Node, bool) {
	for i, n := range p.Nodes {
		if n.Role != "dialog" {
			continue
		}
		for _, b := range p.Nodes[i+1:] {
			if b.Role == "button" {
				return b, true
			}
		}
	}
	return Node{}, false
}

// Text reports whether any node's name or value contains s.
func (p Page) Text(s string) bool {
	for _, n := range p.Nodes {
		if strings.Contains(n.Name, s) || strings.Contains(n.Value, s) {
			return true
		}
	}
	return false
}
