package planner

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
)

// cannedAnswer is one answer of a cannedModel: a chat completion with
// content and at most one tool call, or, with status, an HTTP error
// whose body is body.
type cannedAnswer struct {
	status        int
	body          string
	content       string
	tool, args    string
	usage         string // the response's usage object; "" a default, "-" none
	offlineSystem bool   // answered as the scripted offline model
}

// cannedUsage is the usage of a cannedAnswer that says none.
const cannedUsage = `{"prompt_tokens":100,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":40}}`

func (a cannedAnswer) response() string {
	msg := map[string]any{"role": "assistant", "content": a.content}
	if a.tool != "" {
		msg["tool_calls"] = []any{map[string]any{"id": "call-1", "type": "function", "function": map[string]any{"name": a.tool, "arguments": a.args}}}
	}
	resp := map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": "canned-1",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}}}
	if a.usage != "-" {
		resp["usage"] = json.RawMessage(cmp.Or(a.usage, cannedUsage))
	}
	if a.offlineSystem {
		resp["system_fingerprint"] = schema.OfflineModelLabel
	}
	b, _ := json.Marshal(resp)
	return string(b)
}

// cannedModel is an OpenAI-compatible chat endpoint in memory, the
// transport under an LLM: each request gets the next of its answers
// (the last again once they run out), and every request's body is kept.
type cannedModel struct {
	mu       sync.Mutex
	answers  []cannedAnswer
	requests []map[string]json.RawMessage
}

func (m *cannedModel) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(body, &fields)
	m.mu.Lock()
	m.requests = append(m.requests, fields)
	a := m.answers[min(len(m.requests), len(m.answers))-1]
	m.mu.Unlock()
	text := a.body
	if a.status == 0 {
		text = a.response()
	}
	return &http.Response{StatusCode: cmp.Or(a.status, http.StatusOK), Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(text)), Request: req}, nil
}

// sent returns the requests so far.
func (m *cannedModel) sent() []map[string]json.RawMessage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]json.RawMessage(nil), m.requests...)
}

// prompt is the text of every message of request i.
func (m *cannedModel) prompt(t *testing.T, i int) string {
	t.Helper()
	var msgs []struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(m.sent()[i]["messages"], &msgs); err != nil {
		t.Fatalf("request %d: messages: %v", i, err)
	}
	var b strings.Builder
	for _, msg := range msgs {
		b.WriteString(msg.Content + "\n")
	}
	return b.String()
}

// cannedLLM is an LLM that asks a cannedModel with answers, recording
// its calls on a bus of its own. Its endpoint is new, so that what an
// endpoint refused (strict.go, remembered for the process) stays with
// one test, however often it runs.
func cannedLLM(t *testing.T, answers ...cannedAnswer) (*LLM, *cannedModel, *bus.Bus) {
	t.Helper()
	b := bustest.Start(t)
	m := &cannedModel{answers: answers}
	llm := NewLLM(LLMConfig{BaseURL: "http://model.test/" + bus.NewID() + "/v1", Model: "canned", Attempts: 3,
		Backoff: time.Millisecond, Transport: m, Log: slog.New(slog.DiscardHandler)}, b.Runs())
	return llm, m, b
}

// recordedCalls are the llm.call.v1 events of run runID.
func recordedCalls(t *testing.T, b *bus.Bus, runID string) []*schema.LLMCall {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	envs, err := b.Runs().Read(ctx, schema.RunSubject(runID, schema.KindLLM))
	if err != nil {
		t.Fatal(err)
	}
	var out []*schema.LLMCall
	for _, e := range envs {
		if c, ok := e.Event.(*schema.LLMCall); ok {
			out = append(out, c)
		}
	}
	return out
}
