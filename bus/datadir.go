package bus

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// A data directory holds the bus's passwords, the key that signs the
// run log and the key of secret digests: whoever could write it could
// plant their own, and whoever could read it could use them. So it is
// made 0700, and one found that another user owns or may write is
// refused rather than adopted; a key file another user may read is
// refused too.

// ErrUnsafeDataDir means a data directory (or another directory Rote
// writes private files in: a run's export), or a key file in it, is one
// another local user made, may write, or (a key file) may read.
var ErrUnsafeDataDir = errors.New("bus: unsafe directory")

// PrivateDir creates dir with mode 0700 (and its missing parents), or
// checks the one there: it must be a directory this process's user owns
// that neither group nor others may write. One they may only read or
// enter is made 0700. The directories above it are checked too
// (safeAncestors). Errors wrap ErrUnsafeDataDir and say how to fix the
// directory.
func PrivateDir(dir string) error {
	// Checked before anything is made: a link on the way would have the
	// directories made where its maker points it.
	if err := safeAncestors(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("bus: directory: %w", err)
	}
	fi, err := os.Stat(dir) // through a link: the directory it names must be private
	if err != nil {
		return fmt.Errorf("bus: directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrUnsafeDataDir, dir)
	}
	if err := ownedByMe(dir, fi); err != nil {
		return err
	}
	mode := fi.Mode().Perm()
	if mode&0o022 != 0 {
		return fmt.Errorf("%w: %s may be written by group or others (mode %04o), who could have put files in it (keys, in a data directory): use another directory, or, if you made it and trust what is in it, chmod 700 %s", ErrUnsafeDataDir, dir, mode, dir)
	}
	if mode&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("bus: directory: %w", err)
		}
	}
	return nil
}

// ownedByMe is nil when fi, the file at path, belongs to this process's
// user.
func ownedByMe(path string, fi os.FileInfo) error {
	uid, err := ownerOf(path, fi)
	if err != nil {
		return err
	}
	if me := os.Geteuid(); uid != me {
		return fmt.Errorf("%w: %s belongs to user %d, not to you (%d): another user made it and could have put files in it (keys, in a data directory); use a directory of your own, or, if you trust what is in it, chown -R %d %s", ErrUnsafeDataDir, path, uid, me, me, path)
	}
	return nil
}

// ownerOf is the user that owns fi, the file at path.
func ownerOf(path string, fi os.FileInfo) (int, error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, fmt.Errorf("%w: the owner of %s cannot be read", ErrUnsafeDataDir, path)
	}
	return int(st.Uid), nil
}

// safeAncestors checks the path to dir, component by component, links
// followed as the kernel follows them: every directory that holds the
// next step must belong to this user or to root, and one that group or
// others may write must be sticky (as /tmp is), else whoever may write it
// could move what follows aside and put their own in its place; and every
// link on the way (dir itself too) must be this user's or root's, else
// its maker could point it elsewhere at any time. Errors wrap
// ErrUnsafeDataDir.
func safeAncestors(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("bus: directory: %w", err)
	}
	at := "/"
	if err := holdsSafely(at, dir); err != nil {
		return err
	}
	rest := strings.Split(strings.Trim(abs, "/"), "/")
	for hops := 0; len(rest) > 0; {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			at = filepath.Dir(at)
			continue
		}
		next := filepath.Join(at, name)
		fi, err := os.Lstat(next)
		if errors.Is(err, os.ErrNotExist) {
			return nil // what is missing is made by this user, in a directory that holds it safely
		}
		if err != nil {
			return fmt.Errorf("bus: directory: %w", err)
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			if err := ownerIsMeOrRoot(next, dir, fi, "a link"); err != nil {
				return err
			}
			if hops++; hops > 40 {
				return fmt.Errorf("bus: directory: %s: too many links", dir)
			}
			target, err := os.Readlink(next)
			if err != nil {
				return fmt.Errorf("bus: directory: %w", err)
			}
			if filepath.IsAbs(target) {
				at = "/"
			}
			rest = append(strings.Split(strings.Trim(target, "/"), "/"), rest...)
			continue
		}
		at = next
		if len(rest) > 0 {
			if err := holdsSafely(at, dir); err != nil {
				return err
			}
		}
	}
	return nil
}

// holdsSafely checks p, a directory on the way to dir: it must belong to
// this user or root and not be writable by group or others unless sticky.
func holdsSafely(p, dir string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return fmt.Errorf("bus: directory: %w", err)
	}
	if err := ownerIsMeOrRoot(p, dir, fi, "a directory"); err != nil {
		return err
	}
	if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0 {
		return fmt.Errorf("%w: %s, which holds %s, may be written by group or others (mode %04o), who could put a directory of their own in its place: keep it under a directory only you may write, or chmod go-w %s", ErrUnsafeDataDir, p, dir, fi.Mode().Perm(), p)
	}
	return nil
}

// ownerIsMeOrRoot is nil when fi, the file at p on the way to dir (what
// says what it is), belongs to this user or to root.
func ownerIsMeOrRoot(p, dir string, fi os.FileInfo, what string) error {
	uid, err := ownerOf(p, fi)
	if err != nil {
		return err
	}
	if uid != os.Geteuid() && uid != 0 {
		return fmt.Errorf("%w: %s, %s on the way to %s, belongs to user %d, who could put one of their own in its place or point it elsewhere: keep it under directories of yours", ErrUnsafeDataDir, p, what, dir, uid)
	}
	return nil
}

// maxKeyFile bounds a key file: a key is a line of hex.
const maxKeyFile = 4096

// readPrivate reads a key file: a regular file (not a link) this
// process's user owns that no group or other user may read. Errors wrap
// ErrUnsafeDataDir, or the open's error (os.ErrNotExist for none).
func readPrivate(path string) ([]byte, error) {
	// Not following a link, nor waiting on a FIFO for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%w: %s is a symbolic link: a key file must be the file itself", ErrUnsafeDataDir, path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrUnsafeDataDir, path)
	}
	if err := ownedByMe(path, fi); err != nil {
		return nil, err
	}
	if mode := fi.Mode().Perm(); mode&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s may be read by group or others (mode %04o), so its key may be known: if only you could ever read it, chmod 600 %s; else remove it to have a new key made (the run log's old signatures then no longer verify)", ErrUnsafeDataDir, path, mode, path)
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxKeyFile {
		return nil, fmt.Errorf("%s is damaged: over %d bytes", path, maxKeyFile)
	}
	return raw, nil
}
