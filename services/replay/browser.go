package replay

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/records"
	"github.com/rote-agent/rote/schema/tools"
)

// BrowserDispatcher runs steps as browser actions through an actuator on
// the bus. A step's tool is an action kind; its args are url (navigate),
// value (fill, select), key (press), checked (check) and reason (done,
// fail). After each action the page is settled and observed.
type BrowserDispatcher struct {
	session *bus.BrowserSession
	base    *url.URL
	origins []string // where its pages may load from: the base's origin and those given
	owned   bool     // Close ends the session
	// resolved is what the last action's target resolved to.
	resolved *schema.Target
	// unsettled counts the actions and looks that went ahead on a page
	// still changing when the settle gave up.
	unsettled int
	// sent and changed are what the page sent since the last action that
	// may change something, and what shows the action did anything, as
	// the last look saw them; kind is that action's.
	sent, changed []string
	kind          schema.ActionKind
	dialogs       []string // the last action's
}

// OpenBrowserDispatcher claims a browser session for runID from browsers.
// base is the site the playbook runs on: relative navigations resolve
// against it, and its origin is the environment's identity. The session's
// page may load only from base's origin and origins; any other load is
// out_of_origin.
func OpenBrowserDispatcher(ctx context.Context, browsers *bus.Browsers, runID, base string, origins ...string) (*BrowserDispatcher, error) {
	d, err := newBrowserDispatcher(base, origins)
	if err != nil {
		return nil, err
	}
	if d.session, err = browsers.Open(ctx, runID, d.origins...); err != nil {
		return nil, err
	}
	d.owned = true
	return d, nil
}

// BrowserDispatcherOn dispatches on a session its caller opened and keeps:
// Close leaves it open, so that an agent can carry on where a replay
// stopped. Navigations off base's origin and origins are refused before
// they reach the session (which its opener confines as it chose).
func BrowserDispatcherOn(s *bus.BrowserSession, base string, origins ...string) (*BrowserDispatcher, error) {
	d, err := newBrowserDispatcher(base, origins)
	if err != nil {
		return nil, err
	}
	d.session = s
	return d, nil
}

func newBrowserDispatcher(base string, origins []string) (*BrowserDispatcher, error) {
	u, err := url.Parse(base)
	if err != nil || schema.Origin(u) == "" {
		return nil, schema.Errorf(schema.CodeInvalid, "base URL %q: want an absolute http or https URL such as http://127.0.0.1:8080", base)
	}
	d := &BrowserDispatcher{base: u, origins: []string{schema.Origin(u)}}
	for _, o := range origins {
		norm, err := schema.ParseOrigin(o)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(d.origins, norm) {
			d.origins = append(d.origins, norm)
		}
	}
	return d, nil
}

// Fingerprint is that of BrowserEnvironment for the base URL's origin.
func (d *BrowserDispatcher) Fingerprint(context.Context) (string, error) {
	return schema.Fingerprint(tools.BrowserEnvironment(d.origins[0]))
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
// and resolves its target anyway. It returns what an extract read.
func (d *BrowserDispatcher) Act(ctx context.Context, stepID, tool string, args map[string]any, target *schema.Target) (string, error) {
	ev, err := d.act(ctx, stepID, tool, args, target)
	if err != nil {
		return "", err
	}
	return ev.Output, nil
}

func (d *BrowserDispatcher) act(ctx context.Context, stepID, tool string, args map[string]any, target *schema.Target) (*schema.BrowserAction, error) {
	kind, err := schema.ParseActionKind(tool)
	if err != nil {
		return nil, schema.Errorf(schema.CodeOutOfSet, "unknown tool %q: the browser's tools are its actions", tool)
	}
	a, err := tools.ActionFromArgs(kind, args, target)
	if err != nil {
		return nil, err
	}
	if kind == schema.ActNavigate {
		// Resolved against the base and checked here, before anything is
		// sent: a parameter value cannot take the page elsewhere
		// ("/{{page}}" with page "/evil.example/x" is //evil.example/x).
		ref, err := d.base.Parse(a.URL)
		if err != nil {
			return nil, schema.Errorf(schema.CodeOutOfOrigin, "navigate: the address does not parse: %v", errors.Unwrap(err))
		}
		if _, err := schema.CheckNavigation(ref.String(), d.origins); err != nil {
			return nil, err
		}
		a.URL = ref.String()
	}
	d.resolved, d.sent, d.changed, d.kind, d.dialogs = nil, nil, nil, kind, nil
	ev, err := d.session.Act(ctx, stepID, a)
	if err != nil {
		return nil, err
	}
	if ev.Unsettled {
		d.unsettled++
	}
	d.dialogs = ev.Dialogs
	if ev.Error != nil {
		return nil, ev.Error
	}
	d.resolved = ev.Action.Target
	return ev, nil
}

// Dialogs are the dialogs the page opened during the last action.
func (d *BrowserDispatcher) Dialogs() []string { return d.dialogs }

// Resolved is the control the last action aimed at, as the page resolved
// it (id, role, name and contract).
func (d *BrowserDispatcher) Resolved() *schema.Target { return d.resolved }

// World observes the page as it is, whole: a slot, judgment or repair
// prompt shows it.
func (d *BrowserDispatcher) World(ctx context.Context) (schema.World, error) {
	return d.observeAs(ctx, "", false)
}

// Records reads the keys of the records target's pick names, and the
// page whole, from one observation.
func (d *BrowserDispatcher) Records(ctx context.Context, stepID string, target *schema.Target) ([]string, schema.World, error) {
	rep, err := d.session.Observe(ctx, stepID, false, 0)
	if err != nil {
		return nil, schema.World{}, err
	}
	d.count(rep)
	keys, err := records.Keys(target.Pick, target.Role, rep.Observation.Nodes)
	return keys, rep.Observation.World(), err
}

func (d *BrowserDispatcher) observe(ctx context.Context, stepID string) (schema.World, error) {
	return d.observeAs(ctx, stepID, true)
}

// Look observes the page for step stepID, settled anew: whole, or as
// what changed since the last whole look.
func (d *BrowserDispatcher) Look(ctx context.Context, stepID string, whole bool) (schema.World, error) {
	return d.observeAs(ctx, stepID, !whole)
}

// Wrote is what the last action did that doing it again could repeat, as
// the last look saw it: what the page sent that may change something
// ("sent POST http://…"), and, after a click, a key or a drag, anything
// that shows it did something at all ("changed the page: its DOM"): a
// click whose page answered may have done its work.
func (d *BrowserDispatcher) Wrote() []string {
	var out []string
	for _, s := range d.sent {
		out = append(out, "sent "+s)
	}
	switch d.kind {
	case schema.ActClick, schema.ActPress, schema.ActDrag:
		if len(d.changed) > 0 {
			out = append(out, "changed the page ("+schema.ClipList(d.changed, 2)+")")
		}
	}
	return out
}

func (d *BrowserDispatcher) observeAs(ctx context.Context, stepID string, diff bool) (schema.World, error) {
	rep, err := d.session.Observe(ctx, stepID, diff, 0)
	if err != nil {
		return schema.World{}, err
	}
	d.count(rep)
	d.sent, d.changed = rep.Sent, rep.Changed
	return rep.Observation.World(), nil
}

// count notes a look at a page that had not settled.
func (d *BrowserDispatcher) count(rep *schema.SessionObserveReply) {
	if !rep.Settled {
		d.unsettled++
	}
}

// Unsettled is how many actions and looks went ahead on a page still
// changing when the settle gave up at its cap.
func (d *BrowserDispatcher) Unsettled() int { return d.unsettled }

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
