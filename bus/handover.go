package bus

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// heir is how a process attached to another's embedded server dials it,
// and takes the data directory over when that process exits: the
// connection's every (re)connect reads the address the directory's owner
// published, and when nothing answers there and the directory's lock is
// free, this process starts the server over the same store and connects
// to it. Its subscriptions and consumers carry on; a publish made in the
// gap is tried again (Config.PublishPatience). Of several survivors, the
// one that takes the lock serves; the others find it at the address it
// publishes.
type heir struct {
	dir string
	log *slog.Logger

	mu     sync.Mutex
	own    *embedded // the server this process started, once it took over
	took   time.Time // when it did
	judged bool      // takeover has reported it
}

// takeover returns when this process took the directory over, once: the
// first time it is asked after it did.
func (h *heir) takeover() (time.Time, bool) {
	if h == nil {
		return time.Time{}, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.own == nil || h.judged {
		return time.Time{}, false
	}
	h.judged = true
	return h.took, true
}

// Dial implements nats.CustomDialer. The address nats.go asks for is
// the one it knew; the directory says where its server is now.
func (h *heir) Dial(network, _ string) (net.Conn, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.own != nil {
		return dialURL(network, h.own.srv.ClientURL())
	}
	raw, err := readPrivate(filepath.Join(h.dir, urlFile))
	if err == nil {
		conn, derr := dialURL(network, strings.TrimSpace(string(raw)))
		if derr == nil {
			return conn, nil
		}
		err = derr
	}
	lock, lerr := lockDir(h.dir)
	if lerr != nil || lock == nil {
		// The owner still holds the lock (it is exiting, or another
		// survivor took over and has yet to publish its address).
		return nil, fmt.Errorf("bus: the server of %s does not answer (%v) and its lock is held", h.dir, err)
	}
	e, serr := serveDir(h.dir, "", lock, h.log)
	if serr != nil {
		return nil, serr
	}
	h.own, h.took = e, time.Now()
	h.log.Info("took the data directory over from the process that served it, which has gone", "dir", h.dir, "url", e.srv.ClientURL())
	return dialURL(network, e.srv.ClientURL())
}

// dialURL connects to the host and port of a nats:// URL that a data
// directory names, and makes sure the socket listening there is this
// user's before a byte is exchanged: after the owner's server has gone,
// another local user may listen on its port to collect the password the
// next connect would send, or to hand out forged tasks.
func dialURL(network, raw string) (net.Conn, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("bus: server address %q: %w", raw, err)
	}
	conn, err := net.Dial(network, u.Host)
	if err != nil {
		return nil, err
	}
	addr, ok := conn.RemoteAddr().(*net.TCPAddr)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("%w: the server address %s is not TCP", ErrUnsafeDataDir, raw)
	}
	owners, err := listenerOwners(addr)
	if err == nil && len(owners) == 0 {
		err = errors.New("no listening socket for it is in the kernel's table")
	}
	for _, uid := range owners {
		if uid != os.Geteuid() && err == nil {
			err = fmt.Errorf("user %d listens there, not you (%d)", uid, os.Geteuid())
		}
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("%w: the server at %s is not this user's, so nothing was sent to it: %v", ErrUnsafeDataDir, addr, err)
	}
	return conn, nil
}

// close stops the server this process took over, if it did.
func (h *heir) close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.own != nil {
		h.own.close()
		h.own = nil
	}
}
