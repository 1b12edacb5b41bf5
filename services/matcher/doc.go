// Package matcher decides whether a stored playbook can do a task: a hard
// fingerprint gate, an intent shortlist, and parameter binding; anything
// uncertain is a miss that returns control to the agent.
//
// Not built yet: it arrives with the learning loop (issue 7).
package matcher
