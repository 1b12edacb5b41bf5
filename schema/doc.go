// Package schema is Rote's domain package: the typed events that travel over
// the bus, playbooks (a parameterized, assertion-gated step DAG), the closed
// expect DSL and its evaluator, templating, and environment fingerprints.
//
// It is pure: no network, no files, no clocks, no randomness. Callers supply
// ids and times; everything here is a deterministic function of its inputs,
// which is what lets the distiller, matcher and audit replay a run's events
// and reach the same answer every time.
//
// Its subpackages hold what uses the domain types without being part of
// them, and may import schema, never the reverse: records reads the
// records on an observed page and evaluates a Pick against one; tools is
// the browser's tool surface that models and MCP clients are shown, and
// the _meta keys of Rote's tool calls and results; prompt names the
// headings of the planner's prompts.
package schema
