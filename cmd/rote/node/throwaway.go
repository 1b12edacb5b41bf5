package node

import (
	"context"
	"log/slog"
	"os"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// WithBrowsers runs f with the browsers of a private, throwaway bus (a
// store that keeps nothing, so no secret key either) in this process,
// on the Chromium at browser. The caller has checked it (CheckBrowser).
func WithBrowsers(ctx context.Context, browser, name string, log *slog.Logger, f func(*bus.Browsers) error) error {
	dir, err := os.MkdirTemp("", name+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	b, err := bus.Open(ctx, bus.Config{DataDir: dir, Name: name, Log: log})
	if err != nil {
		return err
	}
	defer b.Close()
	n, err := New(Config{Roles: Browser, SecretKey: []byte(name + " keeps nothing"), Log: log, Browser: browser}, b)
	if err != nil {
		return err
	}
	if err := n.Run(ctx); err != nil {
		return err
	}
	defer n.Close()
	return f(b.Browsers())
}

// ObserveURL opens a session, loads url and observes it.
func ObserveURL(ctx context.Context, browsers *bus.Browsers, url string, budget int) (*schema.SessionObserveReply, error) {
	s, err := browsers.Open(ctx, bus.NewID())
	if err != nil {
		return nil, err
	}
	defer s.Close(context.WithoutCancel(ctx))
	ev, err := s.Act(ctx, "", schema.Action{Kind: schema.ActNavigate, URL: url})
	if err != nil {
		return nil, err
	}
	if ev.Error != nil {
		return nil, ev.Error
	}
	return s.Observe(ctx, "", false, budget)
}
