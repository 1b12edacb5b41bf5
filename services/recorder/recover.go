package recorder

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// Layout under the data directory.
const (
	locksDir  = "runs"  // <run>.lock, flock'ed by the live recorder of that run
	spoolsDir = "spool" // <run>.spool, events waiting for the bus
)

// RunLock marks a run as live: the process recording it (rote record,
// rote mcp browser) holds an exclusive flock on <data>/runs/<run>.lock.
// When the process dies, however it dies, the kernel releases the lock,
// which is how the next Recover knows the run was abandoned.
type RunLock struct {
	f    *os.File
	path string
}

// lockRun creates and locks the lock file of a new run. The file is
// locked under a temporary name and then renamed into place, so no other
// process ever sees an unlocked lock file of a live run.
func LockRun(dataDir, runID string) (*RunLock, error) {
	dir := filepath.Join(dataDir, locksDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("recorder: run lock: %w", err)
	}
	tmp, err := os.CreateTemp(dir, runID+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("recorder: run lock: %w", err)
	}
	if err := syscall.Flock(int(tmp.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("recorder: run lock: %w", err)
	}
	path := filepath.Join(dir, runID+".lock")
	if err := os.Rename(tmp.Name(), path); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("recorder: run lock: %w", err)
	}
	return &RunLock{f: tmp, path: path}, nil
}

// claimRun locks the existing lock file of a run, or creates one for a
// run that only left a spool; it fails while the run's recorder lives.
func claimRun(dataDir, runID string) (*RunLock, error) {
	path := filepath.Join(dataDir, locksDir, runID+".lock")
	f, err := os.OpenFile(path, os.O_RDWR, 0o600)
	if errors.Is(err, os.ErrNotExist) {
		return LockRun(dataDir, runID)
	}
	if err != nil {
		return nil, fmt.Errorf("recorder: run lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("recorder: run %s is still being recorded: %w", runID, err)
	}
	return &RunLock{f: f, path: path}, nil
}

// Alive reports whether run runID of dataDir has a live recorder: its
// lock file exists and another process holds it.
func Alive(dataDir, runID string) bool {
	return schema.ValidateRunID(runID) == nil && bus.LockHeld(filepath.Join(dataDir, locksDir, runID+".lock"))
}

// Release removes the lock file and unlocks it.
func (l *RunLock) Release() {
	os.Remove(l.path)
	l.f.Close()
}

// Recover finishes what dead recorders left behind in dataDir: it flushes
// their spools to the bus and closes each of their runs that has no
// run.finished with outcome aborted, its time range ending at the run's
// last stored event. Runs whose recorder is alive are left alone. It
// returns the ids of the runs it marked aborted.
func Recover(ctx context.Context, runs *bus.RunLog, dataDir string, now time.Time) ([]string, error) {
	locks, _ := filepath.Glob(filepath.Join(dataDir, locksDir, "*.lock"))
	spools, _ := filepath.Glob(filepath.Join(dataDir, spoolsDir, "*.spool"))
	dead := map[string]*RunLock{}
	defer func() {
		for _, l := range dead {
			l.Release()
		}
	}()
	var order []string
	for _, path := range append(locks, spools...) {
		runID := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".lock"), ".spool")
		if _, seen := dead[runID]; seen || schema.ValidateRunID(runID) != nil {
			continue
		}
		l, err := claimRun(dataDir, runID)
		if err != nil {
			continue // its recorder is alive
		}
		dead[runID] = l
		order = append(order, runID)
	}
	var aborted []string
	var errs []error
	for _, runID := range order {
		if _, err := flushSpool(ctx, runs, spoolPath(filepath.Join(dataDir, spoolsDir), runID)); err != nil {
			// The spool file stays; the next Recover finds it again.
			errs = append(errs, fmt.Errorf("run %s: %w", runID, err))
			continue
		}
		marked, err := runs.Abort(ctx, runID, now, "the process recording the run died before finishing it; the log holds every event it acknowledged")
		if err != nil {
			errs = append(errs, fmt.Errorf("run %s: %w", runID, err))
			continue
		}
		if marked {
			aborted = append(aborted, runID)
		}
	}
	return aborted, errors.Join(errs...)
}
