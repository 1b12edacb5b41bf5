// Package distiller compiles a verified run from ROTE_RUNS into a
// parameterized, assertion-gated playbook candidate, and promotes it to
// version 1 only after a green shadow replay against the live
// environment.
//
// Distilling is deterministic and calls no model: the run's events are
// folded (Fold), its steps kept or pruned by data flow with a reason each,
// literals equal to task parameters templated, choices made among a
// control's options turned into judgment steps, and assertions taken only
// from strong evidence (state that appeared after an action and is not
// what the agent typed). The verify gate is the run's own verified checks.
package distiller
