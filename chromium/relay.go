package chromium

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/chromedp/cdproto"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/chromedp"
)

// A browser is shared with other processes of the same user (a
// perception or an actuator running as its own process, the tests' one
// browser) through a relay: a Unix socket in a directory only this user
// can enter (0700), that accepts only connections whose peer runs as
// this user (SO_PEERCRED), each a client of the browser's mux speaking
// the pipe's own framing (one JSON message per NUL byte). Nothing
// listens on a port.

// maxRelayMessage bounds a message a relay client sends: commands are
// small (the largest Rote sends is a script of a few kilobytes).
const maxRelayMessage = 4 << 20

// ErrNotShared means a relay cannot be served.
var ErrNotShared = errors.New("chromium: cannot share the browser")

// relay serves a browser's mux on a Unix socket.
type relay struct {
	dir string
	ln  net.Listener
	m   *mux

	mu    sync.Mutex
	conns map[net.Conn]bool
	wg    sync.WaitGroup
}

// Share serves the browser to other processes of this user, on a Unix
// socket in a new 0700 directory under the temporary directory, and
// returns its endpoint (unix:/PATH), which Endpoint reports from then on.
// Sharing twice returns the same endpoint. Errors wrap ErrNotShared.
func (p *Process) Share() (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.relay != nil {
		return p.endpoint, nil
	}
	dir, err := os.MkdirTemp("", "rote-browser-")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotShared, err)
	}
	path := filepath.Join(dir, "devtools.sock")
	ln, err := net.Listen("unix", path)
	if err == nil {
		err = os.Chmod(path, 0o600)
	}
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		os.RemoveAll(dir)
		return "", fmt.Errorf("%w: %v", ErrNotShared, err)
	}
	r := &relay{dir: dir, ln: ln, m: p.mux, conns: map[net.Conn]bool{}}
	r.wg.Go(r.accept)
	p.relay = r
	p.endpoint = relayPrefix + path
	register(p.endpoint, p)
	return p.endpoint, nil
}

// accept serves each connection of this user's processes; any other is
// closed unread.
func (r *relay) accept() {
	for {
		conn, err := r.ln.Accept()
		if err != nil {
			return
		}
		if uid, err := peerUID(conn); err != nil || uid != os.Getuid() {
			conn.Close()
			continue
		}
		r.mu.Lock()
		r.conns[conn] = true
		r.mu.Unlock()
		r.wg.Go(func() {
			r.serve(conn)
			r.mu.Lock()
			delete(r.conns, conn)
			r.mu.Unlock()
		})
	}
}

// serve relays one connection: its commands to the mux, the mux's
// answers and events back, until either side ends.
func (r *relay) serve(conn net.Conn) {
	defer conn.Close()
	c, err := r.m.dial()
	if err != nil {
		return
	}
	defer c.Close()
	go func() {
		defer conn.Close()
		out := bufio.NewWriter(conn)
		var frame []byte
		for {
			msg := new(cdproto.Message)
			if err := c.Read(context.Background(), msg); err != nil {
				return
			}
			frame = appendFrame(frame[:0], msg)
			if _, err := out.Write(frame); err != nil {
				return
			}
			if c.pending() == 0 && out.Flush() != nil {
				return
			}
		}
	}()
	in := bufio.NewReader(conn)
	for {
		msg, err := readFrame(in, maxRelayMessage)
		if err != nil {
			return
		}
		if c.Write(context.Background(), msg) != nil {
			return
		}
	}
}

// appendFrame appends msg as the browser sent it, and a NUL. It writes
// the message's raw parts as they are, where an encoder would drop an
// empty result ({}) that the reader then cannot decode.
func appendFrame(b []byte, msg *cdproto.Message) []byte {
	b = append(b, '{')
	sep := func() {
		if len(b) > 1 {
			b = append(b, ',')
		}
	}
	if msg.ID != 0 {
		b = append(b, `"id":`...)
		b = strconv.AppendInt(b, msg.ID, 10)
	}
	if msg.SessionID != "" {
		sep()
		b = append(b, `"sessionId":`...)
		b = strconv.AppendQuote(b, string(msg.SessionID))
	}
	if msg.Method != "" {
		sep()
		b = append(b, `"method":`...)
		b = strconv.AppendQuote(b, string(msg.Method))
	}
	if len(msg.Params) > 0 {
		sep()
		b = append(append(b, `"params":`...), msg.Params...)
	}
	switch {
	case msg.Error != nil:
		raw, _ := jsonv2.Marshal(msg.Error, chromedp.DefaultMarshalOptions)
		sep()
		b = append(append(b, `"error":`...), raw...)
	case msg.ID != 0:
		result := []byte(msg.Result)
		if len(result) == 0 {
			result = []byte("{}")
		}
		sep()
		b = append(append(b, `"result":`...), result...)
	}
	return append(b, '}', 0)
}

// readFrame reads one NUL-terminated JSON message of at most max bytes:
// a longer one is an error before it is all read.
func readFrame(r *bufio.Reader, max int) (*cdproto.Message, error) {
	var frame []byte
	for {
		chunk, err := r.ReadSlice(0)
		if len(frame)+len(chunk) > max+1 {
			return nil, fmt.Errorf("chromium: a relayed message over %d bytes", max)
		}
		frame = append(frame, chunk...)
		switch {
		case err == nil:
			frame = bytes.TrimSpace(bytes.TrimSuffix(frame, []byte{0}))
			if len(frame) == 0 {
				continue // an empty message, as the pipe allows
			}
			msg := new(cdproto.Message)
			if err := jsonv2.Unmarshal(frame, msg, chromedp.DefaultUnmarshalOptions); err != nil {
				return nil, fmt.Errorf("chromium: a relayed message: %w", err)
			}
			return msg, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return nil, err
		}
	}
}

// close stops serving: the socket and every connection on it.
func (r *relay) close() {
	r.ln.Close()
	r.mu.Lock()
	for conn := range r.conns {
		conn.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
	os.RemoveAll(r.dir)
}

// dialRelay connects to a browser another process shares.
func dialRelay(ctx context.Context, path string) (chromedp.Transport, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	return chromedp.NewPipeConn(conn, conn), nil
}
