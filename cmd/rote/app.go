package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/cmd/rote/node"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/replay"
	"github.com/spf13/cobra"
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

	suites suiteSupport
	bus    *bus.Bus
}

// Bus opens the bus on first use: the external server when --nats is
// set, else the embedded store under --data.
func (a *App) Bus(ctx context.Context) (*bus.Bus, error) {
	if a.bus != nil {
		return a.bus, nil
	}
	cfg, err := a.busConfig("rote")
	if err != nil {
		return nil, err
	}
	return a.openBus(ctx, cfg)
}

// openBus opens the bus cfg names as this process's, and when this
// process runs the embedded server, closes the runs of dead processes.
func (a *App) openBus(ctx context.Context, cfg bus.Config) (*bus.Bus, error) {
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

// busConfig is the bus the global flags name, for a client called name,
// with $ROTE_SIGNING_KEY (hex) when it is set, for a bus whose rote
// password this process does not know.
func (a *App) busConfig(name string) (bus.Config, error) {
	cfg := bus.Config{URL: a.NATSURL, DataDir: a.DataDir, CAFile: a.NATSCA, Name: name, Log: a.Log}
	if a.NATSURL != "" {
		cfg.Replicas = a.NATSReplicas
	}
	key, err := node.EnvKey("ROTE_SIGNING_KEY")
	if err != nil {
		return bus.Config{}, usageError("%v", err)
	}
	cfg.SigningKey = key
	if err := node.StoreLimits(&cfg.RunsMaxBytes, &cfg.BlobsMaxBytes); err != nil {
		return bus.Config{}, usageError("%v", err)
	}
	return cfg, nil
}

// nodeConfig is a node of roles on this process's settings: its secret
// key, its log, and what the frozen suites add when they are built in
// (the offline model, suite tasks).
func (a *App) nodeConfig(roles ...string) (node.Config, error) {
	if err := node.CheckBrowser(a.Browser); err != nil {
		return node.Config{}, usageError("%v", err)
	}
	key, err := node.SecretKey(a.DataDir)
	if err != nil {
		return node.Config{}, err
	}
	cfg := node.Config{Roles: roles, SecretKey: key, Log: a.Log, Browser: a.Browser, Suites: a.suites.expand}
	if a.suites.offline != nil {
		if cfg.Offline, err = a.suites.offline(a.ModelLatency); err != nil {
			return node.Config{}, usageError("%v", err)
		}
	}
	return cfg, nil
}

// startNode opens the bus and runs a node of roles on it; the caller
// closes the node.
func (a *App) startNode(ctx context.Context, roles ...string) (*node.Node, error) {
	b, err := a.Bus(ctx)
	if err != nil {
		return nil, err
	}
	cfg, err := a.nodeConfig(roles...)
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

// replayNode runs the node a replay in env needs (a browser for a site;
// the planner and matcher for model-backed steps) and opens env for
// playbook p with params; the caller closes the node. A browser
// environment without a site is a usage error.
func (a *App) replayNode(ctx context.Context, env node.Environment, p *schema.Playbook, params map[string]string) (*node.Node, replay.Opener, error) {
	if err := env.Check(); err != nil {
		return nil, nil, &exitError{code: exitUsage, err: err}
	}
	n, err := a.startNode(ctx, env.Roles()...)
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

// exitError carries a process exit code other than 1.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran and failed
	exitUsage   = 2 // the command line was wrong
)

func usageError(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// Main runs the rote command line with args and returns the exit code.
// It is what main calls and what tests call.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := &App{Stdin: stdin, Stdout: stdout, Stderr: stderr, suites: builtinSuites(),
		Log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	root := newRootCommand(app)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if cerr := app.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "rote:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailure
}

// flagErrors turns cobra's flag parsing errors into usage errors.
func flagErrors(cmd *cobra.Command, err error) error {
	return usageError("%v (see %s --help)", err, cmd.CommandPath())
}
