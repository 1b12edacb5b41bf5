package cli

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadPlaybookFileRefusesWhatIsNoFile: a FIFO (or a device) given as
// a playbook is refused at once as a usage error, not read: its read
// would block past any signal.
func TestReadPlaybookFileRefusesWhatIsNoFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "playbook.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	_, err := ReadPlaybookFile(fifo)
	if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a FIFO: %v, want a usage error", err)
	}
	if _, err := ReadPlaybookFile(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a directory: %v", err)
	}
}
