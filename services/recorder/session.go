package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/rote-agent/rote/schema"
)

// Session correlates the JSON-RPC traffic of one MCP session into
// trajectory records: a ToolCall per answered (or cancelled, or lost)
// tools/call, an Inventory whenever initialize and tools/list reveal a new
// tool surface, and an Unparsed for every line that is not JSON-RPC.
//
// Requests are matched with responses by id within a direction: the
// client's requests with the server's responses, so a server-to-client
// request that reuses an id the client also uses is never confused with
// it. Records come out in completion order; each carries the time the
// request was seen. The records are drafts: the Writer gives them their
// run id, sequence number and event id.
type Session struct {
	redactor schema.Redactor
	target   string
	emit     func(schema.Event)

	calls map[string]*pendingCall // client tools/call requests awaiting a response
	surface

	fingerprint string
	counts      map[string]int // the calls recorded, by tool
	last        schema.RawJSON // the result of the last call that succeeded
}

type pendingCall struct {
	requestID json.RawMessage
	tool      string
	args      json.RawMessage
	at        time.Time
}

// NewSession returns a Session that hands its records to emit. target is
// the user's name for the environment (--target); redactor replaces
// secrets in arguments.
func NewSession(target string, redactor schema.Redactor, emit func(schema.Event)) *Session {
	return &Session{
		redactor: redactor,
		target:   target,
		emit:     emit,
		calls:    map[string]*pendingCall{},
		surface:  newSurface(),
		counts:   map[string]int{},
	}
}

// Offered records a call that an offered tool answered at time at, after
// took: its tool and its answer, not its arguments.
func (s *Session) Offered(c *offeredCall, at time.Time) {
	s.counts[c.tool]++
	result := s.scrubbed(c.result)
	s.emit(&schema.ToolCall{Meta: schema.Meta{Time: at}, Tool: c.tool, RequestID: schema.RawJSON(c.requestID), Duration: c.took, Offered: true,
		Result: schema.RawJSON(result), ResultDigest: schema.Digest(result), ResultSize: len(result), Error: toolError(result)})
}

// AddSecrets makes values secrets from now on, like those declared: an
// offered tool was given them and typed them, so the server may echo
// them in what the client's later calls get.
func (s *Session) AddSecrets(values []string) {
	for _, v := range values {
		if v != "" && !slices.Contains(s.redactor.Values, v) {
			s.redactor.Values = append(s.redactor.Values, v)
		}
	}
	s.redactor.Values = longestFirst(s.redactor.Values)
}

// ToolCalls counts the calls recorded so far, by tool.
func (s *Session) ToolCalls() map[string]int { return maps.Clone(s.counts) }

// Fingerprint returns the fingerprint of the last inventory seen, or "".
func (s *Session) Fingerprint() string { return s.fingerprint }

// ObserveDropped records a line that was forwarded but was too long to
// keep: only its size and digest.
func (s *Session) ObserveDropped(dir schema.Direction, size int, digest string, at time.Time) {
	s.emit(&schema.Unparsed{Meta: schema.Meta{Time: at}, Direction: dir, Dropped: true, Size: size, Digest: digest,
		Reason: fmt.Sprintf("line of %d bytes exceeds the %d-byte recording limit: forwarded, not recorded", size, MaxRecordedLine)})
}

// Observe takes one line as it crossed the proxy in direction dir at time
// at.
func (s *Session) Observe(dir schema.Direction, line []byte, at time.Time) {
	msgs, reason := parseLine(line)
	if reason != "" {
		// A torn line may hold a secret the client sent or the server
		// echoed: what is kept, and its size and digest, are of the line
		// with the secret replaced (a digest of a short line could be
		// guessed back).
		kept := s.scrubbed(line)
		s.emit(&schema.Unparsed{Meta: schema.Meta{Time: at}, Direction: dir, Reason: reason,
			Line: kept, Size: len(kept), Digest: schema.Digest(kept)})
	}
	for _, m := range msgs {
		if dir == schema.ToServer {
			s.fromClient(m, line, at)
		} else {
			s.fromServer(m, at)
		}
	}
}

func (s *Session) fromClient(m message, line []byte, at time.Time) {
	switch {
	case m.kind == kindRequest && m.method == "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(m.params, &p); err != nil || p.Name == "" {
			kept := s.scrubbed(line)
			s.emit(&schema.Unparsed{Meta: schema.Meta{Time: at}, Direction: schema.ToServer,
				Reason: "tools/call without a tool name", Size: len(kept), Digest: schema.Digest(kept), Line: schema.RawText(kept)})
			return
		}
		key := m.idKey()
		if prev, ok := s.calls[key]; ok {
			s.finish(prev, nil, &schema.CallError{Kind: schema.CallErrorLost, Message: "request id " + key + " reused before a response"}, at)
		}
		s.calls[key] = &pendingCall{requestID: m.id, tool: p.Name, args: p.Arguments, at: at}
	case m.kind == kindRequest:
		s.request(m)
	case m.kind == kindNotification && m.method == "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
			Reason    string          `json:"reason"`
		}
		if json.Unmarshal(m.params, &p) != nil {
			return
		}
		key := string(bytes.TrimSpace(p.RequestID))
		if c, ok := s.calls[key]; ok {
			delete(s.calls, key)
			s.finish(c, nil, &schema.CallError{Kind: schema.CallErrorCancelled, Message: p.Reason}, at)
		}
	}
}

func (s *Session) fromServer(m message, at time.Time) {
	if m.kind != kindResponse {
		return // server requests and notifications: list_changed is handled by the re-list it causes
	}
	key := m.idKey()
	if c, ok := s.calls[key]; ok {
		delete(s.calls, key)
		if len(m.err) > 0 {
			s.finish(c, m.err, rpcError(m.err), at)
			return
		}
		s.finish(c, m.result, toolError(m.result), at)
		return
	}
	if listed, _ := s.response(m); listed {
		s.inventory(at)
	}
}

// inventory emits an Inventory when the tool surface differs from the
// last one emitted.
func (s *Session) inventory(at time.Time) {
	env := s.environment(s.target)
	fp, err := schema.Fingerprint(env)
	if err != nil {
		s.emit(&schema.Unparsed{Meta: schema.Meta{Time: at}, Direction: schema.ToClient,
			Reason: "tools/list result has no fingerprint: " + err.Error(), Digest: schema.Digest(nil)})
		return
	}
	if fp == s.fingerprint {
		return
	}
	s.fingerprint = fp
	s.emit(&schema.Inventory{Meta: schema.Meta{Time: at}, Environment: env, Fingerprint: fp, Protocol: s.server.protocol, Client: s.client})
}

// finish emits the ToolCall for c, answered with payload at time at.
func (s *Session) finish(c *pendingCall, payload json.RawMessage, callErr *schema.CallError, at time.Time) {
	s.counts[c.tool]++
	call := &schema.ToolCall{
		Meta:      schema.Meta{Time: c.at},
		Tool:      c.tool,
		RequestID: schema.RawJSON(c.requestID),
		Duration:  at.Sub(c.at),
		Error:     callErr,
	}
	if len(c.args) > 0 {
		args, _, err := s.redactor.RedactArguments(c.args, s.inputSchema(c.tool))
		if err != nil {
			// Arguments that are not JSON cannot be searched for secrets:
			// keep only their digest rather than risk storing one.
			args = nil
			call.ArgumentsDigest, call.ArgumentsSize = schema.Digest(c.args), len(c.args)
		} else {
			call.Arguments, call.ArgumentsDigest, call.ArgumentsSize = schema.RawJSON(args), schema.Digest(args), len(args)
		}
	}
	if callErr != nil {
		callErr.Message = s.redactor.ScrubString(callErr.Message)
	}
	if payload != nil {
		// A server that echoes a declared secret (in clear, URL-encoded,
		// base64, JSON-escaped) has it replaced by its digest before the
		// result is stored.
		payload = s.scrubbed(payload)
		call.Result, call.ResultDigest, call.ResultSize = schema.RawJSON(payload), schema.Digest(payload), len(payload)
		if callErr == nil {
			s.last = call.Result
		}
	}
	s.emit(call)
}

// scrubbed is a copy of b with the declared secrets replaced (Scrub).
func (s *Session) scrubbed(b []byte) []byte {
	out, changed := s.redactor.Scrub(b)
	if !changed {
		return slices.Clone(b)
	}
	return out
}

// LastResult is the result of the last call that succeeded, nil when none
// did: the state a session's verify assertions are checked against.
func (s *Session) LastResult() []byte { return s.last }

func (s *Session) inputSchema(tool string) []byte {
	for _, t := range s.tools {
		if t.Name == tool {
			return t.InputSchema
		}
	}
	return nil
}

// Close ends the session at time at: calls still waiting for a response
// are recorded as lost, in the order they were requested.
func (s *Session) Close(at time.Time) {
	pending := make([]*pendingCall, 0, len(s.calls))
	for _, c := range s.calls {
		pending = append(pending, c)
	}
	slices.SortFunc(pending, func(a, b *pendingCall) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return strings.Compare(string(a.requestID), string(b.requestID))
	})
	for _, c := range pending {
		s.finish(c, nil, &schema.CallError{Kind: schema.CallErrorLost, Message: "no response before the session ended"}, at)
	}
	s.calls = map[string]*pendingCall{}
}

func rpcError(raw json.RawMessage) *schema.CallError {
	var e struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(raw, &e) // a malformed error object still is an error
	return &schema.CallError{Kind: schema.CallErrorRPC, Code: e.Code, Message: e.Message}
}

// toolError reports a result with isError set, quoting its first text.
func toolError(result json.RawMessage) *schema.CallError {
	var r struct {
		IsError bool `json:"isError"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(result, &r) != nil || !r.IsError {
		return nil
	}
	msg := "tool reported an error"
	for _, c := range r.Content {
		if c.Type == "text" && c.Text != "" {
			msg = c.Text
			break
		}
	}
	return &schema.CallError{Kind: schema.CallErrorTool, Message: schema.Clip(msg, 500)}
}
