package replay

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// BrowserDispatcher runs steps as browser actions through an actuator on
// the bus. A step's tool is an action kind; its args are url (navigate),
// value (fill, select), key (press), checked (check) and reason (done,
// fail). After each action the page is settled and observed.
type BrowserDispatcher struct {
	session *bus.BrowserSession
	base    *url.URL
	owned   bool // Close ends the session
	// resolved is what the last action's target resolved to.
	resolved *schema.Target
}

// OpenBrowserDispatcher claims a browser session for runID from browsers.
// base is the site the playbook runs on: relative navigations resolve
// against it, and its origin is the environment's identity.
func OpenBrowserDispatcher(ctx context.Context, browsers *bus.Browsers, runID, base string) (*BrowserDispatcher, error) {
	u, err := parseBase(base)
	if err != nil {
		return nil, err
	}
	s, err := browsers.Open(ctx, runID)
	if err != nil {
		return nil, err
	}
	return &BrowserDispatcher{session: s, base: u, owned: true}, nil
}

// BrowserDispatcherOn dispatches on a session its caller opened and keeps:
// Close leaves it open, so that an agent can carry on where a replay
// stopped.
func BrowserDispatcherOn(s *bus.BrowserSession, base string) (*BrowserDispatcher, error) {
	u, err := parseBase(base)
	if err != nil {
		return nil, err
	}
	return &BrowserDispatcher{session: s, base: u}, nil
}

func parseBase(base string) (*url.URL, error) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, schema.Errorf(schema.CodeInvalid, "base URL %q: want an absolute URL such as http://127.0.0.1:8080", base)
	}
	return u, nil
}

// Fingerprint is that of BrowserEnvironment for the base URL's origin.
func (d *BrowserDispatcher) Fingerprint(context.Context) (string, error) {
	return schema.Fingerprint(schema.BrowserEnvironment(d.base.Scheme + "://" + d.base.Host))
}

// Dispatch performs one action and observes the page it leaves.
func (d *BrowserDispatcher) Dispatch(ctx context.Context, stepID, tool string, args map[string]any, target *schema.Target) (schema.World, error) {
	ev, err := d.act(ctx, stepID, tool, args, target)
	if err != nil {
		return schema.World{}, err
	}
	w, err := d.observe(ctx, stepID)
	if err != nil {
		return schema.World{}, err
	}
	if ev.Action.Kind == schema.ActExtract {
		w.Output, _ = json.Marshal(ev.Output)
	}
	return w, nil
}

// Act performs one action and does not observe the page it leaves: for a
// step that asserts nothing about it. The next action settles the page
// and resolves its target on a fresh capture anyway.
func (d *BrowserDispatcher) Act(ctx context.Context, stepID, tool string, args map[string]any, target *schema.Target) error {
	_, err := d.act(ctx, stepID, tool, args, target)
	return err
}

func (d *BrowserDispatcher) act(ctx context.Context, stepID, tool string, args map[string]any, target *schema.Target) (*schema.BrowserAction, error) {
	kind, err := schema.ParseActionKind(tool)
	if err != nil {
		return nil, schema.Errorf(schema.CodeOutOfSet, "unknown tool %q: the browser's tools are its actions", tool)
	}
	a, err := schema.ActionFromArgs(kind, args, target)
	if err != nil {
		return nil, err
	}
	if kind == schema.ActNavigate {
		ref, err := d.base.Parse(a.URL)
		if err != nil {
			return nil, schema.Errorf(schema.CodeInvalid, "navigate: url %q: %v", a.URL, err)
		}
		a.URL = ref.String()
	}
	d.resolved = nil
	ev, err := d.session.Act(ctx, stepID, a)
	if err != nil {
		return nil, err
	}
	if ev.Error != nil {
		return nil, ev.Error
	}
	d.resolved = ev.Action.Target
	return ev, nil
}

// Resolved is the control the last action aimed at, as the page resolved
// it (id, role, name and contract).
func (d *BrowserDispatcher) Resolved() *schema.Target { return d.resolved }

// World observes the page as it is, whole: a slot, judgment or repair
// prompt shows it.
func (d *BrowserDispatcher) World(ctx context.Context) (schema.World, error) {
	return d.observeAs(ctx, "", false)
}

func (d *BrowserDispatcher) observe(ctx context.Context, stepID string) (schema.World, error) {
	return d.observeAs(ctx, stepID, true)
}

func (d *BrowserDispatcher) observeAs(ctx context.Context, stepID string, diff bool) (schema.World, error) {
	rep, err := d.session.Observe(ctx, stepID, diff, 0)
	if err != nil {
		return schema.World{}, err
	}
	return rep.Observation.World(), nil
}

// RedactSecrets makes the session type secrets (name to value) but
// record them as {{name}}.
func (d *BrowserDispatcher) RedactSecrets(secrets map[string]string) { d.session.Secrets = secrets }

// Close ends the browser session, unless the caller owns it.
func (d *BrowserDispatcher) Close(ctx context.Context) error {
	if !d.owned {
		return nil
	}
	return d.session.Close(ctx)
}
