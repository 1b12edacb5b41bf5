// Package planner is the agent loop: the context assembler, the
// source-tagged LLM client, the control loop (fingerprint, match, replay,
// observe, decide, act, verify) and the repair ladder.
//
// Not built yet: it arrives with the planner (issue 6).
package planner
