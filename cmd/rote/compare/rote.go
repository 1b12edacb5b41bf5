package compare

import (
	"context"
	"fmt"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// roteSide is a Rote browser session, signed in.
type roteSide struct {
	s *bus.BrowserSession
}

func openRote(ctx context.Context, browsers *bus.Browsers, site Site) (*roteSide, error) {
	s, err := browsers.Open(ctx, bus.NewID())
	if err != nil {
		return nil, err
	}
	r := &roteSide{s: s}
	if in := site.SignIn; in != nil {
		s.Secrets = map[string]string{"password": in.Password}
		for _, a := range []schema.Action{
			{Kind: schema.ActNavigate, URL: site.Base + in.Path},
			{Kind: schema.ActFill, Target: &schema.Target{Role: "textbox", Name: in.UserName}, Value: in.Username},
			{Kind: schema.ActFill, Target: &schema.Target{Role: "textbox", Name: in.PassName}, Value: in.Password},
			{Kind: schema.ActClick, Target: &schema.Target{Role: "button", Name: in.Submit}},
		} {
			if err := r.act(ctx, a); err != nil {
				r.close(ctx)
				return nil, fmt.Errorf("sign in: %w", err)
			}
		}
	}
	return r, nil
}

func (r *roteSide) act(ctx context.Context, a schema.Action) error {
	ev, err := r.s.Act(ctx, "", a)
	if err != nil {
		return err
	}
	if ev.Error != nil {
		return fmt.Errorf("%s: %w", a.Kind, ev.Error)
	}
	return nil
}

// read loads url (settled, as every action waits) and observes it whole,
// timing each.
func (r *roteSide) read(ctx context.Context, url string) (*schema.Observation, time.Duration, time.Duration, error) {
	start := time.Now()
	if err := r.act(ctx, schema.Action{Kind: schema.ActNavigate, URL: url}); err != nil {
		return nil, 0, 0, err
	}
	nav := time.Since(start)
	start = time.Now()
	rep, err := r.s.Observe(ctx, "", false, 0)
	if err != nil {
		return nil, 0, 0, err
	}
	return &rep.Observation, nav, time.Since(start), nil
}

func (r *roteSide) close(ctx context.Context) { r.s.Close(context.WithoutCancel(ctx)) }
