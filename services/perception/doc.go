// Package perception turns a live page into what a planner reads. It
// attaches to a page over the Chrome DevTools Protocol, captures it
// (DOMSnapshot.captureSnapshot with layout and styles, and
// Accessibility.getFullAXTree for the page and its same-origin iframes,
// joined by backend node id), condenses it to the controls a user can act on
// and the text that gives them meaning, gives each node a stable id, and
// renders it within a character budget: the whole page once, then diffs
// against the last grounded observation.
//
// Condensing (condense.go) is this package's word for pruning a page to
// what matters; distilling is the distiller service's, which turns a run
// into a playbook. The observation's timing keeps its old name, Distill.
//
// The Service answers observe requests for the browsers of its own host on
// schema.ObserveSubject(host); the actuator, which owns the browsers, sends
// them to the perception of its host, since a browser's DevTools endpoint
// is reachable on its host's loopback only.
package perception
