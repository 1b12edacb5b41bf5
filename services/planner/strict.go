package planner

import (
	"encoding/json"
	"log/slog"
	"maps"
	"strings"
	"sync"
)

// Not every OpenAI-compatible server takes every field of a chat request:
// some answer 400 to a field they do not know (prompt_cache_key,
// parallel_tool_calls) or to max_completion_tokens where they still read
// max_tokens. A 400 that names such a field is answered once by sending
// the request again without it (max_completion_tokens as max_tokens),
// and the endpoint is remembered for the process, so that later calls
// leave it out from the start. It is said once on stderr, per endpoint
// and field. A 400 that names none of them is the caller's to see.

// optionalFields are the fields a request may go without; a field mapped
// to another name is sent under that name instead.
var optionalFields = map[string]string{
	"prompt_cache_key":      "",
	"parallel_tool_calls":   "",
	"max_completion_tokens": "max_tokens",
}

// refusals are the optional fields each endpoint refused.
var refusals = struct {
	mu     sync.Mutex
	fields map[string]map[string]bool // endpoint → field
}{fields: map[string]map[string]bool{}}

// refusedBy returns the fields endpoint refused before.
func refusedBy(endpoint string) map[string]bool {
	refusals.mu.Lock()
	defer refusals.mu.Unlock()
	return maps.Clone(refusals.fields[endpoint])
}

// namedIn returns the optional fields body sends that a 400's message
// names, and remembers them as refused by endpoint (saying so on log the
// first time).
func namedIn(endpoint string, body map[string]json.RawMessage, message string, log *slog.Logger) []string {
	var named []string
	for f := range optionalFields {
		if _, sent := body[f]; sent && strings.Contains(message, f) {
			named = append(named, f)
		}
	}
	refusals.mu.Lock()
	defer refusals.mu.Unlock()
	for _, f := range named {
		if refusals.fields[endpoint] == nil {
			refusals.fields[endpoint] = map[string]bool{}
		}
		if !refusals.fields[endpoint][f] {
			refusals.fields[endpoint][f] = true
			log.Warn("the model endpoint refused a request field; sending without it from now on", "endpoint", endpoint, "field", f, "instead", optionalFields[f])
		}
	}
	return named
}

// without rewrites body without fields: each dropped, or sent under the
// name it maps to.
func without(body map[string]json.RawMessage, fields map[string]bool) {
	for f := range fields {
		v, ok := body[f]
		if !ok {
			continue
		}
		delete(body, f)
		if to := optionalFields[f]; to != "" {
			if _, taken := body[to]; !taken {
				body[to] = v
			}
		}
	}
}
