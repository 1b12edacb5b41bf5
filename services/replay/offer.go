package replay

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// Offer is what one client is offered as tools: the playbooks promoted
// for an environment. Tools reads them from the store and makes them the
// offer; Call replays the one the client calls. `rote record` (for its
// server) and `rote mcp browser` (for the site its page is on) wrap it.
type Offer struct {
	Store *bus.PlaybookStore

	mu    sync.Mutex
	tools []PlaybookTool
}

// Replayer replays t with the client's params, wherever the caller's
// session is.
type Replayer func(ctx context.Context, t PlaybookTool, params map[string]string) (*schema.ReplayResult, error)

// Tools makes the playbooks bound to env's fingerprint the offer, one
// tool each in the store's order; own are the environment's own tools, whose
// names a playbook may not take.
func (o *Offer) Tools(ctx context.Context, env schema.Environment, own []schema.ToolSpec) ([]PlaybookTool, error) {
	fp, err := schema.Fingerprint(env)
	if err != nil {
		return nil, err
	}
	entries, err := o.Store.Bound(ctx, fp)
	if err != nil {
		return nil, err
	}
	tools := PlaybookTools(entries, own)
	o.mu.Lock()
	o.tools = tools
	o.mu.Unlock()
	return tools, nil
}

// Call replays the playbook offered as tool name with the client's
// arguments, checked against its parameters first, and answers as an MCP
// tool result. The replay's own result is returned beside it, nil when
// none ran (an unknown tool, bad arguments, a replay that did not
// start).
func (o *Offer) Call(ctx context.Context, name string, args json.RawMessage, replay Replayer) (*mcp.CallToolResult, *schema.ReplayResult) {
	o.mu.Lock()
	i := slices.IndexFunc(o.tools, func(t PlaybookTool) bool { return t.Spec.Name == name })
	var t PlaybookTool
	if i >= 0 {
		t = o.tools[i]
	}
	o.mu.Unlock()
	if i < 0 {
		return ToolResult(PlaybookTool{Playbook: &schema.Playbook{Name: name}}, nil,
			schema.Errorf(schema.CodeNotFound, "%s is no longer offered: list the tools again", name)), nil
	}
	params, err := t.Params(args)
	if err != nil {
		return ToolResult(t, nil, err), nil
	}
	res, err := replay(ctx, t, params)
	return ToolResult(t, res, err), res
}
