package actuator

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/rote-agent/rote/schema"
)

// A capture costs a page's whole accessibility tree and DOM snapshot; an
// action in a replay needs one only to find its target. The session keeps
// its last capture with what the page's watch said just before it, and
// resolves the next target on it while the page is unchanged: the same
// document, not one DOM mutation since, no embedded document (whose
// changes the watch does not see), and no action since but an extract.
// Every other action can change what the page shows without a mutation:
// a click, a hover, a check or a choice through :checked or :hover, and a
// fill or a key through focus (:focus-within) and the value typed
// (:placeholder-shown, :valid, :has()), which can hide one control and
// show its twin. Before it acts, the node resolved from the kept capture
// is asked of the browser again: its role and name and its disabled and
// read-only states must be what the capture said, or the target is
// resolved on a fresh capture.

// seenCapture is a capture and the page's watch state it was taken in.
type seenCapture struct {
	nodes   []schema.ObservedNode
	doc     string
	changes int64
}

// keepsCapture reports whether an action of kind leaves a kept capture
// standing (when the page does not mutate under it).
func keepsCapture(kind schema.ActionKind) bool {
	switch kind {
	case schema.ActExtract, schema.ActDone, schema.ActFail:
		return true
	}
	return false
}

// remember keeps nodes, captured just after the page settled, for the
// next resolution. The caller holds mu.
func (s *session) remember(nodes []schema.ObservedNode) {
	s.seen = nil
	if w := s.watched; w.Watch && w.Doc != "" && w.Frames == 0 {
		s.seen = &seenCapture{nodes: nodes, doc: w.Doc, changes: w.Changes}
	}
}

// forget drops the kept capture after an action that can change what
// the page shows without a mutation. The caller holds mu.
func (s *session) forget(kind schema.ActionKind) {
	if !keepsCapture(kind) {
		s.seen = nil
	}
}

// kept returns the kept capture's nodes when the page, as it just
// settled, is unchanged since; nil otherwise. The caller holds mu.
func (s *session) kept() []schema.ObservedNode {
	w, c := s.watched, s.seen
	if c == nil || !w.Watch || w.Doc != c.doc || w.Changes != c.changes || w.Frames != 0 {
		return nil
	}
	return c.nodes
}

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
