package actuator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/chromium"
	"github.com/rote-agent/rote/schema"
)

// TestNewFillsDefaults: an actuator configured with nothing runs one
// browser of the default binary, under a name of its own, with the
// default settle and observe timeout.
func TestNewFillsDefaults(t *testing.T) {
	s, err := New(Config{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := s.cfg
	if c.Browsers != 1 || c.Chromium != chromium.Path || c.Host == "" || s.Instance() == "" || c.ObserveTimeout != 30*time.Second || c.Settle != DefaultSettle {
		t.Errorf("defaults: %+v", c)
	}
	other, _ := New(Config{}, nil, nil)
	if other.Instance() == s.Instance() {
		t.Error("two actuators share an instance name")
	}
	kept, _ := New(Config{Browsers: 3, Instance: "a1", Settle: SettleConfig{Quiet: time.Second}}, nil, nil)
	if kept.cfg.Browsers != 3 || kept.Instance() != "a1" || kept.cfg.Settle.Quiet != time.Second || kept.cfg.Settle.Cap != DefaultSettle.Cap {
		t.Errorf("a set config was not kept: %+v", kept.cfg)
	}
}

// TestSessionOrigins: a session is confined to origins as schema.Origin
// writes them, at most maxSessionOrigins, each an http or https origin
// and nothing more.
func TestSessionOrigins(t *testing.T) {
	many := make([]string, maxSessionOrigins+1)
	for i := range many {
		many[i] = fmt.Sprintf("http://h%d.test", i)
	}
	cases := []struct {
		name string
		in   []string
		want []string
		err  bool
	}{
		{"none", nil, []string{}, false},
		{"normalized", []string{"HTTP://Shop.Test:80", "https://pay.test/"}, []string{"http://shop.test", "https://pay.test"}, false},
		{"a path", []string{"http://shop.test/cart"}, nil, true},
		{"another scheme", []string{"ftp://shop.test"}, nil, true},
		{"credentials", []string{"http://user:pw@shop.test"}, nil, true},
		{"as many as allowed", many[:maxSessionOrigins], many[:maxSessionOrigins], false},
		{"too many", many, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := sessionOrigins(c.in)
			if c.err {
				if !errors.Is(err, schema.ErrInvalid) {
					t.Errorf("%q: %v, want invalid", got, err)
				}
				return
			}
			if err != nil || !slices.Equal(got, c.want) {
				t.Errorf("%q (%v), want %q", got, err, c.want)
			}
		})
	}
}

// TestRequestsRefusedBeforeABrowser: a session request with a bad run
// id or origins, an adoption into a bad run id, or of a run this
// actuator holds no session for, is refused before any browser is
// touched; closing a session it does not hold is no error.
func TestRequestsRefusedBeforeABrowser(t *testing.T) {
	s, err := New(Config{Instance: "a1"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s.sessions["held"] = &session{runID: "held"}
	for _, c := range []struct {
		name string
		call func() error
		want error
	}{
		{"open: a bad run id", func() error { _, err := s.open(ctx, &schema.OpenSessionRequest{RunID: "run 1"}); return err }, schema.ErrInvalid},
		{"open: a bad origin", func() error {
			_, err := s.open(ctx, &schema.OpenSessionRequest{RunID: "r1", Origins: []string{"javascript:alert(1)"}})
			return err
		}, schema.ErrInvalid},
		{"adopt: a bad run id", func() error {
			_, err := s.adopt(ctx, &schema.AdoptSessionRequest{From: "held", To: "../x"})
			return err
		}, schema.ErrInvalid},
		{"adopt: no session", func() error { _, err := s.adopt(ctx, &schema.AdoptSessionRequest{From: "gone", To: "r2"}); return err }, schema.ErrNoSession},
		{"close: no session", func() error { _, err := s.closeSession(ctx, &schema.CloseSessionRequest{RunID: "gone"}); return err }, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.call(); !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Errorf("%v, want %v", err, c.want)
			}
		})
	}
	if len(s.sessions) != 1 || s.sessions["held"] == nil {
		t.Errorf("sessions changed: %v", s.sessions)
	}
}

// TestStopping: a failure under an actuator that is shutting down (its
// context ended) is no_session, for the run to be tried elsewhere; any
// other failure is itself.
func TestStopping(t *testing.T) {
	s, _ := New(Config{Instance: "a1"}, nil, nil)
	live := context.Background()
	ended, cancel := context.WithCancel(live)
	cancel()
	failed := schema.Errorf(schema.CodeNotFound, "no element")
	if err := s.stopping(live, "r1", failed); err != failed {
		t.Errorf("a failure while running became %v", err)
	}
	if err := s.stopping(ended, "r1", nil); err != nil {
		t.Errorf("no failure became %v", err)
	}
	err := s.stopping(ended, "r1", failed)
	if !errors.Is(err, schema.ErrNoSession) || !strings.Contains(err.Error(), "actuator a1 is shutting down; run r1") || !strings.Contains(err.Error(), "no element") {
		t.Errorf("a failure while stopping: %v", err)
	}
}

// TestRedactSecrets: what an action records (its value, URL, reason,
// output, dialogs and error) holds a secret only as {{name}}.
func TestRedactSecrets(t *testing.T) {
	secrets := map[string]string{"password": "hunter2-secret", "pin": "4711"}
	ev := schema.BrowserAction{
		Action:  schema.Action{Kind: schema.ActFill, Value: "hunter2-secret", URL: "http://shop.test/login?pin=4711"},
		Output:  "your pin is 4711",
		Dialogs: []string{`alert "Wrong password hunter2-secret" dismissed`},
		Error:   &schema.Error{Code: schema.CodeControlChanged, Message: `the field holds "hunter2-secret", not "x"`},
	}
	done := schema.BrowserAction{Action: schema.Action{Kind: schema.ActDone, Reason: "signed in with hunter2-secret"}}
	redactSecrets(&ev, secrets)
	redactSecrets(&done, secrets)
	for _, got := range []string{ev.Action.Value, ev.Action.URL, ev.Output, ev.Dialogs[0], ev.Error.Message, done.Action.Reason} {
		if strings.Contains(got, "hunter2") || strings.Contains(got, "4711") {
			t.Errorf("a secret recorded: %q", got)
		}
	}
	if ev.Action.Value != "{{password}}" || ev.Action.URL != "http://shop.test/login?pin={{pin}}" || ev.Error.Code != schema.CodeControlChanged {
		t.Errorf("recorded %q, %q, %s", ev.Action.Value, ev.Action.URL, ev.Error.Code)
	}
	plain := schema.BrowserAction{Action: schema.Action{Kind: schema.ActFill, Value: "hunter2-secret"}}
	redactSecrets(&plain, nil)
	if plain.Action.Value != "hunter2-secret" {
		t.Errorf("a run without secrets masked %q", plain.Action.Value)
	}
}
