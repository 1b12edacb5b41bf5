// Package replay replays playbooks. The Executor validates a playbook,
// checks its fingerprint against the live environment, binds its
// parameters and walks its steps in order through a Dispatcher: the
// browser (BrowserDispatcher, over an actuator's session) or any MCP
// server over stdio (MCPDispatcher). Deterministic steps call no model;
// slot, judgment and repair steps ask the planner over the bus. Each
// step's expect is checked, a failing step goes down its on_fail ladder
// (retry, scoped repair, fallback), and the verify gate decides success.
// A replay is a run, recorded in ROTE_RUNS like any other.
//
// It imports no browser driver: everything it does to a page goes
// through a Dispatcher.
package replay
