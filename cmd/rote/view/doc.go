// Package view is how the rote commands print what they did: a task's
// outcome and steps, a replay's result, an audit, a run's events as JSON,
// table cells. Commands parse, call and print through it, so that their
// output is written, and tested, in one place.
package view
