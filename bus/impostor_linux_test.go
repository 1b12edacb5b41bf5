package bus_test

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
)

// TestNoPasswordGoesToAnotherUsersListener: the owner of a data directory
// has gone without a word (its lock still held, as while it exits), and
// another local user listens on the port its nats.url names. A process
// that joins the directory finds the listener is not its user's and sends
// it nothing: not the password of the user rote, not a byte.
func TestNoPasswordGoesToAnotherUsersListener(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("a socket of another user takes root to make (setfsuid): run the tests as root, as CI does")
	}
	dir := t.TempDir()
	owner, err := bus.Open(ctx(t), bus.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Close(); err != nil {
		t.Fatal(err)
	}

	ln := listenAs(t, 65534)
	var heard atomic.Int64
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				// A server speaks first; an impostor that does collects
				// the CONNECT line with the password.
				_, _ = conn.Write([]byte(`INFO {"server_id":"x","version":"2.12.0","proto":1,"max_payload":1048576,"auth_required":true}` + "\r\n"))
				_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
				n, _ := io.Copy(io.Discard, conn)
				heard.Add(n)
			}()
		}
	}()
	if err := os.WriteFile(filepath.Join(dir, "nats.url"), []byte("nats://"+ln.Addr().String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}

	b, err := bus.Open(ctx(t), bus.Config{DataDir: dir})
	if err == nil {
		b.Close()
		t.Fatal("joined a server another user runs")
	}
	if !errors.Is(err, bus.ErrDataDirBusy) || !strings.Contains(err.Error(), "not this user's") {
		t.Fatalf("the refusal does not say why: %v", err)
	}
	time.Sleep(3500 * time.Millisecond) // the impostor's reads end
	if n := heard.Load(); n != 0 {
		t.Fatalf("the other user's listener heard %d bytes", n)
	}
}

// listenAs listens on a loopback port as user uid: the socket is made by
// a thread whose file-system user is uid, which is whose the kernel says
// the socket is.
func listenAs(t *testing.T, uid int) net.Listener {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := syscall.Setfsuid(uid); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	_ = syscall.Setfsuid(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}
