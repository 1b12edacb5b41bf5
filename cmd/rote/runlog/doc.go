// Package runlog answers the questions `rote runs`, `rote audit` and
// `rote learn` ask of the run log, each by folding runs' events
// (schema.Fold): one row per run, a run re-derived and compared with its
// manifest, a run written out as files, a run declared after the fact
// (Declare) and the last result its gate is checked on (LastWorld), and a
// run's events as a timeline.
package runlog
