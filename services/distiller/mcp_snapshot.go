package distiller

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/records"
)

// A browser MCP server's snapshot (@playwright/mcp's aria tree, a line a
// node, nested by indentation) shows what a click chose among: a link of
// a list whose siblings differ in data (Download Sales report 2026-11,
// ... 2026-10). Bound by its line, such a click would replay the record
// clicked once whatever the list then holds.

// snapshotLine is `- role "name" [attrs]`, indented by its depth.
var snapshotLine = regexp.MustCompile(`^(\s*)- ([A-Za-z]+)(?: ("(?:[^"\\]|\\.)*"))?`)

// snapshotRecords returns the records the node on line lineNo of a
// snapshot sits among, and which of them it is: the controls of its role
// under the same parent (records.Around's lists). ok is false for
// a control with no such siblings, or a text that is no snapshot.
func snapshotRecords(text string, lineNo int) (set schema.RecordSet, chosen int, ok bool) {
	var nodes []schema.ObservedNode
	at := -1
	type open struct {
		indent int
		label  string
	}
	var path []open
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
		parts := make([]string, len(path))
		for k, p := range path {
			parts[k] = p.label
		}
		if i == lineNo {
			at = len(nodes)
		}
		nodes = append(nodes, schema.ObservedNode{Role: role, Name: name, Actionable: snapshotControls[role], Context: strings.Join(parts, " › ")})
		path = append(path, open{indent, role + " " + name})
	}
	if at < 0 {
		return schema.RecordSet{}, 0, false
	}
	return records.Around(nodes, at)
}

// snapshotControls are the roles of a snapshot's controls.
var snapshotControls = map[string]bool{"link": true, "button": true, "menuitem": true, "tab": true, "option": true, "treeitem": true, "checkbox": true, "radio": true}
