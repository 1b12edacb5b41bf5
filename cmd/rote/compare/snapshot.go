package compare

import (
	"regexp"
	"strconv"
	"strings"
)

// snapshotLine is a node of @playwright/mcp's aria snapshot that a
// client can act on: it has a ref.
var snapshotLine = regexp.MustCompile(`^\s*- ([A-Za-z]+)(?: ("(?:[^"\\]|\\.)*"))?(.*\[ref=[^\]]+\].*)$`)

// snapshotRoles are the roles of the controls a snapshot shows.
var snapshotRoles = map[string]bool{
	"link": true, "button": true, "textbox": true, "searchbox": true, "combobox": true, "listbox": true, "option": true,
	"checkbox": true, "radio": true, "switch": true, "slider": true, "spinbutton": true, "tab": true, "menuitem": true,
	"menuitemcheckbox": true, "menuitemradio": true, "treeitem": true,
}

// snapshotControls returns the names of the controls a snapshot shows:
// the nodes of a control's role, and any node it marks as taking the
// pointer ([cursor=pointer]) that is no control's own part (the text of
// a link is marked too).
func snapshotControls(snap string) []string {
	var out []string
	pointerParent := -1 // the indentation of the last control: its children are its parts
	for _, line := range strings.Split(snap, "\n") {
		m := snapshotLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if pointerParent >= 0 && indent <= pointerParent {
			pointerParent = -1
		}
		name := ""
		if m[2] != "" {
			name, _ = strconv.Unquote(m[2])
		} else if i := strings.LastIndex(m[3], "]: "); i >= 0 {
			name = strings.TrimSpace(m[3][i+3:]) // a node named by its text: `generic [ref=e5]: Archive`
			if unquoted, err := strconv.Unquote(name); err == nil {
				name = unquoted // YAML quotes a text with a colon: `generic [ref=e9]: "City:"`
			}
		}
		control := snapshotRoles[m[1]] || (strings.Contains(m[3], "[cursor=pointer]") && pointerParent < 0)
		if !control {
			continue
		}
		if pointerParent < 0 {
			pointerParent = indent
		}
		if name != "" {
			out = append(out, name)
		}
	}
	return out
}
