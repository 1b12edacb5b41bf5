package chromium

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/chromedp/cdproto"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// A browser Rote drives has one DevTools connection: the pipe of one it
// launched, or the WebSocket of one a user started. The mux shares it
// among clients (each actuator session, each perception attachment, each
// relay connection), so that every client has a connection of its own,
// as a WebSocket per client once gave it: each message id is renumbered
// on the way in and back on the way out, and each session's messages go
// to the client that attached it. The mux also holds the browser's
// policies that no client may change (popups.go).

// maxQueued bounds the messages waiting for one client to read them: a
// client that falls that far behind is cut off rather than holding every
// other client up.
const maxQueued = 1 << 16

// errClientGone is what a client's read returns once it was closed.
var errClientGone = errors.New("chromium: the connection was closed")

// mux shares one DevTools connection.
type mux struct {
	tr     chromedp.Transport
	popups bool // refuse the pages that driven pages open (popups.go)

	mu       sync.Mutex
	next     int64
	calls    map[int64]call // sent and not answered, by the id the browser knows
	sessions map[target.SessionID]session
	driven   map[target.ID]int       // targets with a client session, and how many
	held     map[target.ID]*judging  // new pages being judged (requests.go)
	free     map[target.ID]bool      // pages judged no popups
	frames   map[target.ID]target.ID // frames inside driven pages, and their page
	clients  map[*client]bool

	done chan struct{} // closed when the connection ends
	err  error         // why, once done is closed
}

// call is a command in flight.
type call struct {
	c      *client // nil: the mux's own
	id     int64   // the client's id for it
	method cdproto.MethodType
	target target.ID             // the target a Target.attachToTarget names
	answer chan *cdproto.Message // the mux's own call that waits for its answer
}

// session is a DevTools session on a target, and who holds it.
type session struct {
	c      *client // nil: the mux's own (a popup being refused)
	target target.ID
	child  bool      // attached under another session of c's, not by c itself
	tell   target.ID // a refused page's: the driven page yet to hear it opened it
}

// newMux starts routing tr's messages; with popups it refuses the pages
// driven pages open (see popups.go).
func newMux(tr chromedp.Transport, popups bool) (*mux, error) {
	m := &mux{tr: tr, popups: popups, calls: map[int64]call{}, sessions: map[target.SessionID]session{},
		driven: map[target.ID]int{}, held: map[target.ID]*judging{}, free: map[target.ID]bool{}, frames: map[target.ID]target.ID{}, clients: map[*client]bool{}, done: make(chan struct{})}
	go m.run()
	if popups {
		if err := m.refusePopups(); err != nil {
			m.close(err)
			return nil, err
		}
	}
	return m, nil
}

// run reads the browser's messages until the connection ends.
func (m *mux) run() {
	for {
		msg := new(cdproto.Message)
		if err := m.tr.Read(context.Background(), msg); err != nil {
			m.close(err)
			return
		}
		switch {
		case msg.ID != 0:
			m.reply(msg)
		case msg.Method != "":
			m.event(msg)
		}
	}
}

// close ends the mux and every client's connection with err.
func (m *mux) close(err error) {
	m.mu.Lock()
	select {
	case <-m.done:
		m.mu.Unlock()
		return
	default:
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.EOF
	}
	m.err = err
	close(m.done)
	m.mu.Unlock()
	m.tr.Close()
}

// alive reports whether the connection still stands.
func (m *mux) alive() bool {
	select {
	case <-m.done:
		return false
	default:
		return true
	}
}

// dial is a new client connection.
func (m *mux) dial() (*client, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	select {
	case <-m.done:
		return nil, fmt.Errorf("chromium: the browser's connection ended: %w", m.err)
	default:
	}
	c := &client{m: m, ready: make(chan struct{}, 1), closed: make(chan struct{})}
	m.clients[c] = true
	return c, nil
}

// send writes the mux's own command: its answer is not waited for.
func (m *mux) send(session target.SessionID, method cdproto.MethodType, params any) {
	m.write(context.Background(), session, method, params, nil)
}

// call sends the mux's own command and waits for its answer.
// With result, the answer is decoded into it.
func (m *mux) call(ctx context.Context, session target.SessionID, method cdproto.MethodType, params, result any) error {
	answer := make(chan *cdproto.Message, 1)
	if err := m.write(ctx, session, method, params, answer); err != nil {
		return err
	}
	select {
	case msg := <-answer:
		if msg.Error != nil {
			return fmt.Errorf("chromium: %s: %w", method, msg.Error)
		}
		if result != nil {
			if err := unmarshal(msg.Result, result); err != nil {
				return fmt.Errorf("chromium: %s: %w", method, err)
			}
		}
		return nil
	case <-m.done:
		return fmt.Errorf("chromium: %s: the connection ended: %w", method, m.err)
	case <-ctx.Done():
		return fmt.Errorf("chromium: %s: %w", method, ctx.Err())
	}
}

// write sends one of the mux's own commands.
func (m *mux) write(ctx context.Context, session target.SessionID, method cdproto.MethodType, params any, answer chan *cdproto.Message) error {
	var raw []byte
	if params != nil {
		var err error
		if raw, err = jsonv2.Marshal(params, chromedp.DefaultMarshalOptions); err != nil {
			return err
		}
	}
	m.mu.Lock()
	m.next++
	id := m.next
	m.calls[id] = call{method: method, answer: answer}
	m.mu.Unlock()
	if err := m.tr.Write(ctx, &cdproto.Message{ID: id, SessionID: session, Method: method, Params: raw}); err != nil {
		m.forget(id)
		return fmt.Errorf("chromium: %s: %w", method, err)
	}
	return nil
}

func (m *mux) forget(id int64) {
	m.mu.Lock()
	delete(m.calls, id)
	m.mu.Unlock()
}

// reply hands an answer to the client that asked, with its own id. An
// attach's answer makes the new session the client's.
func (m *mux) reply(msg *cdproto.Message) {
	m.mu.Lock()
	cl, ok := m.calls[msg.ID]
	delete(m.calls, msg.ID)
	gone := ok && cl.c != nil && !m.clients[cl.c]
	var attached target.SessionID
	if ok && cl.c != nil && msg.Error == nil && cl.method == target.CommandAttachToTarget {
		var res struct {
			SessionID target.SessionID `json:"sessionId"`
		}
		if unmarshal(msg.Result, &res) == nil && res.SessionID != "" {
			attached = res.SessionID
			if !gone {
				m.own(res.SessionID, session{c: cl.c, target: cl.target})
			}
		}
	}
	m.mu.Unlock()
	switch {
	case !ok:
		return
	case cl.c == nil:
		if cl.answer != nil {
			cl.answer <- msg
		}
		return
	case gone:
		if attached != "" { // attached for a client that has closed since
			m.send("", target.CommandDetachFromTarget, target.DetachFromTargetParams{SessionID: attached})
		}
		return
	}
	out := *msg
	out.ID = cl.id
	cl.c.deliver(&out)
}

// own records a session as s.c's. The caller holds mu.
func (m *mux) own(id target.SessionID, s session) {
	if old, ok := m.sessions[id]; ok {
		m.unown(id, old)
	}
	m.sessions[id] = s
	if s.c != nil {
		m.driven[s.target]++
	}
}

// unown forgets a session. The caller holds mu.
func (m *mux) unown(id target.SessionID, s session) {
	delete(m.sessions, id)
	if s.c != nil {
		if m.driven[s.target]--; m.driven[s.target] <= 0 {
			delete(m.driven, s.target)
			m.forgetFrames(s.target)
		}
	}
}

// event routes an event: a session's to the client that holds it, the
// browser's own to every client, except the attaches and detaches of
// sessions, which only their holder hears.
func (m *mux) event(msg *cdproto.Message) {
	if msg.SessionID != "" {
		m.sessionEvent(msg)
		return
	}
	switch msg.Method {
	case cdproto.EventTargetAttachedToTarget:
		var ev target.EventAttachedToTarget
		if unmarshal(msg.Params, &ev) != nil || ev.TargetInfo == nil {
			return
		}
		if ev.WaitingForDebugger {
			m.autoAttached(&ev) // only the mux waits for a debugger
			return
		}
		m.mu.Lock()
		c := m.attacher(ev.TargetInfo.TargetID)
		m.mu.Unlock()
		if c != nil {
			c.deliver(msg)
		}
	case cdproto.EventTargetDetachedFromTarget:
		var ev target.EventDetachedFromTarget
		if unmarshal(msg.Params, &ev) != nil {
			return
		}
		m.mu.Lock()
		s, ok := m.sessions[ev.SessionID]
		if ok {
			m.unown(ev.SessionID, s)
		}
		m.mu.Unlock()
		if ok && s.c != nil {
			s.c.deliver(msg)
		}
	case cdproto.EventFetchRequestPaused:
		if m.popups {
			m.requestPaused(msg) // only the mux intercepts at the browser's level
		}
	default:
		m.mu.Lock()
		clients := make([]*client, 0, len(m.clients))
		for c := range m.clients {
			clients = append(clients, c)
		}
		m.mu.Unlock()
		for _, c := range clients {
			c.deliver(msg)
		}
	}
}

// attacher is the one client attaching to t, if exactly one is. The
// caller holds mu.
func (m *mux) attacher(t target.ID) *client {
	var found *client
	for _, cl := range m.calls {
		if cl.c != nil && cl.method == target.CommandAttachToTarget && cl.target == t {
			if found != nil && found != cl.c {
				return nil
			}
			found = cl.c
		}
	}
	return found
}

// sessionEvent hands a session's event to its holder. A session attached
// under it (an out-of-process frame, a worker) becomes the same holder's.
func (m *mux) sessionEvent(msg *cdproto.Message) {
	m.mu.Lock()
	s, ok := m.sessions[msg.SessionID]
	if !ok {
		m.mu.Unlock()
		return // a session just detached still sends events
	}
	switch msg.Method {
	case cdproto.EventTargetAttachedToTarget:
		var ev target.EventAttachedToTarget
		if unmarshal(msg.Params, &ev) == nil && ev.TargetInfo != nil && ev.SessionID != "" {
			m.own(ev.SessionID, session{c: s.c, target: ev.TargetInfo.TargetID, child: true})
		}
	case cdproto.EventTargetDetachedFromTarget:
		var ev target.EventDetachedFromTarget
		if unmarshal(msg.Params, &ev) == nil {
			if child, ok := m.sessions[ev.SessionID]; ok {
				m.unown(ev.SessionID, child)
			}
		}
	default:
		if s.c != nil {
			m.noteFrame(s, msg)
		}
	}
	m.mu.Unlock()
	if s.c == nil {
		m.popupEvent(msg)
		return
	}
	s.c.deliver(msg)
}

// client is one connection through the mux: a chromedp Transport.
type client struct {
	m *mux

	mu     sync.Mutex
	queue  []*cdproto.Message
	ready  chan struct{} // a message was queued
	closed chan struct{}
	once   sync.Once
}

// deliver queues a message for the client to read. A client that let
// maxQueued messages pile up is closed.
func (c *client) deliver(msg *cdproto.Message) {
	c.mu.Lock()
	if len(c.queue) >= maxQueued {
		c.mu.Unlock()
		go c.Close()
		return
	}
	c.queue = append(c.queue, msg)
	c.mu.Unlock()
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

// pending is how many messages wait for the client to read them.
func (c *client) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}

// Read is the next message for the client.
func (c *client) Read(ctx context.Context, msg *cdproto.Message) error {
	for {
		c.mu.Lock()
		if len(c.queue) > 0 {
			*msg = *c.queue[0]
			c.queue[0] = nil
			c.queue = c.queue[1:]
			c.mu.Unlock()
			return nil
		}
		c.mu.Unlock()
		select {
		case <-c.ready:
		case <-c.closed:
			return errClientGone
		case <-c.m.done:
			return c.m.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Write sends the client's command to the browser under an id of the
// mux's. A command on a session the client does not hold, or one that
// would change the mux's own policies, is answered with an error and
// not sent.
func (c *client) Write(ctx context.Context, msg *cdproto.Message) error {
	select {
	case <-c.closed:
		return errClientGone
	default:
	}
	m := c.m
	m.mu.Lock()
	if refused := m.refuse(c, msg); refused != "" {
		m.mu.Unlock()
		c.deliver(&cdproto.Message{ID: msg.ID, SessionID: msg.SessionID, Error: &cdproto.Error{Code: -32000, Message: refused}})
		return nil
	}
	m.next++
	id := m.next
	cl := call{c: c, id: msg.ID, method: msg.Method}
	if msg.Method == target.CommandAttachToTarget {
		var p struct {
			TargetID target.ID `json:"targetId"`
		}
		unmarshal(msg.Params, &p)
		cl.target = p.TargetID
	}
	m.calls[id] = cl
	m.mu.Unlock()
	out := *msg
	out.ID = id
	if err := m.tr.Write(ctx, &out); err != nil {
		m.forget(id)
		return err
	}
	return nil
}

// refuse says why c may not send msg, or "". The caller holds mu.
func (m *mux) refuse(c *client, msg *cdproto.Message) string {
	if msg.SessionID != "" {
		if s, ok := m.sessions[msg.SessionID]; !ok || s.c != c {
			return fmt.Sprintf("session %s is not this connection's", msg.SessionID)
		}
		return ""
	}
	switch msg.Method {
	case target.CommandSetAutoAttach, target.CommandAutoAttachRelated:
		if m.popups {
			return "the browser's auto-attach belongs to Rote: attach to a page's session instead"
		}
	case fetch.CommandEnable, fetch.CommandDisable, fetch.CommandContinueRequest, fetch.CommandFailRequest,
		fetch.CommandFulfillRequest, fetch.CommandContinueWithAuth, fetch.CommandContinueResponse:
		if m.popups {
			return "the browser's own request interception belongs to Rote: intercept in a page's session instead"
		}
	case target.CommandDetachFromTarget:
		var p struct {
			SessionID target.SessionID `json:"sessionId"`
		}
		if unmarshal(msg.Params, &p) == nil && p.SessionID != "" {
			if s, ok := m.sessions[p.SessionID]; !ok || s.c != c {
				return fmt.Sprintf("session %s is not this connection's", p.SessionID)
			}
		}
	}
	return ""
}

// Close ends the client's connection and detaches the sessions it
// attached (a client that went away leaves nothing attached).
func (c *client) Close() error {
	c.once.Do(func() {
		close(c.closed)
		m := c.m
		m.mu.Lock()
		delete(m.clients, c) // its calls are dropped as they are answered
		var detach []target.SessionID
		for id, s := range m.sessions {
			if s.c == c {
				m.unown(id, s)
				if !s.child {
					detach = append(detach, id)
				}
			}
		}
		m.mu.Unlock()
		if !m.alive() {
			return
		}
		for _, id := range detach {
			m.send("", target.CommandDetachFromTarget, target.DetachFromTargetParams{SessionID: id})
		}
	})
	return nil
}

// unmarshal decodes a message's params or result as chromedp does.
func unmarshal(raw []byte, v any) error {
	return jsonv2.Unmarshal(raw, v, chromedp.DefaultUnmarshalOptions)
}
