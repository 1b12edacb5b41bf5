package cli

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/replay"
)

// App holds what every command shares: the global flags, the output
// streams, the log, and a bus opened on first use.
type App struct {
	DataDir string
	NATSURL string
	// NATSCA is the CA certificate file that signed the NATS servers'
	// TLS certificates ($ROTE_NATS_CA), for a tls:// URL.
	NATSCA string
	// NATSReplicas is how many replicas Rote's streams and buckets get on
	// an external cluster ($ROTE_NATS_REPLICAS; default 1).
	NATSReplicas int
	// ModelLatency is the offline scripted model's simulated latency, in
	// scripted.ParseLatency's form ($ROTE_SCRIPTED_LATENCY; rote bench's
	// --model-latency).
	ModelLatency string
	// Browser is the endpoint of a browser another process runs
	// ($ROTE_BROWSER): the ws:// DevTools address of one a user started,
	// or the unix: relay of one another rote process shares. Browser
	// sessions open in it, each in a browser context of its own, and none
	// is launched.
	Browser string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	// Log is where services log: warnings and errors on stderr, unless a
	// command (rote serve) asks for more.
	Log *slog.Logger

	// Offline, when the frozen suites are built in, is their scripted
	// model with a simulated latency.
	Offline func(latency string) (node.OfflineModel, error)
	// SuiteTasks, when they are built in, fills a claimed task request
	// that names a suite task.
	SuiteTasks node.SuiteTasks

	bus *bus.Bus
}

// Bus opens the bus on first use: the external server when --nats is
// set, else the embedded store under --data.
func (a *App) Bus(ctx context.Context) (*bus.Bus, error) {
	if a.bus != nil {
		return a.bus, nil
	}
	cfg, err := a.BusConfig("rote")
	if err != nil {
		return nil, err
	}
	return a.OpenBus(ctx, cfg)
}

// OpenBus opens the bus cfg names as this process's, and when this
// process runs the embedded server, closes the runs of dead processes.
func (a *App) OpenBus(ctx context.Context, cfg bus.Config) (*bus.Bus, error) {
	opened := time.Now()
	cfg.TookOver = func(b *bus.Bus, at time.Time) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		node.CloseOrphans(ctx, b, a.DataDir, at, a.Log)
	}
	b, err := bus.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	a.bus = b
	if b.Server() != nil {
		node.CloseOrphans(ctx, b, a.DataDir, opened, a.Log)
	}
	return b, nil
}

// BusConfig is the bus the global flags name, for a client called name,
// with $ROTE_SIGNING_KEY (hex) when it is set, for a bus whose rote
// password this process does not know.
func (a *App) BusConfig(name string) (bus.Config, error) {
	cfg := bus.Config{URL: a.NATSURL, DataDir: a.DataDir, CAFile: a.NATSCA, Name: name, Log: a.Log}
	if a.NATSURL != "" {
		cfg.Replicas = a.NATSReplicas
	}
	key, err := node.EnvKey("ROTE_SIGNING_KEY")
	if err != nil {
		return bus.Config{}, Usagef("%v", err)
	}
	cfg.SigningKey = key
	if err := node.StoreLimits(&cfg.RunsMaxBytes, &cfg.BlobsMaxBytes); err != nil {
		return bus.Config{}, Usagef("%v", err)
	}
	return cfg, nil
}

// NodeConfig is a node of roles on this process's settings: its secret
// key, its log, and what the frozen suites add when they are built in
// (the offline model, suite tasks).
func (a *App) NodeConfig(roles ...string) (node.Config, error) {
	if err := node.CheckBrowser(a.Browser); err != nil {
		return node.Config{}, Usagef("%v", err)
	}
	key, err := node.SecretKey(a.DataDir)
	if err != nil {
		return node.Config{}, err
	}
	cfg := node.Config{Roles: roles, SecretKey: key, Log: a.Log, Browser: a.Browser, Suites: a.SuiteTasks}
	if a.Offline != nil {
		if cfg.Offline, err = a.Offline(a.ModelLatency); err != nil {
			return node.Config{}, Usagef("%v", err)
		}
	}
	return cfg, nil
}

// StartNode opens the bus and runs a node of roles on it; the caller
// closes the node.
func (a *App) StartNode(ctx context.Context, roles ...string) (*node.Node, error) {
	b, err := a.Bus(ctx)
	if err != nil {
		return nil, err
	}
	cfg, err := a.NodeConfig(roles...)
	if err != nil {
		return nil, err
	}
	n, err := node.New(cfg, b)
	if err != nil {
		return nil, err
	}
	if err := n.Run(ctx); err != nil {
		return nil, err
	}
	return n, nil
}

// ReplayNode runs the node a replay in env needs (a browser for a site;
// the planner and matcher for model-backed steps) and opens env for
// playbook p with params; the caller closes the node. A browser
// environment without a site is a usage error.
func (a *App) ReplayNode(ctx context.Context, env node.Environment, p *schema.Playbook, params map[string]string) (*node.Node, replay.Opener, error) {
	if err := env.Check(); err != nil {
		return nil, nil, Usage(err)
	}
	n, err := a.StartNode(ctx, env.Roles()...)
	if err != nil {
		return nil, nil, err
	}
	open, err := n.Opener(env, p, params)
	if err != nil {
		n.Close()
		return nil, nil, err
	}
	return n, open, nil
}

// Close releases the bus, if one was opened.
func (a *App) Close() error {
	if a.bus == nil {
		return nil
	}
	return a.bus.Close()
}
