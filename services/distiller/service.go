package distiller

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// Service answers rote.distiller.distill: any process on the bus can have
// a verified run compiled into a candidate. Promotion needs an
// environment to shadow-replay in, so it stays with the caller.
type Service struct {
	rpc   *bus.RPC
	runs  *bus.RunLog
	log   *slog.Logger
	ready chan struct{}
}

// Config configures the distiller service.
type Config struct {
	// Log hears about each run distilled; default slog.Default().
	Log *slog.Logger
}

// New returns the distiller: it serves on rpc and reads the runs it
// distills from runs.
func New(cfg Config, rpc *bus.RPC, runs *bus.RunLog) (*Service, error) {
	log := cmp.Or(cfg.Log, slog.Default()).With("service", "distiller")
	return &Service{rpc: rpc, runs: runs, log: log, ready: make(chan struct{})}, nil
}

// Ready is closed once the endpoint listens.
func (s *Service) Ready() <-chan struct{} { return s.ready }

// Run serves until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	svc, err := s.rpc.NewService("rote-distiller", "0.1.0", "verified runs compiled into playbook candidates")
	if err != nil {
		return err
	}
	defer svc.Stop()
	if err := bus.AddEndpoint(ctx, svc, "distill", schema.SubjectDistill, true, s.distill); err != nil {
		return fmt.Errorf("distiller: %w", err)
	}
	close(s.ready)
	s.log.Info("serving", "subject", schema.SubjectDistill)
	<-ctx.Done()
	return nil
}

func (s *Service) distill(ctx context.Context, req *schema.DistillRequest) (*schema.DistillReply, error) {
	r, err := s.runs.Fold(ctx, req.RunID)
	if err != nil {
		return nil, err
	}
	c, err := Distill(r, Options{Name: req.Name})
	if err != nil {
		return nil, err
	}
	doc, err := schema.EncodePlaybook(c.Playbook)
	if err != nil {
		return nil, err
	}
	s.log.Info("distilled", "run", req.RunID, "playbook", c.Playbook.Name, "steps", len(c.Playbook.Steps), "pruned", len(c.Pruned))
	rep := &schema.DistillReply{Document: doc, Notes: c.Notes}
	for _, p := range c.Pruned {
		rep.Pruned = append(rep.Pruned, p.Step+": "+p.Reason)
	}
	return rep, nil
}
