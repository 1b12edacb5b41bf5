package bus

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DefaultDataDir is where the embedded server keeps its JetStream store.
const DefaultDataDir = ".rote"

// Config says which NATS to use.
type Config struct {
	// URL of an external NATS server or cluster. Empty means embedded.
	URL string
	// DataDir holds the embedded server's store; default DefaultDataDir.
	DataDir string
	// Listen is the embedded server's client address, host:port. Empty
	// means 127.0.0.1 on a free port. A data directory another process
	// serves cannot be listened on: ErrDataDirBusy.
	Listen string
	// Replicas of each stream and bucket; default 1. Only a cluster can
	// hold more than one.
	Replicas int
	// Name identifies this client in the server's connection list.
	Name string
	// CAFile is the CA certificate that signed an external server's TLS
	// certificate, for a tls:// URL; empty trusts the system's roots.
	CAFile string
	// PublishPatience is how long Publish keeps trying an event the
	// cluster could not take for a moment (a failover); default
	// DefaultPublishPatience, negative not at all (a caller with its own
	// fallback, such as the recorder's spool).
	PublishPatience time.Duration
	// Role is the role user (see Roles) that a process joining another
	// process's embedded server connects as, with only that role's
	// permissions (rote serve --role NAME). Empty, or when this process
	// serves the data directory itself, it is user "rote". With URL, the
	// URL's user says.
	Role string
	// SigningKey signs the events this client publishes and checks those
	// it reads (HeaderSignature) on a bus where this client knows no
	// password of user "rote" or of a role; at least 16 bytes. Where it
	// knows one (the embedded server's, or the URL's) the key is derived
	// from it, so that every process of one store agrees whatever its
	// environment says. A bus with neither signs and checks nothing.
	SigningKey []byte
	// TookOver is called, in a goroutine of its own, when this process
	// has taken the data directory over from the process that served it
	// and exited (see heir), with the time it did: the runs that process
	// left open and no live process holds (RunAlive) can never finish.
	TookOver func(b *Bus, at time.Time)
	// RunsMaxBytes bounds the run log on disk, BlobsMaxBytes the blob
	// store (default: what they have, else a share of what the server
	// may store, limits.go): once full, each refuses new messages with
	// ErrStoreFull and drops nothing. A process of user rote sets them.
	RunsMaxBytes, BlobsMaxBytes int64
	// AcceptLogChanges records ROTE_RUNS as it is (its limits, the events
	// it lost) as accepted, where Open would otherwise refuse it with
	// ErrLogTampered (limits.go). An owner's decision: rote audit --store
	// --accept.
	AcceptLogChanges bool
	// Log hears about the connection (lost, back, closed), retried
	// publishes and requests whose handlers failed; default
	// slog.Default().
	Log *slog.Logger
}

// DefaultPublishPatience outlasts a JetStream leader election.
const DefaultPublishPatience = 15 * time.Second

// Errors returned by Open.
var (
	// ErrUnreachable means no NATS server answered at the URL.
	ErrUnreachable = errors.New("bus: NATS server unreachable")
	// ErrRefused means the server answered and refused the credentials.
	ErrRefused = errors.New("bus: NATS login refused")
	// ErrDataDirBusy means another process owns the data directory and
	// could not be reached through the address it published.
	ErrDataDirBusy = errors.New("bus: data directory in use by another process")
)

// Bus is a connection to NATS JetStream with Rote's assets in place. It
// hands out one client per role the connection plays, so that a service
// is given only the roles it uses: the run log (Runs), the playbook store
// (Playbooks), browser sessions (Browsers), requests to services (RPC)
// and the task queue (Tasks).
type Bus struct {
	conn     *nats.Conn
	js       jetstream.JetStream
	embedded *embedded  // nil when connected to an external or shared server
	heir     *heir      // set when attached to another process's embedded server
	denied   chan error // the server's first unread refusal of a request, for Open
	live     *liveness  // the locks of the runs this process runs
	tookOver func(*Bus, time.Time)
	ready    atomic.Bool // Open has handed out the clients a takeover's callback uses
	log      *slog.Logger
	user     string    // the NATS user this client connects as
	gateOnce sync.Once // ServeGate
	gateErr  error

	runs      *RunLog
	playbooks *PlaybookStore
	sites     *SiteStore
	browsers  *Browsers
	rpc       *RPC
	tasks     *TaskQueue
}

// Open connects to NATS and ensures Rote's streams, bucket and object
// store exist. With cfg.URL it connects there (ErrUnreachable when nobody
// answers). Without it, it starts an embedded server over cfg.DataDir, or,
// when another rote process already owns that directory, connects to that
// process's server (ErrDataDirBusy when it cannot), and takes the
// directory over if that process exits first (see heir).
func Open(ctx context.Context, cfg Config) (*Bus, error) {
	if cfg.Replicas == 0 {
		cfg.Replicas = 1
	}
	if cfg.Replicas < 1 || cfg.Replicas > 5 {
		return nil, fmt.Errorf("bus: %d replicas: want 1 to 5", cfg.Replicas)
	}
	if cfg.Name == "" {
		cfg.Name = "rote"
	}
	if cfg.PublishPatience == 0 {
		cfg.PublishPatience = DefaultPublishPatience
	}
	cfg.DataDir = cmp.Or(cfg.DataDir, DefaultDataDir)
	if cfg.Role != "" && !IsRole(cfg.Role) {
		return nil, fmt.Errorf("bus: unknown role %q: want one of %s", cfg.Role, strings.Join(Roles(), ", "))
	}
	user := connUser(cfg)
	if cfg.Role != "" && IsRole(user) && user != cfg.Role {
		return nil, fmt.Errorf("bus: role %s connects as NATS user %s: a role joins as its own user (or as rote)", cfg.Role, user)
	}
	b := &Bus{log: cmp.Or(cfg.Log, slog.Default()).With("component", "bus"), denied: make(chan error, 1), tookOver: cfg.TookOver, live: &liveness{}, user: user}
	opts := b.connectionEvents()
	if user == roteUser || IsRole(user) {
		opts = append(opts, nats.CustomInboxPrefix(inboxPrefix(user)))
	}
	var err error
	switch {
	case cfg.URL != "":
		b.conn, err = dial(ctx, cfg, opts...)
	default:
		b.conn, b.embedded, b.heir, err = openEmbedded(ctx, cfg, opts...)
	}
	if err != nil {
		return nil, err
	}
	if cfg.URL == "" {
		b.live.dir = filepath.Join(cfg.DataDir, liveDir)
	}
	if b.embedded != nil {
		user, b.user = roteUser, roteUser // the process that serves the directory connects as rote
	}
	// A role calls JetStream through the gate of Rote's own processes
	// (gate.go), which serve it.
	if IsRole(user) {
		b.js, err = jetstream.NewWithAPIPrefix(b.conn, APIPrefix(user))
	} else {
		b.js, err = jetstream.New(b.conn)
	}
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("bus: jetstream: %w", err)
	}
	if user == roteUser {
		if err := b.ServeGate(); err != nil {
			b.Close()
			return nil, err
		}
	}
	keys, err := b.keyring(cfg)
	if err != nil {
		b.Close()
		return nil, err
	}
	// A refused request is only answered by a timeout: stop at the
	// server's refusal instead, and say why.
	setup, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case err := <-b.denied:
			cancel(err)
		case <-setup.Done():
		}
	}()
	if err := b.ensureTopology(setup, cfg, patience(cfg.PublishPatience), keys, IsRole(keys.user())); err != nil {
		if cause := context.Cause(setup); errors.Is(cause, nats.ErrPermissionViolation) {
			err = fmt.Errorf("bus: this NATS user may not set up Rote's streams (%v): Rote's commands connect as the user rote (its password is bus.token in the data directory); the user client only hands in tasks and reads outcomes", cause)
		}
		b.Close()
		return nil, err
	}
	// A takeover while opening (the owner died meanwhile) is told now,
	// when the clients its callback uses exist.
	b.ready.Store(true)
	b.tellTakeover()
	return b, nil
}

// tellTakeover calls the TookOver callback, once, when this process has
// taken the directory's server over and Open has finished.
func (b *Bus) tellTakeover() {
	if !b.ready.Load() || b.tookOver == nil {
		return
	}
	if at, ok := b.heir.takeover(); ok {
		go b.tookOver(b, at)
	}
}

// connUser is the NATS user cfg's client connects as: the URL's, else
// the role's a process joining another's embedded server takes, else
// rote ("" for a URL without one).
func connUser(cfg Config) string {
	if cfg.URL != "" {
		user, _ := urlUser(cfg.URL)
		return user
	}
	return cmp.Or(cfg.Role, roteUser)
}

// urlUser is the user and password in a NATS URL, empty for none.
func urlUser(raw string) (user, password string) {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return "", ""
	}
	password, _ = u.User.Password()
	return u.User.Username(), password
}

// keyring is what cfg's client signs events as and checks them with:
// the keys derived from the password of the user it connects as (user
// "rote", or a role) and, when it knows user rote's, from that one; else
// cfg.SigningKey; else none. A given key that is not used is said.
func (b *Bus) keyring(cfg Config) (*keyring, error) {
	if n := len(cfg.SigningKey); n > 0 && n < 16 {
		return nil, fmt.Errorf("bus: a signing key of %d bytes: want at least 16", n)
	}
	var k *keyring
	switch {
	case cfg.URL != "":
		switch name, password := urlUser(cfg.URL); {
		case password == "":
		case name == roteUser:
			k = passwordKeyring(roteUser, password, password)
		case IsRole(name):
			k = passwordKeyring(name, password, "")
		}
	default:
		rote, err := ReadToken(cfg.DataDir, roteUser)
		if err != nil {
			return nil, err
		}
		if cfg.Role != "" && b.embedded == nil {
			k = passwordKeyring(cfg.Role, RolePassword(rote, cfg.Role), rote)
		} else {
			k = passwordKeyring(roteUser, rote, rote)
		}
	}
	switch {
	case k == nil && len(cfg.SigningKey) == 0:
		return &keyring{}, nil
	case k == nil:
		s := newSigner(roteUser, cfg.SigningKey)
		return &keyring{own: s, keys: map[string]ed25519.PublicKey{roteUser: s.public()}}, nil
	case len(cfg.SigningKey) > 0:
		b.log.Warn("the given signing key is not used: this bus signs with the key derived from its user's password, as every process of its store does")
	}
	return k, nil
}

// connectionEvents log what happens to the connection.
func (b *Bus) connectionEvents() []nats.Option {
	return []nats.Option{
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil { // nil: this process closed it
				b.log.Warn("NATS connection lost", "err", err)
			}
		}),
		nats.ReconnectHandler(func(c *nats.Conn) {
			b.log.Info("NATS connection back", "url", c.ConnectedUrlRedacted())
			b.tellTakeover()
		}),
		nats.ClosedHandler(func(*nats.Conn) { b.log.Debug("NATS connection closed") }),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if !errors.Is(err, nats.ErrPermissionViolation) {
				b.log.Warn("NATS reported an error", "err", err)
				return
			}
			select {
			case b.denied <- err:
			default:
			}
			b.log.Warn("NATS refused a request", "err", err)
		}),
	}
}

// dial connects to an external server, failing fast when it is down.
func dial(ctx context.Context, cfg Config, extra ...nats.Option) (*nats.Conn, error) {
	timeout := 5 * time.Second
	if d, ok := ctx.Deadline(); ok {
		timeout = time.Until(d)
	}
	// No reconnect buffer: while the connection is down a publish fails at
	// once, so callers can fall back (the recorder spools) instead of
	// waiting for an acknowledgement that cannot come.
	opts := []nats.Option{nats.Name(cfg.Name), nats.Timeout(timeout), nats.MaxReconnects(-1), nats.ReconnectBufSize(-1)}
	if cfg.CAFile != "" {
		opts = append(opts, nats.RootCAs(cfg.CAFile))
	}
	conn, err := nats.Connect(cfg.URL, append(opts, extra...)...)
	if errors.Is(err, nats.ErrAuthorization) {
		return nil, fmt.Errorf("%w: the NATS server at %s refused this user's password (%v)", ErrRefused, redactURL(cfg.URL), err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrUnreachable, redactURL(cfg.URL), err)
	}
	return conn, nil
}

// redactURL hides the password in url (nats://user:pass@host) for
// messages.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// Runs returns the run log: ROTE_RUNS and the blobs its events refer to.
func (b *Bus) Runs() *RunLog { return b.runs }

// Playbooks returns the playbook store, ROTE_PLAYBOOKS.
func (b *Bus) Playbooks() *PlaybookStore { return b.playbooks }

// Sites returns site memory, ROTE_SITES.
func (b *Bus) Sites() *SiteStore { return b.sites }

// Browsers returns the client that claims browser sessions from
// actuators.
func (b *Bus) Browsers() *Browsers { return b.browsers }

// RPC returns the client for requests to services, and for serving them.
func (b *Bus) RPC() *RPC { return b.rpc }

// Tasks returns the task queue, ROTE_TASKS.
func (b *Bus) Tasks() *TaskQueue { return b.tasks }

// Conn returns the underlying NATS connection.
func (b *Bus) Conn() *nats.Conn { return b.conn }

// JetStream returns the JetStream context, for inspecting Rote's assets.
func (b *Bus) JetStream() jetstream.JetStream { return b.js }

// ClientURL returns the URL other processes can use to reach this bus,
// without a password (see JoinURL).
func (b *Bus) ClientURL() string {
	if b.embedded != nil {
		return b.embedded.srv.ClientURL()
	}
	return b.conn.ConnectedUrlRedacted()
}

// JoinURL is ClientURL with the password of Rote's own user when this
// process runs the embedded server, for a process it starts to join it.
// It holds a secret: pass it on, never print it.
func (b *Bus) JoinURL() string {
	if b.embedded == nil {
		return b.conn.ConnectedUrl()
	}
	u, err := url.Parse(b.embedded.srv.ClientURL())
	if err != nil {
		return b.embedded.srv.ClientURL()
	}
	u.User = url.UserPassword(roteUser, b.embedded.rote)
	return u.String()
}

// Server returns the embedded server this process runs, or nil.
func (b *Bus) Server() *server.Server {
	if b.embedded == nil {
		return nil
	}
	return b.embedded.srv
}

// Close drains the connection and, for an embedded server, shuts it down
// and releases the data directory.
func (b *Bus) Close() error {
	var err error
	if b.conn != nil {
		err = b.conn.Drain()
		for b.conn.IsDraining() {
			time.Sleep(5 * time.Millisecond)
		}
		b.conn.Close()
	}
	if b.embedded != nil {
		b.embedded.close()
	}
	b.heir.close()
	b.live.close()
	return err
}
