// Package report turns the benchmark's results, one per run as read back
// from ROTE_RUNS, into its summary (per-task metrics with bootstrap
// intervals, and the launch gates) and writes results.jsonl,
// summary.json and report.md. It is pure: the same results and seed give
// the same bytes.
package report
