package bus

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Files inside the data directory.
const (
	lockFile = "lock"     // flock'ed by the process that runs the embedded server
	urlFile  = "nats.url" // that server's client URL, for other processes
)

// embedded is an in-process nats-server that owns a data directory.
type embedded struct {
	srv  *server.Server
	lock *os.File
	dir  string
	rote string // the password of Rote's own user
}

// openEmbedded starts a server over cfg.DataDir, or attaches to the one
// another process runs there, as its heir.
func openEmbedded(ctx context.Context, cfg Config, extra ...nats.Option) (*nats.Conn, *embedded, *heir, error) {
	dir := cfg.DataDir
	if err := PrivateDir(dir); err != nil {
		return nil, nil, nil, err
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	if lock == nil {
		if cfg.Listen != "" {
			// This process would join the owner's server, not listen.
			return nil, nil, nil, fmt.Errorf("%w: %s is served by another process, so this one cannot listen on %s; stop it or use another data directory", ErrDataDirBusy, dir, cfg.Listen)
		}
		h := &heir{dir: dir, log: cmp.Or(cfg.Log, slog.Default())}
		conn, err := attach(ctx, dir, cfg.Name, cmp.Or(cfg.Role, roteUser), append(extra, nats.SetCustomDialer(h), nats.ReconnectWait(250*time.Millisecond))...)
		return conn, nil, h, err
	}
	e, err := serveDir(dir, cfg.Listen, lock, cfg.Log)
	if err != nil {
		return nil, nil, nil, err
	}
	conn, err := nats.Connect(e.srv.ClientURL(), append([]nats.Option{nats.Name(cfg.Name), nats.InProcessServer(e.srv), nats.UserInfo(roteUser, e.rote)}, extra...)...)
	if err != nil {
		e.close()
		return nil, nil, nil, fmt.Errorf("bus: connect to embedded server: %w", err)
	}
	return conn, e, nil, nil
}

// lockDir takes dir's lock, which the process that runs its embedded
// server holds: nil, without an error, when another process holds it.
func lockDir(dir string) (*os.File, error) {
	lock, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("bus: data directory: %w", err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, nil
		}
		return nil, fmt.Errorf("bus: lock data directory: %w", err)
	}
	return lock, nil
}

// serveDir starts the embedded server over dir, whose lock this process
// holds, and publishes its address there for other processes.
func serveDir(dir, listen string, lock *os.File, log *slog.Logger) (*embedded, error) {
	e := &embedded{lock: lock, dir: dir}
	rote, client, err := tokens(dir)
	if err != nil {
		e.close()
		return nil, err
	}
	e.rote = rote
	if e.srv, err = startServer(dir, listen, users(rote, client)); err != nil {
		e.close()
		return nil, err
	}
	if host, _, _ := net.SplitHostPort(listen); listen != "" && !loopback(host) {
		cmp.Or(log, slog.Default()).Warn("the embedded NATS server listens beyond this machine without TLS: its clients' passwords and every event cross the network in clear; put it behind TLS or an external NATS server with TLS (--nats tls://...)", "listen", listen)
	}
	if err := writeFileAtomic(filepath.Join(dir, urlFile), []byte(e.srv.ClientURL()+"\n")); err != nil {
		e.close()
		return nil, err
	}
	return e, nil
}

// loopback reports whether host names this machine only.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func startServer(dir, listen string, users []*server.User) (*server.Server, error) {
	opts := &server.Options{
		Users:      users,
		ServerName: "rote",
		Host:       "127.0.0.1",
		Port:       server.RANDOM_PORT,
		JetStream:  true,
		StoreDir:   filepath.Join(dir, "jetstream"),
		NoSigs:     true,
		NoLog:      true,
	}
	if listen != "" {
		host, port, err := net.SplitHostPort(listen)
		if err != nil {
			return nil, fmt.Errorf("bus: listen address %q: %w", listen, err)
		}
		if opts.Port, err = strconv.Atoi(port); err != nil {
			return nil, fmt.Errorf("bus: listen port %q: %w", port, err)
		}
		opts.Host = host
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("bus: embedded server: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, fmt.Errorf("bus: embedded server on %s did not start within 10s", listen)
	}
	return srv, nil
}

// attach connects, as user, to the server that the owner of dir
// published. The owner writes its URL just after it starts, so a missing
// file is retried briefly.
func attach(ctx context.Context, dir, name, user string, extra ...nats.Option) (*nats.Conn, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		raw, err := readPrivate(filepath.Join(dir, urlFile))
		if err == nil {
			url := strings.TrimSpace(string(raw))
			password, err := ReadToken(dir, user)
			if err != nil {
				return nil, fmt.Errorf("%w: %s is locked and its password is unreadable (%v)", ErrDataDirBusy, dir, err)
			}
			conn, err := dial(ctx, Config{URL: url, Name: name}, append(extra, nats.UserInfo(user, password))...)
			if err == nil {
				return conn, nil
			}
			return nil, fmt.Errorf("%w: %s is locked and its server at %s does not answer (%v)", ErrDataDirBusy, dir, url, err)
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s is locked and its server address is unreadable: %w", ErrDataDirBusy, dir, err)
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("%w: %s is locked but publishes no server address", ErrDataDirBusy, dir)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (e *embedded) close() {
	if e.srv != nil {
		e.srv.Shutdown()
		e.srv.WaitForShutdown()
		os.Remove(filepath.Join(e.dir, urlFile))
	}
	e.lock.Close() // closing the descriptor releases the flock
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("bus: write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("bus: write %s: %w", path, err)
	}
	return nil
}

// serverJetStream is the JetStream configuration of the server this
// process runs, nil when it runs none.
func (b *Bus) serverJetStream() *server.JetStreamConfig {
	if b.embedded == nil || b.embedded.srv == nil {
		return nil
	}
	return b.embedded.srv.JetStreamConfig()
}
