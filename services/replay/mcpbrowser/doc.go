// Package mcpbrowser serves one browser session as MCP tools: Rote's
// typed actions and observe, each answering with a one-line result and
// the page as it is afterwards (a diff, not a dump). `rote mcp browser`
// runs it over stdio; the session's observations and actions are a run
// in ROTE_RUNS like any other.
package mcpbrowser
