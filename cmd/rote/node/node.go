// Package node wires Rote's services on one bus. It is the one place they
// are composed: `rote serve` runs a node of the roles it is asked for,
// every other command runs the node it needs in process (a browser for
// `rote observe`, the whole control loop for `rote run`), and the
// end-to-end suites start the same nodes.
//
// A node is built by New, started by Run (which returns once every
// service serves) and stopped by Close, in the manner of wtf's cmd/wtfd.
package node

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/services/actuator"
	"github.com/rote-agent/rote/services/distiller"
	"github.com/rote-agent/rote/services/matcher"
	"github.com/rote-agent/rote/services/perception"
	"github.com/rote-agent/rote/services/planner"
	"github.com/rote-agent/rote/services/replay"
)

// The roles a node can run. The recorder is none of them: it runs once
// per MCP session, in front of the server (rote record).
const (
	Perception = "perception"
	Actuator   = "actuator"
	Planner    = "planner"
	Distiller  = "distiller"
	Matcher    = "matcher"
)

// Roles are every role, in the order a node starts them.
var Roles = []string{Perception, Actuator, Planner, Distiller, Matcher}

// Browser are the roles that give a node's process browser sessions.
var Browser = []string{Perception, Actuator}

// Tasks are the roles that do tasks in one process: a browser, the
// planner with its model, and the matcher.
var Tasks = []string{Perception, Actuator, Planner, Matcher}

// Config says which roles a node runs and how.
type Config struct {
	// Roles to run, from Roles; unknown names are an error.
	Roles []string
	// Browsers is how many Chromium processes the actuator may run;
	// default 1.
	Browsers int
	// Browser is the endpoint of a running browser the actuator opens its
	// sessions in instead of launching its own: the ws:// DevTools address
	// of one a user started, or the unix: relay of one another rote
	// process shares.
	Browser string
	// ClaimTasks makes the planner claim task requests from rote.tasks.
	ClaimTasks bool
	// Suites expands a claimed task that names a frozen suite task; nil
	// when this build has none (such a task is then refused, saying so).
	Suites SuiteTasks
	// TaskDone is told how each claimed task's delivery ended.
	TaskDone func(planner.TaskDone)
	// Offline serves the model a planner asks when ROTE_LLM_BASE_URL is
	// unset; nil means a planner needs ROTE_LLM_BASE_URL.
	Offline OfflineModel
	// SecretKey keys the digests secrets are recorded as; required.
	SecretKey []byte
	// Log is where every service logs; default slog.Default().
	Log *slog.Logger
}

// Node is a set of running services on one bus, and the in-process
// control loop over them.
type Node struct {
	cfg      Config
	bus      *bus.Bus
	log      *slog.Logger
	executor *replay.Executor

	model      *Model
	agent      *planner.Agent
	controller *planner.Controller

	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	errs   []error
}

// service is what a role runs: it serves until ctx ends, and says when
// it is ready.
type service interface {
	Run(ctx context.Context) error
	Ready() <-chan struct{}
}

// CheckBrowser returns an error unless addr is empty (launch Chromium),
// a DevTools WebSocket address or a rote relay's unix: address.
func CheckBrowser(addr string) error {
	if addr == "" {
		return nil
	}
	if path, ok := strings.CutPrefix(addr, "unix:"); ok && filepath.IsAbs(path) {
		return nil
	}
	if u, err := url.Parse(addr); err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return fmt.Errorf("--browser %q: want the DevTools WebSocket address of a Chromium you started, ws://HOST:PORT/devtools/browser/ID, or the unix:/PATH another rote process shares its browser on", addr)
	}
	return nil
}

// New checks cfg and returns a node on b, which the caller keeps and
// closes. Nothing starts until Run.
func New(cfg Config, b *bus.Bus) (*Node, error) {
	for _, r := range cfg.Roles {
		if !slices.Contains(Roles, r) {
			return nil, fmt.Errorf("node: unknown role %q: want %s", r, strings.Join(Roles, ", "))
		}
	}
	if len(cfg.SecretKey) == 0 {
		return nil, errors.New("node: no secret key")
	}
	if err := CheckBrowser(cfg.Browser); err != nil {
		return nil, err
	}
	cfg.Browsers = max(cfg.Browsers, 1)
	log := cmp.Or(cfg.Log, slog.Default())
	cfg.Log = log
	ex := replay.NewExecutor(replay.Config{SecretKey: cfg.SecretKey, Log: log}, b.Runs(), b.RPC(), b.Playbooks())
	return &Node{cfg: cfg, bus: b, log: log, executor: ex}, nil
}

// Has reports whether the node runs role.
func (n *Node) Has(role string) bool { return slices.Contains(n.cfg.Roles, role) }

// Run opens the model when the node runs a planner, starts every role's
// services and returns once all of them serve, or with the first error.
// They run until Close, or until ctx ends.
func (n *Node) Run(ctx context.Context) error {
	ctx, n.cancel = context.WithCancel(ctx)
	if n.Has(Planner) {
		m, err := openModel(n.cfg.Offline, n.bus.Runs(), n.log)
		if err != nil {
			return err
		}
		n.model = m
		n.agent = planner.NewAgent(planner.AgentConfig{SecretKey: n.cfg.SecretKey, Log: n.log, Sites: n.bus.Sites(), Routines: n.routineRunner()},
			n.bus.Browsers(), n.bus.Runs(), m.LLM)
		n.controller = planner.NewController(n.bus.Browsers(), n.bus.RPC(), n.bus.Playbooks(), n.agent, n.sessionReplayer())
	}
	var list []service
	for _, role := range Roles {
		if !n.Has(role) {
			continue
		}
		svcs, err := n.build(role)
		if err != nil {
			n.Close()
			return fmt.Errorf("%s: %w", role, err)
		}
		list = append(list, svcs...)
	}
	failed := make(chan error, len(list))
	for _, svc := range list {
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			if err := svc.Run(ctx); err != nil {
				n.mu.Lock()
				n.errs = append(n.errs, err)
				n.mu.Unlock()
				failed <- err
			}
		}()
	}
	for _, svc := range list {
		select {
		case <-svc.Ready():
		case err := <-failed:
			n.Close()
			return err
		case <-time.After(30 * time.Second):
			n.Close()
			return errors.New("node: services did not start within 30s")
		}
	}
	return nil
}

// build returns the services of one role.
func (n *Node) build(role string) ([]service, error) {
	b, log := n.bus, n.log
	one := func(s service, err error) ([]service, error) {
		if err != nil {
			return nil, err
		}
		return []service{s}, nil
	}
	switch role {
	case Perception:
		return one(perception.New(perception.Config{Log: log}, b.RPC(), b.Runs()))
	case Actuator:
		// A perception of another process reaches the browsers this one
		// launches only through their relays, and any process that joins
		// the bus may be asked to observe a session of this one's (a
		// `rote replay` beside a `rote serve`): every one is shared. This
		// process's own perception reaches them directly.
		return one(actuator.New(actuator.Config{Browsers: n.cfg.Browsers, Browser: n.cfg.Browser, Share: true, Log: log}, b.RPC(), b.Runs()))
	case Distiller:
		return one(distiller.New(distiller.Config{Log: log}, b.RPC(), b.Runs()))
	case Matcher:
		return one(matcher.New(matcher.Config{Log: log}, b.RPC(), b.Playbooks()))
	}
	svc, err := planner.New(planner.Config{Log: log}, b.RPC(), n.model.LLM)
	if err != nil || !n.cfg.ClaimTasks {
		return one(svc, err)
	}
	tasks, err := planner.NewTaskWorker(planner.TaskConfig{Resolve: n.resolveTask, Done: n.cfg.TaskDone, Log: log, Runs: b.Runs()}, b.Tasks(), n.controller)
	if err != nil {
		return nil, err
	}
	return []service{svc, tasks}, nil
}

// Wait blocks until the services stop and returns their errors.
func (n *Node) Wait() error {
	n.wg.Wait()
	n.mu.Lock()
	defer n.mu.Unlock()
	return errors.Join(n.errs...)
}

// Close stops the services, waits for them and stops the model; the bus
// stays the caller's.
func (n *Node) Close() error {
	if n.cancel != nil {
		n.cancel()
	}
	return n.Wait()
}

// Bus is the bus the node runs on.
func (n *Node) Bus() *bus.Bus { return n.bus }

// Model is the model the node's planner asks; nil when it runs none.
func (n *Node) Model() *Model { return n.model }

// Executor replays playbooks, recording on the node's bus.
func (n *Node) Executor() *replay.Executor { return n.executor }

// Agent plans tasks step by step; nil when the node runs no planner.
func (n *Node) Agent() *planner.Agent { return n.agent }

// Controller is the control loop (match, replay, fall back to the
// agent); nil when the node runs no planner.
func (n *Node) Controller() *planner.Controller { return n.controller }
