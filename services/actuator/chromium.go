package actuator

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"time"
)

// ChromiumPath is where Debian installs Chromium.
const ChromiumPath = "/usr/bin/chromium"

// chromiumFlags start Chromium headless on a closed network: without the
// background-networking flags it floods the network with requests that
// fail, and without --no-sandbox it will not start as root.
var chromiumFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--mute-audio", "--window-size=1280,900", "--remote-debugging-port=0",
}

// ErrLaunch means Chromium could not be started.
var ErrLaunch = errors.New("actuator: chromium did not start")

// chromium is one browser process.
type chromium struct {
	cmd  *exec.Cmd
	ws   string        // DevTools WebSocket address
	dir  string        // its profile directory
	dead chan struct{} // closed when the process exits
}

var devtoolsLine = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

// launchChromium starts a browser with a fresh profile and waits for its
// DevTools address. Errors wrap ErrLaunch.
func launchChromium(ctx context.Context, path string) (*chromium, error) {
	dir, err := os.MkdirTemp("", "rote-chromium-")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLaunch, err)
	}
	cmd := exec.Command(path, append(chromiumFlags, "--user-data-dir="+dir, "about:blank")...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: %v", ErrLaunch, err)
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: %s: %v", ErrLaunch, path, err)
	}
	c := &chromium{cmd: cmd, dir: dir, dead: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := devtoolsLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	go func() {
		cmd.Wait()
		close(c.dead)
	}()
	select {
	case c.ws = <-found:
		return c, nil
	case <-c.dead:
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: the process exited before it listened", ErrLaunch)
	case <-time.After(20 * time.Second):
	case <-ctx.Done():
	}
	c.kill()
	return nil, fmt.Errorf("%w: no DevTools address within 20s", ErrLaunch)
}

// alive reports whether the process is still running.
func (c *chromium) alive() bool {
	select {
	case <-c.dead:
		return false
	default:
		return true
	}
}

// kill stops the process and removes its profile.
func (c *chromium) kill() {
	c.cmd.Process.Kill()
	<-c.dead
	os.RemoveAll(c.dir)
}
