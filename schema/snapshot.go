package schema

import (
	"regexp"
	"strconv"
	"strings"
)

// A browser MCP server's snapshot (@playwright/mcp's aria tree, a line a
// node, nested by indentation) read as nodes: what a click there chose
// among, and what a place the task states counts, are read off it as
// off a page rote observed.

// snapshotLine is `- role "name" [attrs]`, indented by its depth.
var snapshotLine = regexp.MustCompile(`^(\s*)- ([A-Za-z]+)(?: ("(?:[^"\\]|\\.)*"))?`)

// snapshotControls are the roles of a snapshot's controls.
var snapshotControls = map[string]bool{"link": true, "button": true, "menuitem": true, "tab": true, "option": true, "treeitem": true, "checkbox": true, "radio": true, "switch": true}

// SnapshotNodes reads a snapshot's lines as nodes, in order, and the
// number of the line each came from: its role and name, whether it is a
// control, its context (the roles and names of the lines it is nested
// in, joined by " › "), and the list and item it sits in (see
// ObservedNode's List and Item). A text that is no snapshot has none.
func SnapshotNodes(text string) (nodes []ObservedNode, lines []int) {
	type open struct {
		indent     int
		label      string
		list, item int // a list's number, a list item's place; else 0
		items      int // how many items of a list were met
		node       int // its index in nodes
	}
	var path []open
	parents := map[int][]int{}
	lists := 0
	for i, line := range strings.Split(text, "\n") {
		m := snapshotLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		indent, role, name := len(m[1]), m[2], ""
		if m[3] != "" {
			name, _ = strconv.Unquote(m[3])
		}
		for len(path) > 0 && path[len(path)-1].indent >= indent {
			path = path[:len(path)-1]
		}
		n := ObservedNode{Role: role, Name: name, Actionable: snapshotControls[role]}
		parts := make([]string, len(path))
		for k, p := range path {
			parts[k] = p.label
			if p.item > 0 {
				n.List, n.Item = p.list, p.item
			}
		}
		n.Context = strings.Join(parts, " › ")
		here := open{indent: indent, label: role + " " + name}
		switch role {
		case "list":
			lists++
			here.list = lists
		case "listitem":
			for k := len(path) - 1; k >= 0; k-- {
				if path[k].list > 0 && path[k].item == 0 {
					path[k].items++
					here.list, here.item = path[k].list, path[k].items
					break
				}
			}
		}
		here.node = len(nodes)
		for _, p := range path {
			parents[here.node] = append(parents[here.node], p.node)
		}
		nodes = append(nodes, n)
		lines = append(lines, i)
		path = append(path, here)
	}
	groupControls(nodes, parents)
	return nodes, lines
}

// groupControls sets each control's Group: 1 + the index of the nearest
// line it is nested in that holds another control of its role (a form's
// box in its own label holds none, the form does). parents lists each
// node's enclosing nodes, outermost first.
func groupControls(nodes []ObservedNode, parents map[int][]int) {
	type held struct {
		container int
		role      string
	}
	holds := map[held]int{} // how many controls of role a container holds
	for i, n := range nodes {
		if n.Actionable {
			for _, p := range parents[i] {
				holds[held{p, n.Role}]++
			}
		}
	}
	for i := range nodes {
		if !nodes[i].Actionable {
			continue
		}
		up := parents[i]
		for k := len(up) - 1; k >= 0; k-- {
			if holds[held{up[k], nodes[i].Role}] > 1 {
				nodes[i].Group = up[k] + 1
				break
			}
		}
	}
}
