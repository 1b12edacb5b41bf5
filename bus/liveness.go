package bus

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/rote-agent/rote/schema"
)

// liveDir, in a data directory, holds a file per open run, flock'ed by
// the process that runs it: whoever takes the directory over can tell
// the runs of a process that died (nobody holds the lock) from those of
// one that lives on (RunAlive).
const liveDir = "live"

// liveness holds the locks of the runs this process opened on an
// embedded store: from before its run.started is published until its
// run.finished is, or the bus closes (or the process dies, which the
// kernel takes for a release).
type liveness struct {
	dir string // the data directory's liveDir; "" when the store is not embedded

	mu   sync.Mutex
	held map[string]*os.File
}

// publishing holds the lock of ev's run before ev, a run.started, is
// published; other events pass.
func (l *liveness) publishing(ev schema.Event) {
	if e, ok := ev.(*schema.RunStarted); ok && l.dir != "" {
		l.hold(e.RunID)
	}
}

// published releases the lock of ev's run once ev, a run.finished, is
// published, or when ev, a run.started, could not be (err).
func (l *liveness) published(ev schema.Event, err error) {
	if l.dir == "" {
		return
	}
	switch e := ev.(type) {
	case *schema.RunStarted:
		if err != nil {
			l.release(e.RunID)
		}
	case *schema.RunFinished:
		if err == nil {
			l.release(e.RunID)
		}
	}
}

// hold takes the lock of run. A failure leaves the run unheld: a
// process taking the directory over would then close it as dead, which
// the run's own run.finished, arriving later, contradicts in its audit.
func (l *liveness) hold(run string) {
	if schema.ValidateRunID(run) != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.held[run]; ok {
		return
	}
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(filepath.Join(l.dir, run), os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return
	}
	if l.held == nil {
		l.held = map[string]*os.File{}
	}
	l.held[run] = f
}

// release removes run's lock file and unlocks it.
func (l *liveness) release(run string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.drop(run)
}

// close releases every run this process still holds: they are not
// finished, but this process no longer runs them.
func (l *liveness) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for run := range l.held {
		l.drop(run)
	}
}

// drop removes run's lock file and unlocks it; l.mu is held.
func (l *liveness) drop(run string) {
	if f, ok := l.held[run]; ok {
		os.Remove(f.Name())
		f.Close()
		delete(l.held, run)
	}
}

// RunAlive reports whether a live process of dataDir's embedded store
// runs run: its lock file exists and another process holds it.
func RunAlive(dataDir, run string) bool {
	return schema.ValidateRunID(run) == nil && LockHeld(filepath.Join(dataDir, liveDir, run))
}

// LockHeld reports whether the file at path exists and another open file
// (of this process or another) holds its flock. A lock that cannot be
// tested counts as held: the caller must not take its holder for dead.
func LockHeld(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
