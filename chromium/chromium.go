// Package chromium starts headless Chromium with the flags a closed,
// sandbox-less machine needs, and attaches to one already running by its
// DevTools address. The actuator pools them; tests share one per package.
package chromium

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"time"
)

// Path is where Debian installs Chromium.
const Path = "/usr/bin/chromium"

// flags start Chromium headless on a closed network: without the
// background-networking flags it floods the network with requests that
// fail, and without --no-sandbox it will not start as root.
var flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--mute-audio", "--window-size=1280,900", "--remote-debugging-port=0",
}

// ErrLaunch means Chromium could not be started.
var ErrLaunch = errors.New("chromium: did not start")

// ErrUnreachable means the Chromium at a DevTools address another
// process runs does not answer.
var ErrUnreachable = errors.New("chromium: the browser does not answer")

// Process is a Chromium with a DevTools address: one this process
// launched (Launch), or one it attached to (Attach).
type Process struct {
	ws   string        // DevTools WebSocket address
	cmd  *exec.Cmd     // nil when attached
	dir  string        // the launched one's profile directory
	dead chan struct{} // closed when the launched one exits
}

var devtoolsLine = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

// Launch starts Chromium at path (default Path) with a fresh profile and
// waits for its DevTools address. Errors wrap ErrLaunch.
func Launch(ctx context.Context, path string) (*Process, error) {
	if path == "" {
		path = Path
	}
	dir, err := newProfile()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrLaunch, err)
	}
	cmd := exec.Command(path, append(flags, "--user-data-dir="+dir, "about:blank")...)
	cmd.SysProcAttr = procAttr()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: %v", ErrLaunch, err)
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: %s: %v", ErrLaunch, path, err)
	}
	p := &Process{cmd: cmd, dir: dir, dead: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := devtoolsLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	go func() {
		cmd.Wait()
		removeProfile(dir) // however it ended
		close(p.dead)
	}()
	select {
	case p.ws = <-found:
		return p, nil
	case <-p.dead:
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: the process exited before it listened", ErrLaunch)
	case <-time.After(20 * time.Second):
	case <-ctx.Done():
	}
	p.Kill()
	return nil, fmt.Errorf("%w: no DevTools address within 20s", ErrLaunch)
}

// Attach is the Chromium whose DevTools WebSocket address is ws, which
// another process runs: Kill leaves it running.
func Attach(ws string) (*Process, error) {
	u, err := url.Parse(ws)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return nil, fmt.Errorf("chromium: DevTools address %q: want a ws:// address such as ws://127.0.0.1:9222/devtools/browser/ID", ws)
	}
	return &Process{ws: ws}, nil
}

// WS is the DevTools WebSocket address.
func (p *Process) WS() string { return p.ws }

// Alive reports whether the browser still runs: the launched process has
// not exited, or the attached one's DevTools endpoint answers.
func (p *Process) Alive() bool {
	if p.cmd != nil {
		select {
		case <-p.dead:
			return false
		default:
			return true
		}
	}
	u, _ := url.Parse(p.ws)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+u.Host+"/json/version", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Kill stops a launched browser and removes its profile; an attached one
// is left running.
func (p *Process) Kill() {
	if p.cmd == nil {
		return
	}
	p.cmd.Process.Kill()
	<-p.dead
	removeProfile(p.dir)
}
