package perception

import (
	"net/url"
	"strings"

	"github.com/chromedp/cdproto/domsnapshot"
)

// domNode is what the DOM snapshot says about one node.
type domNode struct {
	doc     int
	idx     int
	parent  int64 // backend id of the parent node; 0 at a root
	tag     string
	attrs   map[string]string
	visible bool // laid out, non-empty, not hidden by style
	opaque0 bool // computed opacity 0: hides descendants too
	value   string
	checked bool
	click   bool // responds to clicks (isClickable)
	pointer bool // its own cursor is a pointer (its parent's is not)
	listens listens
}

// listens are the kinds of event listener an element has of its own.
type listens uint8

const (
	listensClick listens = 1 << iota // click, mousedown, pointerdown, ...
	listensHover                     // mouseenter, mouseover, pointerenter, ...
	listensDrag                      // dragstart
	listensDrop                      // drop, dragover, dragenter
)

// listenKinds maps event types to the kind of listener they make.
var listenKinds = map[string]listens{
	"click": listensClick, "mousedown": listensClick, "mouseup": listensClick, "pointerdown": listensClick, "pointerup": listensClick, "dblclick": listensClick,
	"mouseenter": listensHover, "mouseover": listensHover, "pointerenter": listensHover, "pointerover": listensHover,
	"dragstart": listensDrag,
	"drop":      listensDrop, "dragover": listensDrop, "dragenter": listensDrop,
}

// domIndex finds DOM snapshot nodes by backend node id.
type domIndex struct {
	snap  *domsnapshot.CaptureSnapshotResult
	nodes map[int64]*domNode
	ids   []map[string]int64 // per document: id attribute -> backend id

	defaults map[*domNode]*domNode // form -> its default button, once found
}

// Computed styles asked of captureSnapshot, in this order.
var snapshotStyles = []string{"display", "visibility", "opacity", "cursor"}

func (x *domIndex) str(i domsnapshot.StringIndex) string {
	if i < 0 || int(i) >= len(x.snap.Strings) {
		return ""
	}
	return x.snap.Strings[i]
}

func newDOMIndex(snap *domsnapshot.CaptureSnapshotResult) *domIndex {
	x := &domIndex{snap: snap, nodes: map[int64]*domNode{}}
	for d, doc := range snap.Documents {
		nt := doc.Nodes
		if nt == nil {
			x.ids = append(x.ids, nil)
			continue
		}
		ids := map[string]int64{}
		layoutOf := map[int64]int{}
		if doc.Layout != nil {
			for li, ni := range doc.Layout.NodeIndex {
				layoutOf[ni] = li
			}
		}
		for i := range nt.BackendNodeID {
			n := &domNode{doc: d, idx: i, tag: strings.ToLower(x.str(at(nt.NodeName, i)))}
			if i < len(nt.ParentIndex) && nt.ParentIndex[i] >= 0 {
				n.parent = int64(nt.BackendNodeID[nt.ParentIndex[i]])
			}
			if i < len(nt.Attributes) && len(nt.Attributes[i]) > 0 {
				n.attrs = map[string]string{}
				a := nt.Attributes[i]
				for k := 0; k+1 < len(a); k += 2 {
					n.attrs[strings.ToLower(x.str(domsnapshot.StringIndex(a[k])))] = x.str(domsnapshot.StringIndex(a[k+1]))
				}
				if id := n.attrs["id"]; id != "" {
					ids[id] = int64(nt.BackendNodeID[i])
				}
			}
			if li, ok := layoutOf[int64(i)]; ok {
				n.visible, n.opaque0 = x.laidOutVisibly(doc.Layout, li)
				n.pointer = x.style(doc.Layout, li, 3) == "pointer"
			}
			x.nodes[int64(nt.BackendNodeID[i])] = n
		}
		x.rareStrings(nt.InputValue, d, func(n *domNode, v string) { n.value = v })
		x.rareStrings(nt.TextValue, d, func(n *domNode, v string) { n.value = v })
		x.rareBools(nt.InputChecked, d, func(n *domNode) { n.checked = true })
		x.rareBools(nt.IsClickable, d, func(n *domNode) { n.click = true })
		x.ids = append(x.ids, ids)
	}
	// A pointer cursor is inherited: only where it starts is it a sign.
	var inherited []*domNode
	for _, n := range x.nodes {
		if p := x.nodes[n.parent]; n.pointer && p != nil && p.pointer {
			inherited = append(inherited, n)
		}
	}
	for _, n := range inherited {
		n.pointer = false
	}
	return x
}

func at(s []domsnapshot.StringIndex, i int) domsnapshot.StringIndex {
	if i < len(s) {
		return s[i]
	}
	return -1
}

func (x *domIndex) byIndex(doc, idx int) *domNode {
	nt := x.snap.Documents[doc].Nodes
	if idx < 0 || idx >= len(nt.BackendNodeID) {
		return nil
	}
	return x.nodes[int64(nt.BackendNodeID[idx])]
}

func (x *domIndex) rareStrings(r *domsnapshot.RareStringData, doc int, set func(*domNode, string)) {
	if r == nil {
		return
	}
	for k, idx := range r.Index {
		if n := x.byIndex(doc, int(idx)); n != nil && k < len(r.Value) {
			set(n, x.str(r.Value[k]))
		}
	}
}

func (x *domIndex) rareBools(r *domsnapshot.RareBooleanData, doc int, set func(*domNode)) {
	if r == nil {
		return
	}
	for _, idx := range r.Index {
		if n := x.byIndex(doc, int(idx)); n != nil {
			set(n)
		}
	}
}

// style returns computed style k (an index into snapshotStyles) of
// layout object li.
func (x *domIndex) style(l *domsnapshot.LayoutTreeSnapshot, li, k int) string {
	if li < len(l.Styles) && k < len(l.Styles[li]) {
		return x.str(domsnapshot.StringIndex(l.Styles[li][k]))
	}
	return ""
}

// laidOutVisibly reports whether a layout object has a non-empty box and
// computed styles that show it, and whether its opacity is 0.
func (x *domIndex) laidOutVisibly(l *domsnapshot.LayoutTreeSnapshot, li int) (visible, opaque0 bool) {
	display, visibility, opacity := x.style(l, li, 0), x.style(l, li, 1), x.style(l, li, 2)
	opaque0 = opacity == "0"
	if display == "none" || visibility == "hidden" || visibility == "collapse" || opaque0 {
		return false, opaque0
	}
	if li < len(l.Bounds) {
		if b := l.Bounds[li]; len(b) == 4 && (b[2] <= 0 || b[3] <= 0) {
			return false, false
		}
	}
	return true, false
}

// shown reports whether n is visible and no ancestor makes it transparent
// (opacity is not inherited, so n's own style does not say).
func (x *domIndex) shown(n *domNode) bool {
	if !n.visible {
		return false
	}
	for p := x.nodes[n.parent]; p != nil; p = x.nodes[p.parent] {
		if p.opaque0 {
			return false
		}
	}
	return true
}

// sendsTo is where ref, a link's href or a form's action in n's
// document, leads: resolved as the browser resolves it, against the
// document's base URL (a <base href> elsewhere moves every relative
// reference there), and written relative to the document's own origin
// only when it stays on that origin.
func (x *domIndex) sendsTo(n *domNode, ref string) string {
	doc := x.snap.Documents[n.doc]
	own := x.str(doc.DocumentURL)
	base := x.str(doc.BaseURL)
	if base == "" {
		base = own
	}
	if b, err := url.Parse(base); err == nil {
		if r, err := b.Parse(ref); err == nil {
			ref = r.String()
		}
	}
	return relativeURL(own, ref)
}

// form returns the form element a submit control belongs to: the one its
// form attribute names, else its nearest form ancestor.
func (x *domIndex) form(n *domNode) *domNode {
	if id := n.attrs["form"]; id != "" && n.doc < len(x.ids) {
		if b, ok := x.ids[n.doc][id]; ok {
			return x.nodes[b]
		}
	}
	for p := x.nodes[n.parent]; p != nil; p = x.nodes[p.parent] {
		if p.tag == "form" {
			return p
		}
	}
	return nil
}

// defaultButton returns the first submit button of form in tree order
// (the one implicit submission uses), or nil when it has none.
func (x *domIndex) defaultButton(form *domNode) *domNode {
	if b, ok := x.defaults[form]; ok {
		return b
	}
	var found *domNode
	nt := x.snap.Documents[form.doc].Nodes
	for i := range nt.BackendNodeID {
		if n := x.nodes[int64(nt.BackendNodeID[i])]; n != nil && submits(n) && x.form(n) == form {
			found = n
			break
		}
	}
	if x.defaults == nil {
		x.defaults = map[*domNode]*domNode{}
	}
	x.defaults[form] = found
	return found
}

// relativeURL resolves ref against base and, when it stays on base's
// origin, returns only its path, query and fragment, so the same link on a
// portal served from another port compares equal.
func relativeURL(base, ref string) string {
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	r, err := b.Parse(ref)
	if err != nil {
		return ref
	}
	if r.Scheme == b.Scheme && r.Host == b.Host {
		r.Scheme, r.Host, r.User = "", "", nil
	}
	return r.String()
}
