package perception

import (
	"slices"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/rote-agent/rote/schema"
)

// fieldRoles are the controls a form labels. One the page gives no
// accessible name (a <label> not tied to it by for=, a table cell beside
// it) is named by the text a person reads as its label: see shownLabel.
var fieldRoles = set("textbox", "searchbox", "combobox", "listbox", "checkbox", "radio", "switch", "slider", "spinbutton",
	"date-picker", "time-picker", "datetime-local-picker", "month-picker", "week-picker", "color-picker")

// labelAfter are the fields whose label conventionally follows them
// ("☐ Remember me").
var labelAfter = set("checkbox", "radio", "switch")

const (
	// maxLabelChars: longer text beside a field is prose, not its label.
	maxLabelChars = 60
	// maxLabelClimb is how many ancestors up a label is looked for: the
	// field's own wrapper, its cell or line, and the row or group.
	maxLabelClimb = 3
)

// shownLabel returns the text a person reads as the label of field n,
// which has no accessible name: the nearest short text before it among
// its siblings and its ancestors' siblings (after it first, for a
// checkbox or radio), at most maxLabelClimb levels up. A direction stops
// at another control (the text there is that control's label) and at
// prose longer than maxLabelChars. It returns "" when nothing qualifies:
// the field stays unnamed rather than named by a guess.
func (d *condenser) shownLabel(n *accessibility.Node, role string) string {
	dirs := []int{-1}
	if labelAfter[role] {
		dirs = []int{+1, -1}
	}
	stopped := map[int]bool{}
	x := n
	for range maxLabelClimb {
		p := d.byID[x.ParentID]
		if p == nil {
			return ""
		}
		at := slices.Index(p.ChildIDs, x.NodeID)
		if at < 0 {
			return ""
		}
		for _, dir := range dirs {
			if stopped[dir] {
				continue
			}
			text, stop := d.labelBeside(p.ChildIDs, at, dir)
			if text != "" {
				return text
			}
			stopped[dir] = stop
		}
		x = p
	}
	return ""
}

// labelBeside looks from siblings[at] in direction dir (-1 before, +1
// after) for the first sibling that shows anything: its text when that
// is short and holds no control. stop says the direction ended at a
// control or at prose, so the levels above must not look past it.
func (d *condenser) labelBeside(siblings []accessibility.NodeID, at, dir int) (text string, stop bool) {
	for i := at + dir; i >= 0 && i < len(siblings); i += dir {
		s := d.byID[siblings[i]]
		if s == nil {
			continue
		}
		if actionableRoles[axString(s.Role)] || d.holdsControl(s) {
			return "", true
		}
		t := d.text(s)
		switch {
		case t == "":
			continue // hidden, or empty: look further
		case len([]rune(t)) > maxLabelChars:
			return "", true
		}
		return schema.Clip(t, maxLabelChars), false
	}
	return "", false
}
