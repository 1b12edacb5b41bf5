package recorder

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rote-agent/rote/schema"
)

// Offer is what a recording offers its client beside the server's own
// tools: promoted playbooks, as tools that replay them over the same
// session.
type Offer interface {
	// Tools are the tools to list after the server's own, for a server
	// whose environment is env.
	Tools(ctx context.Context, env schema.Environment) ([]schema.ToolSpec, error)
	// Call runs tool, one that Tools listed, with the client's arguments,
	// making its calls through down, and returns the tools/call result
	// for the client.
	Call(ctx context.Context, tool string, args json.RawMessage, down Downstream) json.RawMessage
	// Changed receives when the tools may have changed; nil if never.
	Changed() <-chan struct{}
}

// Downstream is the server's side of a recorded session, as an offered
// tool uses it: its environment, and requests made on the session beside
// the client's, whose traffic the client never sees and the recording
// leaves out (the replay records its own calls in its own run).
type Downstream struct {
	Env  schema.Environment
	Call func(ctx context.Context, method string, params any) (json.RawMessage, error)
	// Secrets tells the recording of the secret values the tool was
	// given, before it sends them: what the server echoes of them in
	// the client's later calls is stored as digests.
	Secrets func(values []string)
}

// offerTimeout bounds the lookup of the offered tools when a tools/list
// answer is on its way to the client.
const offerTimeout = 3 * time.Second

// ErrServerGone means the server's output ended before it answered a
// request an offered tool made.
var ErrServerGone = errors.New("recorder: the MCP server's output ended")

// interceptor sits in both forwarding directions when an Offer is given:
// it adds the offered tools to the server's tools/list answers (and
// tools.listChanged to its capabilities), runs a client's call to one
// of them itself, routes the answers to its own requests back to it, and
// tells the client when the offered tools change.
type interceptor struct {
	offer    Offer
	target   string
	log      *slog.Logger
	toServer *frameWriter
	toClient *frameWriter
	recorded *queue          // the recording's: secrets go into it in order
	prefix   string          // of our own requests' ids: rote-<random>-
	ctx      context.Context // ends the offered calls

	mu        sync.Mutex
	surface   surface
	listed    []schema.ToolSpec // the offered tools the client was last shown
	everList  bool              // the client has listed tools
	seq       uint64
	pending   map[string]chan reply         // our own requests awaiting an answer, by id
	running   map[string]context.CancelFunc // the client's calls to offered tools, by id
	gone      chan struct{}                 // closed when the server's output ends
	calls     sync.WaitGroup
	replaying sync.Mutex // held by the offered call replaying
}

type reply struct {
	result json.RawMessage
	err    json.RawMessage
}

func newInterceptor(ctx context.Context, offer Offer, target string, log *slog.Logger, toServer, toClient *frameWriter, recorded *queue) *interceptor {
	nonce := make([]byte, 6)
	rand.Read(nonce)
	return &interceptor{offer: offer, target: target, log: log, toServer: toServer, toClient: toClient, recorded: recorded, ctx: ctx,
		prefix: "rote-" + hex.EncodeToString(nonce) + "-", surface: newSurface(), pending: map[string]chan reply{},
		running: map[string]context.CancelFunc{}, gone: make(chan struct{})}
}

// fromClient filters a frame on its way to the server.
func (ic *interceptor) fromClient(frame []byte) ([]byte, bool) {
	m, ok := single(frame)
	if !ok {
		return frame, true
	}
	switch {
	case m.kind == kindRequest && ic.ours(m.id):
		frame, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.id,
			"error": map[string]any{"code": -32600, "message": "request ids beginning " + ic.prefix + " are rote record's own"}})
		ic.toClient.writeFrame(append(frame, '\n'))
		return nil, false
	case m.kind == kindRequest && m.method == "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal(m.params, &p) != nil || !ic.offers(p.Name) {
			return frame, true
		}
		ic.start(m.id, p.Name, p.Arguments)
		return nil, false
	case m.kind == kindNotification && m.method == "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.params, &p) == nil {
			ic.mu.Lock()
			cancel, mine := ic.running[string(bytes.TrimSpace(p.RequestID))]
			ic.mu.Unlock()
			if mine {
				cancel()
				return nil, false
			}
		}
	case m.kind == kindRequest:
		ic.mu.Lock()
		ic.surface.request(m)
		ic.mu.Unlock()
	}
	return frame, true
}

// fromServer filters a frame on its way to the client. A frame is read
// only while an answer is awaited that it may be: to one of our
// requests, or to a tools/list or initialize of the client's.
func (ic *interceptor) fromServer(frame []byte) ([]byte, bool) {
	ic.mu.Lock()
	awaited := len(ic.pending) + len(ic.surface.requests)
	ic.mu.Unlock()
	if awaited == 0 {
		return frame, true
	}
	m, ok := single(frame)
	if !ok || m.kind != kindResponse {
		return frame, true
	}
	ic.mu.Lock()
	if ic.ours(m.id) {
		ch, waiting := ic.pending[m.idKey()]
		delete(ic.pending, m.idKey())
		ic.mu.Unlock()
		if waiting && ch != nil {
			ch <- reply{result: m.result, err: m.err}
		}
		return nil, false // a late answer to a request we gave up on is ours too
	}
	listed, method := ic.surface.response(m)
	env := ic.surface.environment(ic.target)
	ic.mu.Unlock()
	switch {
	case listed:
		return ic.withOffered(frame, env), true
	case method == "initialize" && len(m.err) == 0:
		return withListChanged(frame), true
	}
	return frame, true
}

// withOffered adds the offered tools to the last page of a tools/list
// answer. When they cannot be read the server's list goes as it is.
func (ic *interceptor) withOffered(frame []byte, env schema.Environment) []byte {
	ctx, cancel := context.WithTimeout(ic.ctx, offerTimeout)
	tools, err := ic.offer.Tools(ctx, env)
	cancel()
	if err != nil {
		ic.log.Warn("playbooks are not offered in this tools/list", "err", err)
	}
	ic.mu.Lock()
	ic.listed, ic.everList = tools, true
	ic.mu.Unlock()
	if len(tools) == 0 {
		return frame
	}
	out, err := editResult(frame, func(result map[string]json.RawMessage) error {
		var own []json.RawMessage
		if raw, ok := result["tools"]; ok {
			if err := json.Unmarshal(raw, &own); err != nil {
				return err
			}
		}
		for _, t := range tools {
			entry, err := json.Marshal(map[string]any{"name": t.Name, "description": t.Description, "inputSchema": t.InputSchema})
			if err != nil {
				return err
			}
			own = append(own, entry)
		}
		raw, err := json.Marshal(own)
		result["tools"] = raw
		return err
	})
	if err != nil {
		ic.log.Warn("playbooks are not offered in a tools/list answer that does not read", "err", err)
		return frame
	}
	return out
}

// withListChanged declares, in an initialize answer, that the tool list
// changes: the offered tools do when a playbook is promoted.
func withListChanged(frame []byte) []byte {
	out, err := editResult(frame, func(result map[string]json.RawMessage) error {
		caps := map[string]json.RawMessage{}
		if raw, ok := result["capabilities"]; ok {
			if err := json.Unmarshal(raw, &caps); err != nil {
				return err
			}
		}
		tools := map[string]json.RawMessage{}
		if raw, ok := caps["tools"]; ok {
			if err := json.Unmarshal(raw, &tools); err != nil {
				return err
			}
		}
		if string(tools["listChanged"]) == "true" {
			return errDeclared
		}
		tools["listChanged"] = json.RawMessage("true")
		var err error
		if caps["tools"], err = json.Marshal(tools); err != nil {
			return err
		}
		result["capabilities"], err = json.Marshal(caps)
		return err
	})
	if err != nil {
		return frame
	}
	return out
}

// errDeclared says an initialize answer declares tools.listChanged
// already: it goes as the server wrote it.
var errDeclared = errors.New("tools.listChanged is declared")

// editResult rewrites the result object of a response frame with edit,
// keeping every other member.
func editResult(frame []byte, edit func(map[string]json.RawMessage) error) ([]byte, error) {
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(frame, &msg); err != nil {
		return nil, err
	}
	result := map[string]json.RawMessage{}
	if err := json.Unmarshal(msg["result"], &result); err != nil {
		return nil, err
	}
	if err := edit(result); err != nil {
		return nil, err
	}
	raw, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	msg["result"] = raw
	out, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// single parses a frame that holds one JSON-RPC message; a batch or
// anything else is not intercepted.
func single(frame []byte) (message, bool) {
	trimmed := bytes.TrimSpace(frame)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return message{}, false
	}
	m, reason := parseMessage(trimmed)
	return m, reason == ""
}

// ours reports whether id is in the namespace of our own requests.
func (ic *interceptor) ours(id json.RawMessage) bool {
	var s string
	return json.Unmarshal(id, &s) == nil && strings.HasPrefix(s, ic.prefix)
}

func (ic *interceptor) offers(tool string) bool {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	return slices.ContainsFunc(ic.listed, func(t schema.ToolSpec) bool { return t.Name == tool })
}

// start runs the client's call id to an offered tool and answers it.
func (ic *interceptor) start(id json.RawMessage, tool string, args json.RawMessage) {
	ctx, cancel := context.WithCancel(ic.ctx)
	key := string(bytes.TrimSpace(id))
	ic.mu.Lock()
	ic.running[key] = cancel
	env := ic.surface.environment(ic.target)
	ic.mu.Unlock()
	ic.calls.Add(1)
	go func() {
		defer ic.calls.Done()
		defer cancel()
		// Replays take turns: two on one session would act on one page.
		ic.replaying.Lock()
		defer ic.replaying.Unlock()
		secrets := func(values []string) {
			if len(values) > 0 {
				ic.recorded.push(observation{secrets: slices.Clone(values)})
			}
		}
		began := time.Now()
		result := ic.offer.Call(ctx, tool, args, Downstream{Env: env, Call: ic.request, Secrets: secrets})
		ic.mu.Lock()
		delete(ic.running, key)
		ic.mu.Unlock()
		if ctx.Err() != nil && ic.ctx.Err() == nil {
			return // the client cancelled it: it expects no answer
		}
		ic.recorded.push(observation{at: began, offered: &offeredCall{tool: tool, requestID: slices.Clone(id), took: time.Since(began), result: result}})
		ic.answer(id, result)
	}()
}

func (ic *interceptor) answer(id, result json.RawMessage) {
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	if err != nil {
		ic.log.Error("the answer of an offered tool does not encode", "err", err)
		return
	}
	if err := ic.toClient.writeFrame(append(frame, '\n')); err != nil {
		ic.log.Warn("the client went away before an offered tool answered", "err", err)
	}
}

// request sends one request of our own to the server and waits for its
// answer; the client never sees either.
func (ic *interceptor) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	ic.mu.Lock()
	ic.seq++
	id := strconv.Quote(ic.prefix + strconv.FormatUint(ic.seq, 10))
	ch := make(chan reply, 1)
	ic.pending[id] = ch
	ic.mu.Unlock()
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if err := ic.toServer.writeFrame(append(frame, '\n')); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r := <-ch:
		if len(r.err) > 0 {
			e := rpcError(r.err)
			return nil, fmt.Errorf("%s: JSON-RPC error %d: %s", method, e.Code, e.Message)
		}
		return r.result, nil
	case <-ic.gone:
		return nil, fmt.Errorf("%s: %w", method, ErrServerGone)
	case <-ctx.Done():
		ic.mu.Lock()
		ic.pending[id] = nil // given up on: its answer, if it comes, is still ours
		ic.mu.Unlock()
		cancel, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
			"params": map[string]any{"requestId": json.RawMessage(id), "reason": "the playbook's replay stopped"}})
		ic.toServer.writeFrame(append(cancel, '\n'))
		return nil, ctx.Err()
	}
}

// serverGone fails our requests still waiting: nothing will answer them.
func (ic *interceptor) serverGone() { close(ic.gone) }

// notifyChanges tells the client, with notifications/tools/list_changed,
// each time the offered tools change after it listed them. It returns
// when ctx ends or the offer stops changing.
func (ic *interceptor) notifyChanges(ctx context.Context) {
	changed := ic.offer.Changed()
	if changed == nil {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-changed:
			if !ok {
				return
			}
		}
		ic.mu.Lock()
		env, listed, ever := ic.surface.environment(ic.target), ic.listed, ic.everList
		ic.mu.Unlock()
		if !ever {
			continue
		}
		lookup, cancel := context.WithTimeout(ctx, offerTimeout)
		now, err := ic.offer.Tools(lookup, env)
		cancel()
		if err != nil || sameTools(now, listed) {
			continue
		}
		note := []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n")
		if err := ic.toClient.writeFrame(note); err != nil {
			return
		}
	}
}

func sameTools(a, b []schema.ToolSpec) bool {
	return slices.EqualFunc(a, b, func(x, y schema.ToolSpec) bool {
		return x.Name == y.Name && x.Description == y.Description && bytes.Equal(x.InputSchema, y.InputSchema)
	})
}
