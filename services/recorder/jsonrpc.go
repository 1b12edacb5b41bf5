package recorder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// msgKind classifies a JSON-RPC 2.0 message.
type msgKind int

const (
	kindRequest msgKind = iota + 1
	kindNotification
	kindResponse
)

// message is one JSON-RPC 2.0 message as it came over the wire. Raw
// fields keep the exact bytes the peer sent.
type message struct {
	kind   msgKind
	id     json.RawMessage // as sent: 7, "7" and 7.0 are different ids
	method string
	params json.RawMessage
	result json.RawMessage
	err    json.RawMessage
}

// idKey returns the correlation key of a message id: its JSON text.
func (m message) idKey() string { return string(bytes.TrimSpace(m.id)) }

type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// parseLine reads one newline-delimited frame. It returns the messages
// it holds (several for a batch) and, for anything that is not valid
// JSON-RPC 2.0, a reason. A batch with some bad elements yields both.
func parseLine(line []byte) ([]message, string) {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return nil, "empty line"
	}
	if trimmed[0] == '[' {
		var elems []json.RawMessage
		if err := json.Unmarshal(trimmed, &elems); err != nil {
			return nil, "not JSON: " + err.Error()
		}
		if len(elems) == 0 {
			return nil, "empty JSON-RPC batch"
		}
		var msgs []message
		var bad []string
		for i, e := range elems {
			m, reason := parseMessage(e)
			if reason != "" {
				bad = append(bad, fmt.Sprintf("batch element %d: %s", i, reason))
				continue
			}
			msgs = append(msgs, m)
		}
		if len(bad) > 0 {
			return msgs, strings.Join(bad, "; ")
		}
		return msgs, ""
	}
	m, reason := parseMessage(trimmed)
	if reason != "" {
		return nil, reason
	}
	return []message{m}, ""
}

func parseMessage(raw []byte) (message, string) {
	if !json.Valid(raw) {
		var probe any
		err := json.Unmarshal(raw, &probe)
		return message{}, "not JSON: " + err.Error()
	}
	var w wireMessage
	if err := json.Unmarshal(raw, &w); err != nil {
		return message{}, "not a JSON-RPC object: " + err.Error()
	}
	if w.JSONRPC != "2.0" {
		return message{}, fmt.Sprintf("not JSON-RPC 2.0 (jsonrpc is %q)", w.JSONRPC)
	}
	hasID := len(w.ID) > 0 && string(bytes.TrimSpace(w.ID)) != "null"
	switch {
	case w.Method != "" && hasID:
		return message{kind: kindRequest, id: w.ID, method: w.Method, params: w.Params}, ""
	case w.Method != "" && len(w.ID) == 0:
		return message{kind: kindNotification, method: w.Method, params: w.Params}, ""
	case w.Method == "" && (len(w.Result) > 0 || len(w.Error) > 0) && len(w.ID) > 0:
		return message{kind: kindResponse, id: w.ID, result: w.Result, err: w.Error}, ""
	}
	return message{}, "neither a request, a notification nor a response"
}
