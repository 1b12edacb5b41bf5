package distiller

import (
	"slices"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/records"
)

// A browser MCP server's snapshot (@playwright/mcp's aria tree, a line a
// node, nested by indentation) shows what a click chose among: a link of
// a list whose siblings differ in data (Download Sales report 2026-11,
// ... 2026-10). Bound by its line, such a click would replay the record
// clicked once whatever the list then holds.

// snapshotRecords returns the records the node on line lineNo of a
// snapshot sits among, and which of them it is: the controls of its role
// under the same parent (records.Around's lists). ok is false for
// a control with no such siblings, or a text that is no snapshot.
func snapshotRecords(text string, lineNo int) (set schema.RecordSet, chosen int, ok bool) {
	nodes, lines := schema.SnapshotNodes(text)
	at := slices.Index(lines, lineNo)
	if at < 0 {
		return schema.RecordSet{}, 0, false
	}
	return records.Around(nodes, at)
}
