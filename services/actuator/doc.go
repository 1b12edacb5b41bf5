// Package actuator acts on the world. It runs a pool of headless Chromium
// processes, pins each run to a browser context of its own, and performs
// the closed set of typed actions on it: settled first (no pending network
// requests and a quiet DOM), resolved down a fail-closed ladder (stable id,
// then exact role and name, then nearby text: never a guess between
// candidates), and refused when the target's recorded contract changed.
//
// The Service claims runs on schema.SubjectOpenSession and then serves
// them on subjects of its own instance, so every action of a run reaches
// the browser that holds its session. It asks perception, over the bus,
// to observe the pages it holds.
//
// Playbooks are replayed by package replay, through these sessions or
// against any MCP server; package mcpbrowser serves a session as MCP
// tools.
package actuator
