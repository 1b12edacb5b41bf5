package actuator

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"
	"github.com/rote-agent/rote/schema"
)

// A capture costs a page's whole accessibility tree and DOM snapshot; an
// action in a replay needs one only to find its target. The session keeps
// its last capture with what the page's watch said just before it, and
// resolves the next target on it while the page is unchanged: the same
// document, not one DOM mutation since, and no embedded document (whose
// changes the watch does not see). An action can change what the page
// shows without a mutation, by CSS alone: a click, a hover, a drag or a
// check moves the pointer (:hover) and checks (:checked), and drops the
// kept capture; a fill, a choice, a key or a set_value moves the focus
// (:focus-within) and changes a value (:placeholder-shown, :valid,
// :has()), which can hide one control and show its twin: after one, the
// kept capture holds only once the page proves the target is still the
// only one of its kind (proven). Before it acts, the node resolved from
// the kept capture is asked of the browser again: its role and name and
// its disabled and read-only states must be what the capture said, or the
// target is resolved on a fresh capture.

// seenCapture is a capture and the page's watch state it was taken in;
// proof says an action since may have changed what shows by CSS.
type seenCapture struct {
	nodes   []schema.ObservedNode
	doc     string
	changes int64
	proof   bool
}

// remember keeps nodes, captured just after the page settled, for the
// next resolution. The caller holds mu.
func (s *session) remember(nodes []schema.ObservedNode) {
	s.seen = nil
	if w := s.watched; w.Watch && w.Doc != "" && w.Frames == 0 {
		s.seen = &seenCapture{nodes: nodes, doc: w.Doc, changes: w.Changes}
	}
}

// forget drops the kept capture after an action that moves the pointer
// or the page, and asks for proof after one that moves the focus or a
// value. The caller holds mu.
func (s *session) forget(kind schema.ActionKind) {
	switch {
	case s.seen == nil:
	case kind == schema.ActExtract || kind == schema.ActDone || kind == schema.ActFail:
	case kind == schema.ActFill || kind == schema.ActSelect || kind == schema.ActPress || kind == schema.ActSetValue:
		s.seen.proof = true
	default:
		s.seen = nil
	}
}

// kept returns the kept capture's nodes when the page, as it just
// settled, is unchanged since, and whether a target found on them needs
// proof (proven); nil otherwise. The caller holds mu.
func (s *session) kept() ([]schema.ObservedNode, bool) {
	w, c := s.watched, s.seen
	if c == nil || !w.Watch || w.Doc != c.doc || w.Changes != c.changes || w.Frames != 0 {
		return nil, false
	}
	return c.nodes, c.proof
}

// proven reports whether n, found on the kept capture nodes, is still
// the only control of its kind a person sees: the browser's
// accessibility tree holds, among its nodes not ignored, exactly those of
// nodes with n's role and name (no twin shown or hidden by CSS since),
// and n itself is rendered, not transparent, with a box. Anything else,
// or a node found by a pick, is no proof.
func (s *session) proven(n *schema.ObservedNode, nodes []schema.ObservedNode) bool {
	if n.Frame != "" || n.Name == "" {
		return false
	}
	want := map[int64]bool{}
	for _, m := range nodes {
		if m.Role == n.Role && m.Name == n.Name {
			want[m.Backend] = true
		}
	}
	var same, shown bool
	err := s.run(func(ctx context.Context, t *chromedp.Target) error {
		doc, err := cdp.Call(ctx, t, dom.GetDocument, dom.GetDocumentParams{Depth: new(int64(0))})
		if err != nil {
			return err
		}
		res, err := cdp.Call(ctx, t, accessibility.QueryAXTree, accessibility.QueryAXTreeParams{BackendNodeID: doc.Root.BackendNodeID, AccessibleName: n.Name, Role: n.Role})
		if err != nil {
			return err
		}
		got := map[int64]bool{}
		for _, ax := range res.Nodes {
			if !ax.Ignored {
				got[int64(ax.BackendDOMNodeID)] = true
			}
		}
		same = maps.Equal(got, want)
		return nil
	})
	if err != nil || !same {
		return false
	}
	el, err := s.element(s.ctx, n)
	return err == nil && s.call(el, shownScript, &shown) == nil && shown
}

// shownScript: is this element rendered where a person sees it: not
// hidden, not transparent, with a box?
const shownScript = `function() {
  const r = this.getBoundingClientRect();
  return this.checkVisibility({checkOpacity: true, checkVisibilityCSS: true}) && r.width > 0 && r.height > 0;
}`

// stillIs reports whether the page's node n still has the role, name and
// disabled and read-only states the capture gave it, by the browser's
// accessibility tree now.
func (s *session) stillIs(n *schema.ObservedNode) bool {
	if n.Frame != "" {
		return false
	}
	var same bool
	err := s.run(func(ctx context.Context, t *chromedp.Target) error {
		res, err := cdp.Call(ctx, t, accessibility.GetPartialAXTree, accessibility.GetPartialAXTreeParams{BackendNodeID: cdp.BackendNodeID(n.Backend), FetchRelatives: new(false)})
		if err != nil {
			return err
		}
		for _, ax := range res.Nodes {
			if ax.BackendDOMNodeID != cdp.BackendNodeID(n.Backend) || ax.Ignored {
				continue
			}
			same = axText(ax.Role) == n.Role && strings.EqualFold(strings.Join(strings.Fields(axText(ax.Name)), " "), n.Name) &&
				axFlag(ax, accessibility.PropertyNameDisabled) == slices.Contains(n.States, "disabled") &&
				axFlag(ax, accessibility.PropertyNameReadonly) == slices.Contains(n.States, "readonly")
			return nil
		}
		return nil
	})
	return err == nil && same
}

// axFlag reports whether the accessibility node has the boolean property
// name set.
func axFlag(ax *accessibility.Node, name accessibility.PropertyName) bool {
	for _, p := range ax.Properties {
		var on bool
		if p.Name == name && p.Value != nil && json.Unmarshal(p.Value.Value, &on) == nil {
			return on
		}
	}
	return false
}

// axText is an accessibility value's string.
func axText(v *accessibility.Value) string {
	var s string
	if v == nil || json.Unmarshal(v.Value, &s) != nil {
		return ""
	}
	return s
}
