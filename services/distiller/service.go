package distiller

import (
	"context"
	"fmt"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// Service answers rote.distiller.distill: any process on the bus can have
// a verified run compiled into a candidate. Promotion needs an
// environment to shadow-replay in, so it stays with the caller.
type Service struct {
	bus   *bus.Bus
	ready chan struct{}
}

// NewService returns the distiller on b.
func NewService(b *bus.Bus) *Service { return &Service{bus: b, ready: make(chan struct{})} }

// Ready is closed once the endpoint listens.
func (s *Service) Ready() <-chan struct{} { return s.ready }

// Run serves until ctx ends.
func (s *Service) Run(ctx context.Context) error {
	svc, err := s.bus.NewService("rote-distiller", "0.1.0", "verified runs compiled into playbook candidates")
	if err != nil {
		return err
	}
	defer svc.Stop()
	if err := bus.AddEndpoint(ctx, svc, "distill", schema.SubjectDistill, true, s.distill); err != nil {
		return fmt.Errorf("distiller: %w", err)
	}
	close(s.ready)
	<-ctx.Done()
	return nil
}

func (s *Service) distill(ctx context.Context, req *schema.DistillRequest) (*schema.DistillReply, error) {
	r, err := Load(ctx, s.bus, req.RunID)
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
	rep := &schema.DistillReply{Document: doc, Notes: c.Notes}
	for _, p := range c.Pruned {
		rep.Pruned = append(rep.Pruned, p.Step+": "+p.Reason)
	}
	return rep, nil
}
