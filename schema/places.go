package schema

import (
	"maps"
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
	// and one group (ObservedNode.Group: one form; for radios, the
	// radios of one name).
	AmongControls = "controls"
)

// countedRoles are the roles AmongControls counts.
var countedRoles = map[string]bool{"checkbox": true, "radio": true, "switch": true}

// Count is what a place counts among: the controls of Role that Among
// counts in the context Within; for radios of a named group, Field is
// the group's name. Name is "*" when the counted controls are named
// each their own way (titles), else the name they all share ("Read
// more"): counted at replay, they must be so again, or they are other
// controls than the run counted (a "Share" link now first in each item).
// List, known when a run is learned, is the list the recorded control
// stood in (0 at replay: the one list there is).
//
// Shapes, for AmongItems, are the shapes the list's items had when
// learned (itemShapes): counted at replay, every item must have one of
// them, or the items hold other controls than they did (a "Share" or an
// author's link now before each title) and the first may be another.
type Count struct {
	Role, Among, Within, Field, Name string
	Shapes                           []string
	List                             int
}

// MaxShapes bounds the shapes of items a count keeps.
const MaxShapes = 8

// itemShapes returns the shape of each item (by its place) of the list
// numbered list: its controls in order, each "role:name" when the name
// recurs in another item of the list ("comments", "Share"), else
// "role:*" (a title, an author: the item's own).
func itemShapes(nodes []ObservedNode, list int) map[int]string {
	in := func(m ObservedNode) bool { return m.Actionable && m.List == list && m.Item > 0 }
	items := map[string]map[int]bool{} // role:name -> the items holding it
	for _, m := range nodes {
		if in(m) {
			k := m.Role + ":" + m.Name
			if items[k] == nil {
				items[k] = map[int]bool{}
			}
			items[k][m.Item] = true
		}
	}
	shapes := map[int]string{}
	for _, m := range nodes {
		if !in(m) {
			continue
		}
		part := m.Role + ":*"
		if k := m.Role + ":" + m.Name; len(items[k]) > 1 {
			part = k
		}
		if shapes[m.Item] != "" {
			shapes[m.Item] += " | "
		}
		shapes[m.Item] += part
	}
	return shapes
}

// named reads how the controls at idx are named: "*" each its own way,
// else the one name they share; ok is false when some share a name and
// some do not, or they share none at all.
func named(nodes []ObservedNode, idx []int) (string, bool) {
	seen := map[string]bool{}
	for _, j := range idx {
		seen[nodes[j].Name] = true
	}
	switch {
	case len(seen) == len(idx):
		return keyMark, true
	case len(seen) == 1 && nodes[idx[0]].Name != "":
		return nodes[idx[0]].Name, true
	}
	return "", false
}

// PlaceOf returns what a place counts the control at nodes[i] among,
// and its place there, from 1. ok is false for a control no place counts
// (alone, or a link outside any list).
func PlaceOf(nodes []ObservedNode, i int) (c Count, place int, ok bool) {
	n := nodes[i]
	if !n.Actionable {
		return Count{}, 0, false
	}
	c = Count{Role: n.Role, Among: AmongControls, Within: n.Context, Field: n.radioGroup()}
	if !countedRoles[n.Role] {
		c = Count{Role: n.Role, Among: AmongItems, Within: n.Context, List: n.List}
	}
	switch {
	case c.Among == AmongItems && (n.List == 0 || n.Item == 0):
		return Count{}, 0, false
	case n.Role == "radio" && c.Field == "":
		// A radio whose group is not known (a snapshot shows no names)
		// may be counted among another group's beside it.
		return Count{}, 0, false
	}
	placed, err := Placed(nodes, c)
	if err != nil || len(placed) < 2 {
		return Count{}, 0, false
	}
	if c.Among == AmongItems {
		c.Shapes = slices.Sorted(maps.Values(itemShapes(nodes, n.List)))
		if c.Shapes = slices.Compact(c.Shapes); len(c.Shapes) > MaxShapes {
			return Count{}, 0, false
		}
	}
	if c.Name, ok = named(nodes, placed); !ok {
		return Count{}, 0, false
	}
	k := slices.Index(placed, i)
	if k < 0 {
		return Count{}, 0, false // not the first of its role in its item
	}
	c.List = 0
	return c, k + 1, true
}

// Placed returns the indexes in nodes of the controls c counts, in the
// page's order: with AmongControls every actionable one of c.Role in the
// context (of the radio group c.Field names, if any); with AmongItems the
// first of each item of the one list there that holds such controls. A
// page with several such lists or groups there, or an item without the
// control, is CodeAmbiguous: a place would count something else than the
// run did. None is CodeNotFound.
func Placed(nodes []ObservedNode, c Count) ([]int, error) {
	var out []int
	items := map[int]bool{}
	list := c.List
	for j, m := range nodes {
		if !m.Actionable || m.Role != c.Role || !strings.EqualFold(m.Context, c.Within) {
			continue
		}
		switch {
		case c.Among == AmongControls:
			if m.radioGroup() == c.Field {
				out = append(out, j)
			}
		case m.List == 0 || m.Item == 0:
			continue
		case list == 0:
			list = m.List
			fallthrough
		case m.List == list && !items[m.Item]:
			items[m.Item] = true
			out = append(out, j)
		case m.List != list:
			return nil, Errorf(CodeAmbiguous, "two lists in %q hold %s controls: which one a place counts in is unknown", c.Within, c.Role)
		}
	}
	if len(out) == 0 {
		return nil, Errorf(CodeNotFound, "no %s is on the page in %q to count", c.Role, c.Within)
	}
	if c.Among == AmongControls && slices.ContainsFunc(out, func(j int) bool { return nodes[j].Group != nodes[out[0]].Group }) {
		return nil, Errorf(CodeAmbiguous, "the %s controls in %q stand in more than one group (two forms): which one a place counts in is unknown", c.Role, c.Within)
	}
	if c.Name != "" && !c.namedAsCounted(nodes, out) {
		return nil, Errorf(CodeAmbiguous, "the %s controls counted in %q are named otherwise than the ones the run counted (now: %s): they may be other controls", c.Role, c.Within, ClipList(names(nodes, out), 4))
	}
	if c.Among == AmongItems {
		for k, j := range out {
			if nodes[j].Item != k+1 {
				return nil, Errorf(CodeAmbiguous, "item %d of the list in %q has no %s: a place counts items, and the controls alone would count another", k+1, c.Within, c.Role)
			}
		}
		if len(c.Shapes) > 0 {
			shapes := itemShapes(nodes, list)
			for k := range out {
				if !fitsShapes(shapes[k+1], c.Shapes) {
					return nil, Errorf(CodeAmbiguous, "item %d of the list in %q holds %s, unlike any item counted when the run was learned (%s): its first %s may be another control", k+1, c.Within, shapes[k+1], strings.Join(c.Shapes, "; "), c.Role)
				}
			}
		}
	}
	return out, nil
}

// namedAsCounted reports whether the controls at idx are named as the
// ones c counted: each its own way, or all by c.Name.
func (c Count) namedAsCounted(nodes []ObservedNode, idx []int) bool {
	if c.Name == keyMark {
		name, ok := named(nodes, idx)
		return ok && name == keyMark
	}
	return !slices.ContainsFunc(idx, func(j int) bool { return nodes[j].Name != c.Name })
}

// fitsShapes reports whether an item's shape is one of the learned
// shapes, or one of them followed by controls of a name that recurs
// across the items (a "cached" link after the title in some items): a
// control of its own before or among them ("link:*", an author's) may
// have taken the counted control's place.
func fitsShapes(shape string, learned []string) bool {
	for _, l := range learned {
		extra, ok := strings.CutPrefix(shape, l)
		if !ok || extra != "" && !strings.HasPrefix(extra, " | ") {
			continue
		}
		own := slices.ContainsFunc(strings.Split(extra, " | "), func(part string) bool { return strings.HasSuffix(part, ":*") })
		if !own {
			return true
		}
	}
	return false
}

// names lists the names of the nodes at idx.
func names(nodes []ObservedNode, idx []int) []string {
	out := make([]string, len(idx))
	for k, j := range idx {
		out[k] = nodes[j].Name
	}
	return out
}
