package replay

import (
	"context"

	"github.com/rote-agent/rote/schema"
)

// Dispatcher performs the tool calls of deterministic steps on one live
// environment, and tells what the environment looks like after each. The
// executor replays playbooks through it; the browser (BrowserDispatcher)
// and any MCP server (MCPDispatcher) are its two backends, checked by one
// conformance suite.
type Dispatcher interface {
	// Fingerprint returns the live environment's fingerprint, to compare
	// with the one a playbook is bound to.
	Fingerprint(ctx context.Context) (string, error)
	// Dispatch calls tool with args (target says which page control, for
	// the browser) and returns the world it leaves, settled. A call the
	// environment refused or that failed is a *schema.Error.
	Dispatch(ctx context.Context, stepID, tool string, args map[string]any, target *schema.Target) (schema.World, error)
	// World returns the world now, without acting: for verify, and for
	// the text a slot or judgment prompt sees.
	World(ctx context.Context) (schema.World, error)
	// Close releases the environment's session.
	Close(ctx context.Context) error
}

// An Actor is a Dispatcher that can also dispatch without returning the
// world: the executor uses it for a step that asserts nothing, saving an
// observation. It returns what an extract read. A Dispatcher whose world
// comes with the call for free (an MCP tool's result) need not be one.
type Actor interface {
	Act(ctx context.Context, stepID, tool string, args map[string]any, target *schema.Target) (string, error)
}

// A Looker is a Dispatcher that can look at the world for a step,
// settled anew, without acting, whole or as what changed: a retry looks
// before it acts again; a repair, slot or judgment prompt shows the page
// whole. The look is the step's, in the run's time breakdown.
type Looker interface {
	Look(ctx context.Context, stepID string, whole bool) (schema.World, error)
}

// A Writer is a Dispatcher that can say what its last action did that
// doing it again could repeat ("sent POST http://…/pay", "changed the
// page: its DOM"): a retry does not do that action again, nor does a
// repair run in its place. None (nil) means it did nothing of the kind.
type Writer interface {
	Wrote() []string
}

// A Questioner is a Dispatcher that can say which dialogs the page opened
// during its last action, as BrowserAction.Dialogs words them.
type Questioner interface {
	Dialogs() []string
}

// A Resolver is a Dispatcher that can say which control its last action
// resolved its target to, with that control's contract: the executor
// guards a repaired step with it.
type Resolver interface {
	Resolved() *schema.Target
}

// A RecordReader is a Dispatcher that can read, from one look at the
// page as it is for step stepID, the keys of the records a target's pick
// names and the whole page: the options and the page of a judgment among
// records.
type RecordReader interface {
	Records(ctx context.Context, stepID string, target *schema.Target) ([]string, schema.World, error)
}

// Opener opens a Dispatcher whose events belong to run runID. A browser
// dispatcher's page may load only from its base URL's origin and the
// origins the playbook declares (schema.Playbook.Origins); others ignore
// them.
type Opener func(ctx context.Context, runID string, origins []string) (Dispatcher, error)

// A URLConfiner is a Dispatcher that checks the url argument of every
// call it makes (schema.URLArg) against origins the executor gives
// it: the MCP dispatcher, whose server goes wherever an argument says.
type URLConfiner interface {
	ConfineURLs(origins []string)
}

// A BindingRecorder is a Dispatcher that records, with the next call it
// dispatches, which step outputs were bound into its arguments and to
// what: the executor tells it before dispatching.
type BindingRecorder interface {
	RecordBindings(bound map[string]string)
}
