// Package perception turns a live page into what a planner reads: CDP
// capture, a distilled interactive tree, stable element ids, a budgeted
// compact render, and diffs against the last grounded observation.
//
// Not built yet: it arrives with the browser planes (issue 4).
package perception
