package perception

import (
	"cmp"
	"slices"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/rote-agent/rote/schema"
)

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
// which has no accessible name, from the run of siblings it sits in (a
// named control, a control's container or a paragraph ends a run),
// climbing at most maxLabelClimb levels while it stands alone. Alone
// with texts around it, a field takes the nearest <label> element on its
// side (after it for a checkbox or radio, before it otherwise), else the
// nearest text there, else the other side's. Among several unnamed
// fields the run must read one way only: each field right after its
// text (Name [ ] Email [ ]) or each right before it ([ ] Name [ ] Email);
// any other run (a heading above two fields, a row of labels above a row
// of fields) names none of them. It returns "" when nothing qualifies:
// the field stays unnamed rather than named by a guess.
func (d *condenser) shownLabel(n *accessibility.Node, role string) string {
	x := n
	for range maxLabelClimb {
		p := d.byID[x.ParentID]
		if p == nil {
			return ""
		}
		items, at := d.labelRun(p.ChildIDs, x.NodeID)
		if at < 0 {
			return ""
		}
		if len(items) == 1 {
			if d.controlsUnder(p, 2) > 1 {
				return "" // not alone: what is further out labels a group
			}
			x = p // alone at this level: its label is further out
			continue
		}
		return pickLabel(items, at, labelAfter[role])
	}
	return ""
}

// labelItem is a sibling in a field's run: a field that has no name of
// its own, a text, or the text of a <label> element.
type labelItem struct {
	field, label bool
	text         string
}

// labelRun classifies the siblings around self (an element of siblings)
// into the run it sits in, and returns self's place in it (-1 when self
// is not among siblings).
func (d *condenser) labelRun(siblings []accessibility.NodeID, self accessibility.NodeID) ([]labelItem, int) {
	at := slices.Index(siblings, self)
	if at < 0 {
		return nil, -1
	}
	var before, after []labelItem
	for i := at - 1; i >= 0; i-- {
		it, ok, end := d.labelSibling(siblings[i])
		if end {
			break
		}
		if ok {
			before = append(before, it)
		}
	}
	for i := at + 1; i < len(siblings); i++ {
		it, ok, end := d.labelSibling(siblings[i])
		if end {
			break
		}
		if ok {
			after = append(after, it)
		}
	}
	slices.Reverse(before)
	items := append(append(before, labelItem{field: true}), after...)
	return items, len(before)
}

// labelSibling classifies one sibling: ok is false for one that shows
// nothing, end true for one that ends the run.
func (d *condenser) labelSibling(id accessibility.NodeID) (it labelItem, ok, end bool) {
	s := d.byID[id]
	if s == nil {
		return it, false, false
	}
	role := axString(s.Role)
	switch {
	case actionableRoles[role]:
		if schema.IsField(role) && clean(axString(s.Name)) == "" {
			return labelItem{field: true}, true, false
		}
		return it, false, true
	case d.holdsControl(s):
		return it, false, true
	}
	t := d.text(s)
	switch {
	case t == "":
		return it, false, false
	case len([]rune(t)) > maxLabelChars:
		return it, false, true
	}
	return labelItem{label: role == "LabelText", text: t}, true, false
}

// pickLabel names the field at items[at] as shownLabel says.
func pickLabel(items []labelItem, at int, after bool) string {
	fields := 0
	for _, it := range items {
		if it.field {
			fields++
		}
	}
	if fields == 1 {
		near := func(dir int) string {
			text := ""
			for i := at + dir; i >= 0 && i < len(items); i += dir {
				if items[i].label {
					return items[i].text
				}
				if text == "" {
					text = items[i].text
				}
			}
			return text
		}
		first, second := -1, +1
		if after {
			first, second = +1, -1
		}
		return schema.Clip(cmp.Or(near(first), near(second)), maxLabelChars)
	}
	alternates := func(fieldFirst bool) bool {
		if len(items)%2 != 0 {
			return false
		}
		for i, it := range items {
			if it.field != (i%2 == 0 == fieldFirst) {
				return false
			}
		}
		return true
	}
	switch {
	case alternates(false): // Name [ ] Email [ ]
		return schema.Clip(items[at-1].text, maxLabelChars)
	case alternates(true): // [ ] Name [ ] Email
		return schema.Clip(items[at+1].text, maxLabelChars)
	}
	return ""
}

// namedByPlaceholder reports whether a field's accessible name is only
// its placeholder: nothing else names it (aria-label, aria-labelledby, a
// title) and the name is the placeholder's text.
func namedByPlaceholder(name string, dn *domNode) bool {
	if dn == nil {
		return false
	}
	for _, a := range []string{"aria-label", "aria-labelledby", "title"} {
		if _, ok := dn.attrs[a]; ok {
			return false
		}
	}
	ph, ok := dn.attrs["placeholder"]
	return ok && clean(ph) == name
}

// controlsUnder counts the controls under x, stopping at limit.
func (d *condenser) controlsUnder(x *accessibility.Node, limit int) int {
	n := 0
	var walk func(*accessibility.Node)
	walk = func(y *accessibility.Node) {
		for _, id := range y.ChildIDs {
			c := d.byID[id]
			if c == nil || n >= limit {
				continue
			}
			if r := axString(c.Role); actionableRoles[r] || pickerRoles[r] {
				n++ // a picker's inner parts are the browser's: one control
				continue
			}
			walk(c)
		}
	}
	walk(x)
	return n
}
