package actuator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rote-agent/rote/schema"
)

// resolve finds the one node of a page that target means, down the
// ladder: its stable id; else its exact role and accessible name (case
// aside: a stylesheet's text-transform changes it); else
// text proximity (target.Near in the node's context or name, among nodes
// of the target's role, or exactly the text just before one of twins). A
// rung that finds several candidates never picks one: Near may narrow
// them to exactly one, or the target is ambiguous.
// Errors are *schema.Error: CodeNotFound when no rung finds anything,
// CodeAmbiguous when one finds several and nothing tells them apart.
func resolve(target *schema.Target, nodes []schema.ObservedNode) (*schema.ObservedNode, schema.Resolution, error) {
	if target.Empty() {
		return nil, "", schema.Errorf(schema.CodeInvalid, "an empty target")
	}
	if target.ID != "" {
		for i := range nodes {
			if nodes[i].ID != target.ID {
				continue
			}
			twins := twinsOf(target.ID, nodes)
			switch {
			case target.Twins == len(twins) && byPlace(&nodes[i], target.Contract, twins):
				return &nodes[i], schema.ResolvedByPlace, nil
			case len(twins) > 1 && (target.Role != "" || target.Name != ""):
				return nil, "", ambiguous(target, twins)
			}
			return &nodes[i], schema.ResolvedByID, nil
		}
	}
	if target.Role != "" && target.Name != "" {
		var same []*schema.ObservedNode
		for i := range nodes {
			if nodes[i].Role == target.Role && strings.EqualFold(nodes[i].Name, target.Name) {
				same = append(same, &nodes[i])
			}
		}
		switch {
		case len(same) == 1:
			return same[0], schema.ResolvedByRoleName, nil
		case len(same) > 1:
			if near := nearest(target.Near, same); len(near) == 1 {
				return near[0], schema.ResolvedByText, nil
			}
			if after := labelledBy(target.Near, same, nodes); len(after) == 1 {
				return after[0], schema.ResolvedByText, nil
			}
			return nil, "", ambiguous(target, same)
		}
	}
	if target.Near != "" {
		var pool []*schema.ObservedNode
		for i := range nodes {
			if target.Role == "" || nodes[i].Role == target.Role {
				pool = append(pool, &nodes[i])
			}
		}
		switch near := nearest(target.Near, pool); len(near) {
		case 1:
			return near[0], schema.ResolvedByText, nil
		case 0:
		default:
			return nil, "", ambiguous(target, near)
		}
	}
	return nil, "", schema.Errorf(schema.CodeNotFound, "no element is %s", describeTarget(target))
}

// byPlace reports whether node is told from its twins by its place
// alone: they are fields (buttons and links alike are records of a list,
// chosen by a pick, never by place), several, every one of them the kind
// of field contract c says, in the form it says. A box of another form
// (a search box above) is no place among them.
func byPlace(node *schema.ObservedNode, c *schema.Contract, twins []*schema.ObservedNode) bool {
	if len(twins) < 2 || !schema.IsField(node.Role) || c == nil {
		return false
	}
	for _, t := range twins {
		if t.Contract == nil || t.Contract.InputType != c.InputType || t.Contract.FormAction != c.FormAction || t.Contract.FormMethod != c.FormMethod {
			return false
		}
	}
	return true
}

// twinsOf returns the nodes that share id's hash (id, id~2, id~3): the
// same role, name and context, told apart by document order alone. An id
// picked from the render just shown (a target with an id only) means the
// one at that place; a recorded target (one that also says its role or
// name) does not, since an element inserted before it takes its ordinal:
// with twins on the page it is ambiguous.
func twinsOf(id string, nodes []schema.ObservedNode) []*schema.ObservedNode {
	base, _, _ := strings.Cut(id, "~")
	var out []*schema.ObservedNode
	for i := range nodes {
		if nodes[i].ID == base || strings.HasPrefix(nodes[i].ID, base+"~") {
			out = append(out, &nodes[i])
		}
	}
	return out
}

// nearest keeps the candidates whose context or name contains text,
// ignoring case.
func nearest(text string, candidates []*schema.ObservedNode) []*schema.ObservedNode {
	if text == "" {
		return nil
	}
	text = strings.ToLower(text)
	var out []*schema.ObservedNode
	for _, n := range candidates {
		if strings.Contains(strings.ToLower(n.Context), text) || strings.Contains(strings.ToLower(n.Name), text) {
			out = append(out, n)
		}
	}
	return out
}

// labelledBy keeps the twins whose node just before them in the page is
// a text that reads exactly text (case aside): one Add button an item,
// each after its item's name. A text that only holds it ("Cork board
// XL" for "Cork board") labels nothing.
func labelledBy(text string, twins []*schema.ObservedNode, nodes []schema.ObservedNode) []*schema.ObservedNode {
	if text == "" {
		return nil
	}
	var out []*schema.ObservedNode
	for i := 1; i < len(nodes); i++ {
		if slices.Contains(twins, &nodes[i]) && nodes[i-1].Role == "text" && strings.EqualFold(nodes[i-1].Name, text) {
			out = append(out, &nodes[i])
		}
	}
	return out
}

func ambiguous(target *schema.Target, candidates []*schema.ObservedNode) error {
	var ids []string
	for i, n := range candidates {
		if i == 5 {
			ids = append(ids, fmt.Sprintf("and %d more", len(candidates)-5))
			break
		}
		ids = append(ids, n.ID)
	}
	return schema.Errorf(schema.CodeAmbiguous, "%d elements are %s (%s): refusing to guess", len(candidates), describeTarget(target), strings.Join(ids, ", "))
}

func describeTarget(t *schema.Target) string {
	var parts []string
	if t.ID != "" {
		parts = append(parts, "id "+t.ID)
	}
	if t.Role != "" || t.Name != "" {
		parts = append(parts, fmt.Sprintf("%s %q", t.Role, t.Name))
	}
	if t.Near != "" {
		parts = append(parts, fmt.Sprintf("near %q", t.Near))
	}
	return strings.Join(parts, ", ")
}

// usable refuses an action on a control the page says it does not take
// now: a disabled one (natively, by its fieldset or by aria-disabled) is
// not clicked, typed into, chosen or dragged, and a read-only one is not
// typed into or set. Dispatched anyway, a click did nothing and reported
// ok, and a fill of a read-only field emptied it.
func usable(kind schema.ActionKind, node *schema.ObservedNode) error {
	changes := kind == schema.ActClick || kind == schema.ActFill || kind == schema.ActSelect || kind == schema.ActCheck ||
		kind == schema.ActSetValue || kind == schema.ActDrag
	switch {
	case changes && slices.Contains(node.States, "disabled"):
		return schema.Errorf(schema.CodeStateChanged, "%s %q is disabled: refusing to %s it", node.Role, node.Name, kind)
	case (kind == schema.ActFill || kind == schema.ActSetValue) && slices.Contains(node.States, "readonly"):
		return schema.Errorf(schema.CodeStateChanged, "%s %q is read-only: refusing to %s it", node.Role, node.Name, kind)
	}
	return nil
}
