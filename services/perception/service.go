package perception

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// Config configures the perception service.
type Config struct {
	// Budget is the ordinary render budget in characters; 0 means
	// DefaultBudget. A request may ask for another.
	Budget int
	// Host is the host whose browsers this perception captures (it
	// serves schema.ObserveSubject(Host)); default bus.Host().
	Host string
	// Log hears when the service serves; default slog.Default(). A
	// failed capture is logged by the bus where it fails.
	Log *slog.Logger
}

// Service answers observe requests. It keeps, per run, the last grounded
// (full) observation, which later diffs are rendered against.
type Service struct {
	cfg    Config
	rpc    *bus.RPC
	runs   *bus.RunLog
	log    *slog.Logger
	attach *attachments

	mu       sync.Mutex
	grounded map[string]*schema.Observation
	order    []string // grounded keys, oldest first
	ready    chan struct{}
}

// maxGrounded bounds how many runs' grounded observations are kept. A run
// whose entry was dropped gets a full (replacement) observation next.
const maxGrounded = 256

// New returns a Service that serves on rpc and records the observations
// of runs in runs. A budget over EmergencyCeiling is an error.
func New(cfg Config, rpc *bus.RPC, runs *bus.RunLog) (*Service, error) {
	if cfg.Budget <= 0 {
		cfg.Budget = DefaultBudget
	}
	if cfg.Host == "" {
		cfg.Host = bus.Host()
	}
	if cfg.Budget > EmergencyCeiling {
		return nil, fmt.Errorf("perception: budget %d is over the %d-character emergency ceiling", cfg.Budget, EmergencyCeiling)
	}
	log := cmp.Or(cfg.Log, slog.Default()).With("service", "perception")
	return &Service{cfg: cfg, rpc: rpc, runs: runs, log: log, grounded: map[string]*schema.Observation{}, ready: make(chan struct{})}, nil
}

// Ready is closed once Run serves requests.
func (s *Service) Ready() <-chan struct{} { return s.ready }

// Run serves observe requests for its host's browsers on
// schema.ObserveSubject(Host) until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	s.attach = newAttachments(ctx)
	defer s.attach.close()
	countTokens("") // load the tokenizer now, not inside the first request
	svc, err := s.rpc.NewService("rote-perception", "0.1.0", "captures, condenses and renders pages")
	if err != nil {
		return err
	}
	defer svc.Stop()
	if err := bus.AddEndpoint(ctx, svc, "observe", schema.ObserveSubject(s.cfg.Host), true, s.observe); err != nil {
		return fmt.Errorf("perception: %w", err)
	}
	close(s.ready)
	s.log.Info("serving", "subject", schema.ObserveSubject(s.cfg.Host))
	<-ctx.Done()
	return nil
}

// observe captures, condenses and renders a page; with a run id it also
// records the observation as browser.observed.v1.
func (s *Service) observe(ctx context.Context, req *schema.ObserveRequest) (*schema.ObserveReply, error) {
	if req.Browser.Endpoint == "" || req.Browser.TargetID == "" {
		return nil, schema.Errorf(schema.CodeInvalid, "observe: no browser page given")
	}
	if req.RunID != "" && req.Seq == 0 {
		return nil, schema.Errorf(schema.CodeInvalid, "observe: a recorded observation needs a sequence number")
	}
	t, err := s.attach.get(req.Browser)
	if err != nil {
		return nil, err
	}
	t.Lock()
	c, err := capturePage(t.ctx, t.frames, !req.NodesOnly)
	t.Unlock()
	if err != nil {
		s.attach.drop(req.Browser)
		return nil, err
	}
	key := req.RunID
	if key == "" {
		key = req.Browser.TargetID
	}
	if req.NodesOnly {
		nodes := observedNodes(condense(c))
		schema.MaskNodeSecrets(nodes, req.Secrets)
		return &schema.ObserveReply{Observation: schema.Observation{URL: c.url, Title: c.title, Kind: schema.ObservationFull, Nodes: nodes}}, nil
	}
	budget := req.Budget
	if budget <= 0 {
		budget = s.cfg.Budget
	}
	obs, err := s.build(c, key, req.Diff, min(budget, EmergencyCeiling), req.Secrets)
	if err != nil {
		return nil, err
	}
	obs.MaskSecrets(req.Secrets) // a secret typed into a plain field, or shown by the page
	obs.Stats.Settle, obs.Stats.Unsettled, obs.Stats.HeldBy = req.Settled, req.Unsettled, req.HeldBy
	if req.RunID != "" {
		ev := &schema.BrowserObserved{
			Meta:  schema.Meta{ID: fmt.Sprintf("%s-b%d", req.RunID, req.Seq), Time: time.Now()},
			RunID: req.RunID, Seq: req.Seq, StepID: req.StepID, URL: obs.URL, Title: obs.Title,
			Kind: obs.Kind, Render: obs.Render, Stats: obs.Stats,
		}
		if _, err := s.runs.Publish(ctx, ev); err != nil {
			return nil, fmt.Errorf("perception: record observation: %w", err)
		}
	}
	return &schema.ObserveReply{Observation: *obs}, nil
}

// build condenses a capture, masks secrets in its nodes, and renders it: a
// diff against the grounded observation of key when asked for and worth
// it, else the full page, which becomes the new grounded observation.
func (s *Service) build(c *capture, key string, wantDiff bool, budget int, secrets map[string]string) (*schema.Observation, error) {
	start := time.Now()
	nodes := observedNodes(condense(c))
	schema.MaskNodeSecrets(nodes, secrets)
	condensed := time.Since(start)
	full, bootstrap, err := renderFull(c.url, c.title, nodes, budget)
	if err != nil {
		var e *schema.Error
		if errors.As(err, &e) {
			return nil, err
		}
		return nil, schema.Errorf(schema.CodeInternal, "perception: %v", err)
	}
	obs := &schema.Observation{URL: c.url, Title: c.title, Kind: schema.ObservationFull, Render: full, Bootstrap: bootstrap, Nodes: nodes, Text: c.text}
	if wantDiff {
		if g := s.groundedFor(key); g != nil {
			// A diff bigger than half the page, or over budget, is no
			// saving: send the page again as a replacement.
			if diff := renderDiff(g, c.url, c.title, nodes); runes(diff) <= min(runes(full)/2, budget) {
				obs.Kind, obs.Render, obs.Bootstrap = schema.ObservationDiff, diff, false
			}
		}
	}
	if obs.Kind == schema.ObservationFull {
		s.ground(key, obs)
	}
	actionable := 0
	for _, n := range nodes {
		if n.Actionable {
			actionable++
		}
	}
	obs.Stats = schema.ObservationStats{
		DOMElements: c.elements, Nodes: len(nodes), Actionable: actionable,
		Chars: runes(obs.Render), Tokens: countTokens(obs.Render),
		Capture: c.took, Distill: condensed, // "distill" on the wire, as before the rename
	}
	return obs, nil
}

func (s *Service) groundedFor(key string) *schema.Observation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.grounded[key]
}

func (s *Service) ground(key string, obs *schema.Observation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.grounded[key]; !ok {
		s.order = append(s.order, key)
		if len(s.order) > maxGrounded {
			delete(s.grounded, s.order[0])
			s.order = s.order[1:]
		}
	}
	s.grounded[key] = obs
}
