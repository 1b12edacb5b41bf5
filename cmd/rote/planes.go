package main

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/rote-agent/rote/bus"
)

// service is what a role runs: it serves until ctx ends, and says when it
// is ready.
type service interface {
	Run(ctx context.Context) error
	Ready() <-chan struct{}
}

// services runs services on one bus until stopped.
type services struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	errs   []error
}

// startServices runs each service in its own goroutine and waits until all
// are ready, or one fails.
func startServices(ctx context.Context, list ...service) (*services, error) {
	ctx, cancel := context.WithCancel(ctx)
	s := &services{cancel: cancel}
	failed := make(chan error, len(list))
	for _, svc := range list {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if err := svc.Run(ctx); err != nil {
				s.mu.Lock()
				s.errs = append(s.errs, err)
				s.mu.Unlock()
				failed <- err
			}
		}()
	}
	for _, svc := range list {
		select {
		case <-svc.Ready():
		case err := <-failed:
			s.stop()
			return nil, err
		case <-time.After(30 * time.Second):
			s.stop()
			return nil, errors.New("services did not start within 30s")
		}
	}
	return s, nil
}

// wait blocks until the services stop and returns their errors.
func (s *services) wait() error {
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return errors.Join(s.errs...)
}

// stop ends the services and waits for them.
func (s *services) stop() error {
	s.cancel()
	return s.wait()
}

// startBrowserPlanes runs perception and an actuator with one browser on
// b, as the roles of rote serve, and waits until they serve.
func startBrowserPlanes(ctx context.Context, b *bus.Bus) (*services, error) {
	var list []service
	for _, r := range roles {
		if r.name != "perception" && r.name != "actuator" {
			continue
		}
		svcs, err := r.build(b, serveOptions{browsers: 1})
		if err != nil {
			return nil, err
		}
		list = append(list, svcs...)
	}
	return startServices(ctx, list...)
}
