package bus_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rote-agent/rote/bus"
)

// TestUnsafeDataDirsAreRefused: a data directory another user made, or
// one group or others may write (with keys planted in it), is refused
// with an error that says what to do; so is a key file others may read
// or a link in its place. A new directory is made 0700, and one of this
// user's that others may only read is made 0700.
func TestUnsafeDataDirsAreRefused(t *testing.T) {
	c := ctx(t)
	open := func(dir string) error {
		t.Helper()
		b, err := bus.Open(c, bus.Config{DataDir: dir})
		if err == nil {
			b.Close()
		}
		return err
	}
	refused := func(what, dir, hint string) {
		t.Helper()
		err := open(dir)
		if !errors.Is(err, bus.ErrUnsafeDataDir) || !strings.Contains(err.Error(), hint) {
			t.Errorf("%s: %v, want %v saying %q", what, err, bus.ErrUnsafeDataDir, hint)
		}
	}
	mode := func(path string) os.FileMode {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	planted := func(dir string, perm os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chmod(dir, perm)
		if err := os.WriteFile(filepath.Join(dir, "bus.token"), []byte(strings.Repeat("ab", 32)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	fresh := filepath.Join(t.TempDir(), "a", "data")
	if err := open(fresh); err != nil || mode(fresh) != 0o700 {
		t.Fatalf("a new data directory: mode %04o (%v), want 0700", mode(fresh), err)
	}
	writable := filepath.Join(t.TempDir(), "writable")
	planted(writable, 0o777)
	refused("a directory anyone may write", writable, "chmod 700")
	groupWritable := filepath.Join(t.TempDir(), "group")
	planted(groupWritable, 0o770)
	refused("a directory its group may write", groupWritable, "may be written by group or others")

	readable := filepath.Join(t.TempDir(), "readable")
	if err := os.Mkdir(readable, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(readable, 0o755)
	if err := open(readable); err != nil || mode(readable) != 0o700 {
		t.Fatalf("a 0755 directory of this user's: mode %04o after (%v), want 0700", mode(readable), err)
	}
	if got := mode(filepath.Join(readable, "bus.token")); got != 0o600 {
		t.Errorf("bus.token was made %04o", got)
	}
	os.Chmod(filepath.Join(readable, "client.token"), 0o644)
	refused("a key file others may read", readable, "chmod 600")
	os.Chmod(filepath.Join(readable, "client.token"), 0o600)
	token := filepath.Join(readable, "bus.token")
	os.Rename(token, token+".real")
	os.Symlink(token+".real", token)
	refused("a key file that is a link", readable, "symbolic link")
	os.Remove(token)
	if err := syscall.Mkfifo(token, 0o600); err != nil {
		t.Fatal(err)
	}
	refused("a key file that is a FIFO (opening it must not wait for a writer)", readable, "not a regular file")

	openParent := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(openParent, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(openParent, 0o777)
	refused("a directory under one anyone may write", filepath.Join(openParent, "data"), "chmod go-w "+openParent)
	linked := filepath.Join(t.TempDir(), "link")
	os.Symlink(filepath.Join(openParent, "data"), linked)
	refused("a link to a directory under one anyone may write", linked, "chmod go-w "+openParent)
	os.Chmod(openParent, 0o777|os.ModeSticky)
	if err := open(filepath.Join(openParent, "data")); err != nil {
		t.Fatalf("a directory under a sticky one anyone may write, as /tmp: %v", err)
	}

	if os.Getuid() != 0 {
		t.Fatal("another user's directories and links take root to make: run the tests as root, as CI does")
	}
	foreign := filepath.Join(t.TempDir(), "foreign")
	planted(foreign, 0o700)
	for _, p := range []string{foreign, filepath.Join(foreign, "bus.token")} {
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	refused("a directory another user made", foreign, "belongs to user 65534")
	foreignParent := filepath.Join(t.TempDir(), "theirs")
	if err := os.Mkdir(foreignParent, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(foreignParent, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	refused("a directory under another user's", filepath.Join(foreignParent, "data"), "belongs to user 65534, who could put")

	// A link another user made, in a sticky directory anyone may write
	// (as /tmp), to a directory of root's: its maker could point it
	// elsewhere at any time, so nothing is made or changed through it.
	sticky := filepath.Join(t.TempDir(), "tmp")
	if err := os.Mkdir(sticky, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	os.Chmod(sticky, 0o777|os.ModeSticky)
	mine := filepath.Join(t.TempDir(), "etc")
	if err := os.Mkdir(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct{ link, dir string }{
		{filepath.Join(sticky, "their-data"), filepath.Join(sticky, "their-data")},
		{filepath.Join(sticky, "their-parent"), filepath.Join(sticky, "their-parent", "data")},
	} {
		if err := os.Symlink(mine, l.link); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(l.link, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		refused("a data directory through another user's link", l.dir, l.link+", a link on the way")
	}
	if entries, _ := os.ReadDir(mine); len(entries) != 0 || mode(mine) != 0o755 {
		t.Errorf("the directory another user's link points at was changed: mode %04o, %d entries", mode(mine), len(entries))
	}
}
