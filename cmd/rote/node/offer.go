package node

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/recorder"
	"github.com/rote-agent/rote/services/replay"
)

// RecordOffer offers a recorded session's client the playbooks promoted
// for its server as tools (recorder.Offer over replay.Offer): calling one
// replays it over the session, as a run of its own. The node that
// replays (with the planner and matcher, for model-backed steps) starts
// on the first call, configured by Config. Give it each bus the
// recorder opens (UseBus), and Close it after the session.
type RecordOffer struct {
	Ctx    context.Context // the session's
	Target string
	// Config is the node's configuration for roles.
	Config func(roles ...string) (Config, error)
	Stderr io.Writer
	Log    *slog.Logger

	mu    sync.Mutex
	bus   *bus.Bus // the recorder's, once it opened
	offer *replay.Offer
	node  *Node
}

var _ recorder.Offer = (*RecordOffer)(nil)

// UseBus is called with each bus the recorder opens.
func (o *RecordOffer) UseBus(b *bus.Bus) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.bus == nil {
		o.bus, o.offer = b, &replay.Offer{Store: b.Playbooks()}
	}
}

func (o *RecordOffer) store() (*bus.Bus, *replay.Offer, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.bus == nil {
		return nil, nil, schema.Errorf(schema.CodeUnavailable, "the bus is unreachable: no playbook can be read")
	}
	return o.bus, o.offer, nil
}

// Tools are the playbooks bound to env's fingerprint.
func (o *RecordOffer) Tools(ctx context.Context, env schema.Environment) ([]schema.ToolSpec, error) {
	_, offer, err := o.store()
	if err != nil {
		return nil, err
	}
	tools, err := offer.Tools(ctx, env, env.Tools)
	if err != nil {
		return nil, err
	}
	specs := make([]schema.ToolSpec, len(tools))
	for i, t := range tools {
		specs[i] = t.Spec
	}
	return specs, nil
}

// Changed follows the playbook store.
func (o *RecordOffer) Changed() <-chan struct{} {
	b, _, err := o.store()
	if err != nil {
		return nil
	}
	ch, err := b.Playbooks().Watch(o.Ctx)
	if err != nil {
		o.Log.Warn("promotions during this session will not be offered until the client lists tools again", "err", err)
		return nil
	}
	return ch
}

// Call replays the playbook behind tool with the client's arguments over
// the recorded session.
func (o *RecordOffer) Call(ctx context.Context, tool string, args json.RawMessage, down recorder.Downstream) json.RawMessage {
	_, offer, err := o.store()
	if err != nil {
		return encodeResult(replay.ToolResult(replay.PlaybookTool{Playbook: &schema.Playbook{Name: tool}}, nil, err))
	}
	r, _ := offer.Call(ctx, tool, args, func(ctx context.Context, t replay.PlaybookTool, params map[string]string) (*schema.ReplayResult, error) {
		n, err := o.replayer(ctx)
		if err != nil {
			return nil, err
		}
		down.Secrets(slices.Collect(maps.Values(t.Playbook.Secrets(params))))
		open := n.SessionOpener(replay.RPCFunc(down.Call), down.Env, o.Target, t.Playbook, params)
		res, err := n.Executor().Replay(ctx, replay.Request{Playbook: t.Playbook, Version: t.Version, Params: params, Open: open})
		if err == nil {
			fmt.Fprintf(o.Stderr, "rote record: %s replayed for the client: run %s %s\n", t.Playbook.Name, res.RunID, res.Outcome)
		}
		return res, err
	})
	return encodeResult(r)
}

// replayer starts the node on the first call.
func (o *RecordOffer) replayer(ctx context.Context) (*Node, error) {
	b, _, err := o.store()
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.node != nil {
		return o.node, nil
	}
	cfg, err := o.Config(Planner, Matcher)
	if err != nil {
		return nil, err
	}
	n, err := New(cfg, b)
	if err != nil {
		return nil, err
	}
	if err := n.Run(o.Ctx); err != nil {
		return nil, err
	}
	o.node = n
	return n, nil
}

// Close stops the node, if one started.
func (o *RecordOffer) Close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.node != nil {
		o.node.Close()
	}
}

func encodeResult(r any) json.RawMessage {
	raw, err := json.Marshal(r)
	if err != nil {
		raw, _ = json.Marshal(map[string]any{"isError": true, "content": []map[string]string{{"type": "text", "text": "the result does not encode: " + err.Error()}}})
	}
	return raw
}
