// Package schema is Rote's domain package: the typed events that travel over
// the bus, playbooks (a parameterized, assertion-gated step DAG), the closed
// expect DSL and its evaluator, templating, and environment fingerprints.
//
// It is pure: no network, no files, no clocks, no randomness. Callers supply
// ids and times; everything here is a deterministic function of its inputs,
// which is what lets the distiller, matcher and audit replay a run's events
// and reach the same answer every time.
package schema
