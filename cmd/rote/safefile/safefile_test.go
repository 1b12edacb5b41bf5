package safefile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteReplacesALinkInsteadOfFollowingIt: a symlink planted at the
// path is replaced by the file; what it pointed to is untouched.
func TestWriteReplacesALinkInsteadOfFollowingIt(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "manifest.json")
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep me" {
		t.Fatalf("the link's target was written: %q", got)
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink != 0 || fi.Mode().Perm() != 0o644 {
		t.Fatalf("the path is %v (%v)", fi.Mode(), err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{}\n" {
		t.Fatalf("the file holds %q", got)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".manifest.json.*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}
