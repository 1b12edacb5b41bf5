package chromium

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Each launched Chromium gets a fresh profile directory, which holds the
// pid of the process that launched it. The directory goes when Chromium
// exits; one left by a launcher killed with SIGKILL (whose Chromium died
// with it, by Pdeathsig) is removed by the next launch on the machine.

const (
	profilePrefix = "rote-chromium-"
	ownerFile     = "rote-owner"
)

// newProfile creates a profile directory owned by this process, after
// sweeping those whose owner is gone.
func newProfile() (string, error) {
	sweepProfiles(os.TempDir())
	dir, err := os.MkdirTemp("", profilePrefix)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// sweepProfiles removes the profile directories under tmp whose owner
// process no longer runs. A directory without an owner file, or whose
// owner cannot be read, is left alone, and so is one another user owns
// (or a link): a shared temporary directory holds other users' too.
func sweepProfiles(tmp string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, profilePrefix+"*"))
	for _, dir := range dirs {
		if !mine(dir) {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if proc, err := os.FindProcess(pid); err == nil && errors.Is(proc.Signal(syscall.Signal(0)), os.ErrProcessDone) {
			removeProfile(dir)
		}
	}
}

// singletonPrefix names the directory under the temporary directory where
// Chromium keeps a profile's singleton socket; the profile's
// SingletonSocket link points into it.
const singletonPrefix = "org.chromium.Chromium."

// removeProfile removes a profile directory and the singleton socket
// directory Chromium made for it, which Chromium leaves behind when it is
// killed. Only a directory the profile's own link names, directly under
// the temporary directory and named as Chromium names it, is removed.
func removeProfile(dir string) {
	if target, err := os.Readlink(filepath.Join(dir, "SingletonSocket")); err == nil {
		sock := filepath.Dir(target)
		if filepath.Dir(sock) == filepath.Clean(os.TempDir()) && strings.HasPrefix(filepath.Base(sock), singletonPrefix) && mine(sock) {
			os.RemoveAll(sock)
		}
	}
	os.RemoveAll(dir)
}

// mine says whether path is a directory (not a link) this process's user
// owns.
func mine(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
