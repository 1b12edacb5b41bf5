package mcpbrowser

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"net/url"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/tools"
	"github.com/rote-agent/rote/services/replay"
)

// Playbooks offers a session's client, as tools, the playbooks promoted
// for the site its page is on (a replay.Offer): when the page reaches
// another origin, and when a playbook is promoted, the tool list changes
// and the client is told (notifications/tools/list_changed). Calling one
// replays it on the session's own page, from where the agent is.
type Playbooks struct {
	Store *bus.PlaybookStore
	// Replay replays t with params on session s, whose site is base.
	Replay func(ctx context.Context, t replay.PlaybookTool, params map[string]string, s *bus.BrowserSession, base string) (*schema.ReplayResult, error)
	Log    *slog.Logger
}

// offered is what the session offers now.
type offered struct {
	origin string
	specs  map[string]schema.ToolSpec // by tool name
}

// follow offers the playbooks of the origin of pageURL, if it is not the
// one offered already.
func (m *Tools) follow(ctx context.Context, pageURL string) {
	if m.playbooks == nil {
		return
	}
	u, err := url.Parse(pageURL)
	if err != nil || schema.Origin(u) == "" {
		return
	}
	origin := schema.Origin(u)
	m.mu.Lock()
	same := origin == m.offer.origin
	m.mu.Unlock()
	if !same {
		m.reoffer(ctx, origin)
	}
}

// watch re-offers the current origin's playbooks after each write to the
// store, until ctx ends.
func (m *Tools) watch(ctx context.Context) {
	if m.playbooks == nil {
		return
	}
	changed, err := m.playbooks.Store.Watch(ctx)
	if err != nil {
		m.playbooks.Log.Warn("playbooks promoted during this session will not be offered", "err", err)
		return
	}
	for range changed {
		m.mu.Lock()
		origin := m.offer.origin
		m.mu.Unlock()
		if origin != "" {
			m.reoffer(ctx, origin)
		}
	}
}

// reoffer makes the tool list the browser's tools and origin's playbooks.
func (m *Tools) reoffer(ctx context.Context, origin string) {
	listed, err := m.offers.Tools(ctx, tools.BrowserEnvironment(origin), tools.Browser())
	if err != nil {
		m.playbooks.Log.Warn("the playbooks of this site are not offered", "origin", origin, "err", err)
		return
	}
	next := map[string]schema.ToolSpec{}
	for _, t := range listed {
		next[t.Spec.Name] = t.Spec
	}
	m.mu.Lock()
	prev := m.offer.specs
	m.offer = offered{origin: origin, specs: next}
	m.mu.Unlock()
	var gone []string
	for name := range prev {
		if _, kept := next[name]; !kept {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		m.server.RemoveTools(gone...)
	}
	for _, name := range slices.Sorted(maps.Keys(next)) {
		spec := next[name]
		if old, ok := prev[name]; ok && old.Description == spec.Description && bytes.Equal(old.InputSchema, spec.InputSchema) {
			continue
		}
		m.server.AddTool(&mcp.Tool{Name: name, Description: spec.Description, InputSchema: json.RawMessage(spec.InputSchema)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return m.replay(ctx, name, req.Params.Arguments), nil
			})
	}
}

// replay runs the playbook offered as tool on the session's page. A stop
// answers with the page as it is, in full, so that the agent can carry
// on from it.
func (m *Tools) replay(ctx context.Context, tool string, args json.RawMessage) *mcp.CallToolResult {
	m.mu.Lock()
	origin := m.offer.origin
	m.mu.Unlock()
	var s *bus.BrowserSession
	r, res := m.offers.Call(ctx, tool, args, func(ctx context.Context, t replay.PlaybookTool, params map[string]string) (*schema.ReplayResult, error) {
		var err error
		if s, err = m.open(ctx); err != nil {
			return nil, err
		}
		// The secrets the client gives are masked like those of the
		// environment, in what the session records and returns.
		m.addSecrets(t.Playbook.Secrets(params))
		m.replaying.Lock() // replays take turns: two would act on one page
		defer m.replaying.Unlock()
		return m.playbooks.Replay(ctx, t, params, s, origin)
	})
	if res != nil && res.Outcome != schema.OutcomeSuccess {
		if rep, oerr := s.Observe(ctx, "", false, 0); oerr == nil {
			r.Content = append(r.Content, &mcp.TextContent{Text: "\n" + pageLines(rep.Observation) + rep.Observation.Render})
		}
	}
	return r
}
