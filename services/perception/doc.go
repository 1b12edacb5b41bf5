// Package perception turns a live page into what a planner reads. It
// attaches to a page over the Chrome DevTools Protocol, captures it
// (DOMSnapshot.captureSnapshot with layout and styles, and
// Accessibility.getFullAXTree for the page and its same-origin iframes,
// joined by backend node id), condenses it to the controls a user can act on
// and the text that gives them meaning, gives each node a stable id, and
// renders it within a character budget: the whole page once, then diffs
// against the last grounded observation.
//
// Terms the code uses:
//   - condense (condense.go): prune a capture to what matters. Distilling
//     is the distiller service's word, for turning a run into a playbook;
//     the observation's timing keeps its old name, Distill.
//   - stable id: a short hash of a node's role, name and place (landmark
//     or frame, group, row key), so that a node keeps its id across
//     captures (ids.go).
//   - twins: nodes whose ids hash alike; each after the first gets ~2,
//     ~3, and the render says "(1 of 2)".
//   - grounded observation: a whole page, rendered within the budget; the
//     observations after it are diffs against it.
//
// The Service answers observe requests for the browsers of its own host on
// schema.ObserveSubject(host); the actuator, which owns the browsers, sends
// them to the perception of its host, since a browser's DevTools endpoint
// is reachable on its host's loopback only.
package perception
