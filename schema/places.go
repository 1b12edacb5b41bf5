package schema

import (
	"slices"
	"strings"
)

// What a place the task states ("open the third result", "tick the
// second checkbox") counts among when the controls' names share nothing
// that is data: the items of one list, or a form's boxes. A Pick with
// Among set counts there, by an nth rule alone.
const (
	// AmongItems counts the items of one list (ol, ul, a listbox's
	// options' list), each by the first control of the role in it: an
	// ad or a "Next page" link outside the list is not counted, a
	// "cached" link beside a result's own is not counted twice, and an
	// item without the control stops the count.
	AmongItems = "items"
	// AmongControls counts the controls of a role that a person counts
	// where they stand (checkboxes, radios, switches), in one context
	// and one group (ObservedNode.Group: one form).
	AmongControls = "controls"
)

// countedRoles are the roles AmongControls counts.
var countedRoles = map[string]bool{"checkbox": true, "radio": true, "switch": true}

// PlaceOf returns what a place counts the control at nodes[i] among:
// how (AmongItems, AmongControls), within which context, and its place
// there, from 1. ok is false for a control no place counts (alone, or a
// link outside any list).
func PlaceOf(nodes []ObservedNode, i int) (among, within string, place int, ok bool) {
	n := nodes[i]
	if !n.Actionable {
		return "", "", 0, false
	}
	among = AmongControls
	if !countedRoles[n.Role] {
		among = AmongItems
	}
	if among == AmongItems && (n.List == 0 || n.Item == 0) {
		return "", "", 0, false
	}
	placed, err := Placed(nodes, n.Role, among, n.Context, n.List)
	if err != nil || len(placed) < 2 {
		return "", "", 0, false
	}
	k := slices.Index(placed, i)
	if k < 0 {
		return "", "", 0, false // not the first of its role in its item
	}
	return among, n.Context, k + 1, true
}

// Placed returns the indexes in nodes of the controls of role that a
// place counts among, in the page's order: with AmongControls every
// actionable one in the context within; with AmongItems the first of
// each item of the one list in within that holds such controls (list
// names that list when known, 0 at replay). A page with several such
// lists there, or an item without the control, is CodeAmbiguous: a
// place would count something else than the run did. None is
// CodeNotFound.
func Placed(nodes []ObservedNode, role, among, within string, list int) ([]int, error) {
	var out []int
	items := map[int]bool{}
	for j, m := range nodes {
		if !m.Actionable || m.Role != role || !strings.EqualFold(m.Context, within) {
			continue
		}
		switch {
		case among == AmongControls:
			out = append(out, j)
		case m.List == 0 || m.Item == 0:
			continue
		case list == 0:
			list = m.List
			fallthrough
		case m.List == list && !items[m.Item]:
			items[m.Item] = true
			out = append(out, j)
		case m.List != list:
			return nil, Errorf(CodeAmbiguous, "two lists in %q hold %s controls: which one a place counts in is unknown", within, role)
		}
	}
	if len(out) == 0 {
		return nil, Errorf(CodeNotFound, "no %s is on the page in %q to count", role, within)
	}
	if among == AmongControls && slices.ContainsFunc(out, func(j int) bool { return nodes[j].Group != nodes[out[0]].Group }) {
		return nil, Errorf(CodeAmbiguous, "the %s controls in %q stand in more than one group (two forms): which one a place counts in is unknown", role, within)
	}
	if among == AmongItems {
		for k, j := range out {
			if nodes[j].Item != k+1 {
				return nil, Errorf(CodeAmbiguous, "item %d of the list in %q has no %s: a place counts items, and the controls alone would count another", k+1, within, role)
			}
		}
	}
	return out, nil
}
