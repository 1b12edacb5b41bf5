// Package runlog answers the questions `rote runs` and `rote audit` ask
// of the run log, each by folding runs' events (schema.Fold): one row
// per run, a run re-derived and compared with its manifest, a run
// written out as files, a recorded session's last result.
package runlog
