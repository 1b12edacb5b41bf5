// Package distiller compiles a verified run from ROTE_RUNS into a
// parameterized, assertion-gated playbook candidate, and promotes it only
// after a green shadow replay.
//
// Not built yet: it arrives with the learning loop (issue 7).
package distiller
