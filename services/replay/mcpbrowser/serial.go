package mcpbrowser

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/rote-agent/rote/schema"
)

// MaxLine is the longest line the browser server reads: a longer one is
// answered with a parse error and skipped, never buffered whole.
const MaxLine = 4 << 20

// serial sits between the client's stream and the MCP SDK. A browser is
// one page: tool calls must run one at a time, in the order the client
// sent them, while the SDK runs every request as soon as it is read. So
// serial hands the SDK a tools/call only once the previous one has been
// answered (a client that pipelines calls gets them done in its order;
// a notification queued behind a waiting call waits with it). A line that
// is not JSON is answered with a JSON-RPC parse error and skipped, where
// the SDK would end the session.
type serial struct {
	in *bufio.Reader

	mu       sync.Mutex
	out      io.Writer
	inFlight string        // the id of the call being handled, "" for none
	idle     chan struct{} // closed when inFlight is answered
	pending  []byte        // the rest of the line the SDK is reading
	err      error         // the input's end, after pending
}

func newSerial(in io.Reader, out io.Writer) *serial {
	return &serial{in: bufio.NewReaderSize(in, 64<<10), out: out}
}

// Read hands the SDK the client's lines, one tools/call at a time.
func (s *serial) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		line, err := s.readLine()
		if err != nil {
			s.err = err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		id, call, code, bad := classify(line)
		if bad != "" {
			s.reply(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, cmp.Or(id, "null"), code, bad))
			continue
		}
		if call {
			s.waitIdle()
			s.mu.Lock()
			s.inFlight, s.idle = id, make(chan struct{})
			s.mu.Unlock()
		}
		s.pending = line
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// readLine reads one line, newline included; a line over MaxLine is read
// to its end and returned as a bare "{" so that it is refused as JSON.
func (s *serial) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.in.ReadSlice('\n')
		if len(line)+len(chunk) > MaxLine {
			line = []byte("{") // refused below, without keeping the bytes
		} else {
			line = append(line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// classify reports a message's id and whether it is a tools/call, or
// why the line is no JSON-RPC message the server takes, with the
// JSON-RPC error code to answer it with: a line that is not JSON is a
// parse error; a batch (which MCP dropped after 2025-03-26), an id that
// is neither a string nor an integer, and a message that is neither a
// request (a method named by a string, params an object when present)
// nor a response (result or error) are invalid requests. The SDK would
// leave those unanswered or end the session over them.
func classify(line []byte) (id string, call bool, code int, bad string) {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if !json.Valid(trimmed) {
			return "", false, codeParse, "parse error: not JSON"
		}
		return "", false, codeInvalidRequest, "batches are not supported: send one message per line"
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &m); err != nil || m == nil {
		return "", false, codeParse, "parse error: not a JSON object"
	}
	rawID, hasID := m["id"]
	if hasID {
		if len(rawID) == 0 || !validID(rawID) {
			return "", false, codeInvalidRequest, "an id must be a string or an integer that fits 64 bits, not " + schema.Clip(string(rawID), 40)
		}
		id = canonicalID(rawID)
	}
	var method string
	rawMethod, isRequest := m["method"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	params, hasParams := m["params"]
	switch {
	case string(m["jsonrpc"]) != `"2.0"`:
		return id, false, codeInvalidRequest, `jsonrpc must be "2.0"`
	case isRequest && json.Unmarshal(rawMethod, &method) != nil:
		return id, false, codeInvalidRequest, "method must be a string"
	case isRequest && hasParams && (len(params) == 0 || params[0] != '{'):
		return id, false, codeInvalidRequest, "params must be an object"
	case !isRequest && (!hasID || hasResult == hasError):
		return id, false, codeInvalidRequest, "neither a request (method) nor a response (id with result or error)"
	}
	return id, method == "tools/call" && hasID, 0, ""
}

// validID reports whether a request id is one the SDK takes: a string,
// or an integer within int64 (it ends the session over any other).
func validID(raw json.RawMessage) bool {
	if raw[0] == '"' {
		return true
	}
	_, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil
}

// JSON-RPC error codes the server answers lines with itself.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
)

// canonicalID spells an id the same way whoever encoded it: 1 and 1.0,
// "a" and "\u0061" are one id.
func canonicalID(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// callPatience bounds the wait for a call's answer before the next call
// goes in anyway: every action is bounded well within it, so only a
// request the SDK dropped unanswered would need it.
const callPatience = 5 * time.Minute

// waitIdle waits until the call in flight, if any, has been answered.
func (s *serial) waitIdle() {
	s.mu.Lock()
	idle := s.idle
	busy := s.inFlight != ""
	s.mu.Unlock()
	if busy {
		select {
		case <-idle:
		case <-time.After(callPatience):
		}
	}
}

// Write passes the SDK's messages to the client and notices the answer
// to the call in flight.
func (s *serial) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.out.Write(p)
	if s.inFlight != "" {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(p, &m) == nil && m.Method == "" && canonicalID(m.ID) == s.inFlight {
			s.inFlight = ""
			close(s.idle)
		}
	}
	return n, err
}

// reply writes a message of the server's own.
func (s *serial) reply(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintln(s.out, msg)
}

// Close releases a reader waiting for an answer that will not come.
func (s *serial) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight != "" {
		s.inFlight = ""
		close(s.idle)
	}
	return nil
}
