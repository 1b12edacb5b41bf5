// Package widgets is the widget suite: about twenty kinds of task page
// (fields named only by the text beside them, dates, times and amounts
// written in another form, sliders, selects, radios, sets of checkboxes,
// ordinals, row actions, tabs, collapsibles, dialogs, autocomplete, lists
// that load late, switches, wizards, search), each drawn anew from a seed:
// other values, other options in another order, other decoys. A task is
// learned from a scripted demonstration on one seed, through rote record
// in front of a browser MCP server (rote mcp browser or @playwright/mcp),
// and replayed by rote replay on other seeds with their values. Every
// replay is graded by what the page's server received, against the
// instance's own ground truth: right, stopped where stopping is right (the
// task cannot be done on that instance), stopped over-cautiously, or
// wrong.
package widgets
