// Package recorder is the MCP stdio proxy that sits between a client and
// any MCP server, forwards every byte unchanged, and writes each tool call
// to the run log in ROTE_RUNS.
package recorder
