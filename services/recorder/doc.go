// Package recorder is the MCP stdio proxy that sits between a client and
// any MCP server, forwards every byte unchanged, and writes each tool call
// to the run log in ROTE_RUNS.
//
// Not built yet: it arrives with the recorder (issue 3).
package recorder
