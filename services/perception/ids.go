package perception

import (
	"crypto/sha256"
	"slices"
	"strconv"
	"strings"

	"github.com/rote-agent/rote/schema"
)

// idAlphabet is lowercase Crockford base32: no i, l, o or u.
const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// stableID hashes what identifies a control to a user, and nothing about
// its markup: its role, its accessible name, and the ancestry that scopes
// it (landmark or frame, group, row key, and for twins the heading).
// Class names, DOM ids, depth and position do not enter, so re-renders
// and redesigns keep the id. Case does not enter either: Chrome computes
// names from rendered text, so a stylesheet's text-transform: uppercase
// changes the name's case.
func stableID(role, name string, context []string) string {
	h := sha256.New()
	h.Write([]byte(role))
	h.Write([]byte{0})
	h.Write([]byte(strings.ToLower(name)))
	for _, c := range context {
		h.Write([]byte{0})
		h.Write([]byte(strings.ToLower(c)))
	}
	sum := h.Sum(nil)
	// 6 characters of 5 bits: 30 bits.
	v := uint64(sum[0])<<32 | uint64(sum[1])<<24 | uint64(sum[2])<<16 | uint64(sum[3])<<8 | uint64(sum[4])
	var b [6]byte
	for i := 5; i >= 0; i-- {
		b[i] = idAlphabet[v&31]
		v >>= 5
	}
	return string(b[:])
}

// observedNodes gives each node its stable id. A node's id hashes its
// role, name and key, not the heading it sits under, so a heading that
// is lost or renamed changes no id. Nodes that hash alike are twins: the
// heading each sits under is added to their hash when it tells them
// apart (two Save buttons under "Profile" and "Password"), and twins it
// cannot tell apart are told apart by their order in the document: the
// second is id~2, the third id~3. Twins that take different input (a text
// and a password field) are told apart by their input type.
func observedNodes(nodes []node) []schema.ObservedNode {
	keyed := make([]string, len(nodes))
	twins := map[string]int{}
	kinds := map[string]map[string]bool{} // the input types of each hash's twins
	for i, n := range nodes {
		keyed[i] = stableID(n.role, n.name, n.key)
		twins[keyed[i]]++
		if kinds[keyed[i]] == nil {
			kinds[keyed[i]] = map[string]bool{}
		}
		kinds[keyed[i]][kindOf(n)] = true
	}
	seen := map[string]int{}
	out := make([]schema.ObservedNode, len(nodes))
	for i, n := range nodes {
		id := keyed[i]
		var apart []string
		if twins[id] > 1 && n.heading != "" {
			apart = append(apart, n.heading)
		}
		if len(kinds[id]) > 1 {
			// Twins of different kinds (a text and a password field, both
			// unlabelled) are told apart by what they take.
			apart = append(apart, "input "+kindOf(n))
		}
		if len(apart) > 0 {
			id = stableID(n.role, n.name, append(slices.Clone(n.key), apart...))
		}
		seen[id]++
		if k := seen[id]; k > 1 {
			id += "~" + strconv.Itoa(k)
		}
		out[i] = schema.ObservedNode{
			ID: id, Role: n.role, Name: n.name, Value: n.value, States: n.states,
			Actionable: n.actionable, Context: strings.Join(n.context, " › "), Contract: n.contract, Backend: n.backend,
			Options: n.options, OptionCount: n.nOptions, Frame: n.frame, Cells: n.cells,
			List: n.list, Item: n.item, Group: n.group,
		}
	}
	return out
}

// kindOf is what a field takes, as its contract says (password, date,
// text); "" for a node without one.
func kindOf(n node) string {
	if n.contract == nil {
		return ""
	}
	return n.contract.InputType
}
