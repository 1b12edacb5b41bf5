// Package chromium starts headless Chromium with the flags a closed,
// sandbox-less machine needs and drives it over a pipe: no DevTools port
// is ever opened, so no other local user can reach the browser. One
// connection per browser is shared among all its clients (mux.go); the
// browser refuses the tabs and windows its pages open (popups.go); other
// processes of the same user reach it through a Unix socket only they can
// open (relay.go). A browser a user started with a DevTools port is
// attached to by its WebSocket address. The actuator pools them; tests
// share one per package.
package chromium

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

// Path is where Debian installs Chromium.
const Path = "/usr/bin/chromium"

// flags start Chromium headless on a closed network: without the
// background-networking flags it floods the network with requests that
// fail, and without --no-sandbox it will not start as root. DevTools
// speaks over the pipe on file descriptors 3 and 4, never a port.
var flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--mute-audio", "--window-size=1280,900", "--remote-debugging-pipe",
}

// ErrLaunch means Chromium could not be started.
var ErrLaunch = errors.New("chromium: did not start")

// ErrUnreachable means the browser at an address does not answer.
var ErrUnreachable = errors.New("chromium: the browser does not answer")

// Endpoint prefixes: a browser this process launched and shares with no
// one, and one another process of this user shares over a Unix socket.
const (
	pipePrefix  = "pipe:"
	relayPrefix = "unix:"
)

// Process is a browser with one DevTools connection: one this process
// launched (Launch), or one it attached to (Attach).
type Process struct {
	mux    *mux
	cmd    *exec.Cmd     // nil when attached
	dir    string        // the launched one's profile directory
	dead   chan struct{} // closed when the launched one exits
	stderr *tail         // the launched one's last output, for errors

	mu       sync.Mutex
	endpoint string
	relay    *relay // set by Share
}

// Launch starts Chromium at path (default Path) with a fresh profile,
// speaking DevTools over a pipe, and waits until it answers. Errors wrap
// ErrLaunch.
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
	p := &Process{cmd: cmd, dir: dir, dead: make(chan struct{}), stderr: &tail{max: 4096}}
	cmd.Stdout, cmd.Stderr = p.stderr, p.stderr
	// The browser reads commands from its fd 3 and writes to its fd 4.
	browserIn, toBrowser, err := os.Pipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: %v", ErrLaunch, err)
	}
	fromBrowser, browserOut, err := os.Pipe()
	if err != nil {
		browserIn.Close()
		toBrowser.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: %v", ErrLaunch, err)
	}
	cmd.ExtraFiles = []*os.File{browserIn, browserOut}
	err = cmd.Start()
	browserIn.Close()
	browserOut.Close()
	if err != nil {
		toBrowser.Close()
		fromBrowser.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: %s: %v", ErrLaunch, path, err)
	}
	go func() {
		cmd.Wait()
		removeProfile(dir) // however it ended
		close(p.dead)
	}()
	type started struct {
		m   *mux
		err error
	}
	ready := make(chan started, 1)
	go func() {
		m, err := newMux(chromedp.NewPipeConn(fromBrowser, toBrowser), true)
		ready <- started{m, err}
	}()
	select {
	case s := <-ready:
		if s.err == nil {
			p.mux = s.m
			p.endpoint = pipePrefix + randomID()
			register(p.endpoint, p)
			return p, nil
		}
		err = s.err
	case <-p.dead:
		err = errors.New("the process exited before it answered")
	case <-time.After(20 * time.Second):
		err = errors.New("no answer within 20s")
	case <-ctx.Done():
		err = ctx.Err()
	}
	toBrowser.Close()
	fromBrowser.Close()
	cmd.Process.Kill()
	<-p.dead
	if out := strings.TrimSpace(p.stderr.String()); out != "" {
		err = fmt.Errorf("%v; it said: %s", err, out)
	}
	return nil, fmt.Errorf("%w: %v", ErrLaunch, err)
}

// Attach connects to a browser another process runs: at a ws:// or
// wss:// DevTools address, one a user started on purpose (this process
// then refuses its driven pages' popups, as for one it launched); or at
// a unix: address, one another Rote process of this user shares (Share),
// which refuses them itself. Kill leaves it running. Errors wrap
// ErrUnreachable.
func Attach(ctx context.Context, endpoint string) (*Process, error) {
	return attach(ctx, endpoint, true)
}

// attach is Attach; with enforce false it only reads and drives pages,
// leaving the browser's policies to the process that holds them.
func attach(ctx context.Context, endpoint string, enforce bool) (*Process, error) {
	var tr chromedp.Transport
	var err error
	switch {
	case strings.HasPrefix(endpoint, "ws://"), strings.HasPrefix(endpoint, "wss://"):
		tr, err = remote.DialContext(ctx, endpoint)
	case strings.HasPrefix(endpoint, relayPrefix):
		tr, err = dialRelay(ctx, strings.TrimPrefix(endpoint, relayPrefix))
		enforce = false // the browser's owner does
	case strings.HasPrefix(endpoint, pipePrefix):
		return nil, fmt.Errorf("%w: %s is a browser another process launched and does not share: run this service in that process, or have it share the browser", ErrUnreachable, endpoint)
	default:
		return nil, fmt.Errorf("chromium: browser address %q: want ws://HOST:PORT/devtools/browser/ID (a browser you started) or unix:/PATH (one another rote process shares)", endpoint)
	}
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrUnreachable, endpoint, err)
	}
	m, err := newMux(tr, enforce)
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrUnreachable, endpoint, err)
	}
	if !enforce {
		// Ask something of it, so that an address that leads nowhere
		// useful is refused now rather than at the first session.
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := m.call(ctx, "", "Browser.getVersion", nil, nil); err != nil {
			m.close(err)
			return nil, fmt.Errorf("%w at %s: %v", ErrUnreachable, endpoint, err)
		}
	}
	p := &Process{mux: m, endpoint: endpoint}
	registry.LoadOrStore(endpoint, p)
	return p, nil
}

// Endpoint is how to reach the browser: from this process always; from
// another process of this user once it is shared (Share), or when it is
// one a user started.
func (p *Process) Endpoint() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.endpoint
}

// Allocator is a chromedp allocator context on the browser: each browser
// chromedp allocates in it is a connection of its own to this one.
func (p *Process) Allocator(parent context.Context) (context.Context, context.CancelFunc) {
	return chromedp.NewAllocatorContext(parent, &allocator{dial: func(context.Context) (chromedp.Transport, error) { return p.mux.dial() }})
}

// Alive reports whether the browser still runs and answers.
func (p *Process) Alive() bool {
	if p.cmd != nil {
		select {
		case <-p.dead:
			return false
		default:
		}
	}
	return p.mux.alive()
}

// Kill stops a launched browser, removes its profile and stops sharing
// it; an attached one is left running, only the connection closes.
func (p *Process) Kill() {
	p.mu.Lock()
	r := p.relay
	p.relay = nil
	p.mu.Unlock()
	if r != nil {
		r.close()
	}
	unregister(p)
	p.mux.close(errors.New("chromium: the browser was stopped"))
	if p.cmd == nil {
		return
	}
	p.cmd.Process.Kill()
	<-p.dead
	removeProfile(p.dir)
}

// randomID is 16 random hex digits.
func randomID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
