package chromium

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLaunchAttachKill launches a browser, attaches to it by its
// address, and kills it: the attached one sees it gone, and nothing of it
// is left in the temporary directory.
func TestLaunchAttachKill(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := Launch(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Alive() {
		t.Fatal("a launched browser is not alive")
	}
	a, err := Attach(p.WS())
	if err != nil {
		t.Fatal(err)
	}
	if !a.Alive() {
		t.Fatal("the attached browser does not answer")
	}
	a.Kill()
	if !p.Alive() {
		t.Fatal("killing an attached browser stopped it")
	}
	sock, err := os.Readlink(filepath.Join(p.dir, "SingletonSocket"))
	if err != nil {
		t.Fatalf("the profile has no singleton socket link: %v", err)
	}
	p.Kill()
	if p.Alive() || a.Alive() {
		t.Fatal("a killed browser still answers")
	}
	// Killed, Chromium cleans up nothing: its profile and the directory of
	// its singleton socket are removed for it.
	for _, dir := range []string{p.dir, filepath.Dir(sock)} {
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%s is left after the browser was killed", dir)
		}
	}
	if _, err := Attach("http://127.0.0.1:1/"); err == nil {
		t.Fatal("attached to an address that is no DevTools WebSocket")
	}
}

// TestDiesWithItsLauncher: a browser launched by a process that is
// killed (SIGKILL: no cleanup runs) does not outlive it.
func TestDiesWithItsLauncher(t *testing.T) {
	if os.Getenv("CHROMIUM_TEST_LAUNCHER") == "1" {
		p, err := Launch(context.Background(), "")
		if err != nil {
			os.Exit(2)
		}
		fmt.Println(p.WS())
		time.Sleep(time.Minute) // killed before this ends
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDiesWithItsLauncher$")
	cmd.Env = append(os.Environ(), "CHROMIUM_TEST_LAUNCHER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ws, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	browser, err := Attach(strings.TrimSpace(ws))
	if err != nil || !browser.Alive() {
		t.Fatalf("the launched browser does not answer (%v)", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	for deadline := time.Now().Add(10 * time.Second); browser.Alive(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the browser outlived the process that launched it")
		}
	}
}

// TestProfilesOfDeadLaunchersAreSwept: a profile directory whose owner
// process is gone is removed by the next launch's sweep; one whose owner
// runs, or without an owner, stays.
func TestProfilesOfDeadLaunchersAreSwept(t *testing.T) {
	tmp := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(name, owner string) string {
		dir := filepath.Join(tmp, profilePrefix+name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner), 0o600)
		}
		return dir
	}
	gone := mk("gone", strconv.Itoa(dead.Process.Pid))
	alive := mk("alive", strconv.Itoa(os.Getppid()))
	unowned := mk("unowned", "")
	sweepProfiles(tmp)
	for dir, want := range map[string]bool{gone: false, alive: true, unowned: true} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", dir, err == nil, want)
		}
	}
}
