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

	"github.com/chromedp/chromedp"
)

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestLaunchShareKill launches a browser over a pipe, shares it, drives a
// page through the relay from a second connection, and kills it: the
// attached one sees it gone, and nothing of it is left behind.
func TestLaunchShareKill(t *testing.T) {
	ctx := testContext(t)
	p, err := Launch(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if !p.Alive() || !strings.HasPrefix(p.Endpoint(), pipePrefix) {
		t.Fatalf("a launched browser: alive %v, endpoint %q", p.Alive(), p.Endpoint())
	}
	if _, err := Attach(ctx, p.Endpoint()); err == nil {
		t.Fatal("attached to a browser that is not shared")
	}
	endpoint, err := p.Share()
	if err != nil || !strings.HasPrefix(endpoint, relayPrefix) || p.Endpoint() != endpoint {
		t.Fatalf("shared at %q (%v); endpoint now %q", endpoint, err, p.Endpoint())
	}
	dir := filepath.Dir(strings.TrimPrefix(endpoint, relayPrefix))
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the relay's directory: %v (%v), want 0700", fi.Mode(), err)
	}
	a, err := Attach(ctx, endpoint)
	if err != nil {
		t.Fatal(err)
	}
	alloc, cancel := a.Allocator(ctx)
	page, cancelPage := chromedp.NewContext(alloc, chromedp.WithNewBrowserContext())
	err = chromedp.Do(page, chromedp.Navigate("data:text/html,<title>relayed</title>"))
	title, _ := chromedp.Run(page, chromedp.Title())
	if err != nil || title != "relayed" {
		t.Fatalf("a page through the relay: %q (%v)", title, err)
	}
	cancelPage()
	cancel()
	a.Kill()
	if !p.Alive() {
		t.Fatal("killing an attached browser stopped it")
	}
	sock, err := os.Readlink(filepath.Join(p.dir, "SingletonSocket"))
	if err != nil {
		t.Fatalf("the profile has no singleton socket link: %v", err)
	}
	b, err := Attach(ctx, endpoint)
	if err != nil {
		t.Fatal(err)
	}
	p.Kill()
	waitDead(t, b)
	if p.Alive() {
		t.Fatal("a killed browser is alive")
	}
	// Killed, Chromium cleans up nothing: its profile, the directory of
	// its singleton socket and the relay's are removed for it.
	for _, dir := range []string{p.dir, filepath.Dir(sock), dir} {
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%s is left after the browser was killed", dir)
		}
	}
	if _, err := Attach(ctx, "http://127.0.0.1:1/"); err == nil {
		t.Fatal("attached to an address that is no DevTools address")
	}
}

func waitDead(t *testing.T, p *Process) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); p.Alive(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the browser still answers")
		}
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
		endpoint, err := p.Share()
		if err != nil {
			os.Exit(3)
		}
		fmt.Println(p.cmd.Process.Pid, endpoint)
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
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pidText, endpoint, _ := strings.Cut(strings.TrimSpace(line), " ")
	pid, _ := strconv.Atoi(pidText)
	browser, err := Attach(testContext(t), endpoint)
	if err != nil || !browser.Alive() {
		t.Fatalf("the launched browser does not answer (%v)", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	waitDead(t, browser)
	for deadline := time.Now().Add(10 * time.Second); processRuns(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the browser outlived the process that launched it")
		}
	}
}

// processRuns reports whether pid names a live process (not a zombie).
func processRuns(pid int) bool {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(raw), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// TestProfilesOfDeadLaunchersAreSwept: a profile directory whose owner
// process is gone is removed by the next launch's sweep; one whose owner
// runs, or without an owner, or another user's, stays.
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
	want := map[string]bool{gone: false, alive: true, unowned: true}
	if os.Geteuid() == 0 {
		// Another user's, its launcher gone too: theirs to sweep.
		theirs := mk("theirs", strconv.Itoa(dead.Process.Pid))
		if err := os.Chown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		want[theirs] = true
	}
	sweepProfiles(tmp)
	for dir, want := range want {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", dir, err == nil, want)
		}
	}
}
