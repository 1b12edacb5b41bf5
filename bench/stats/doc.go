// Package stats holds the benchmark's arithmetic: seeded bootstrap
// confidence intervals and the launch gates. It is pure and
// deterministic: the same samples and seed give the same bytes.
package stats
