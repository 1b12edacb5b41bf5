package planner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/rote-agent/rote/schema"
)

// TestCaptureUsage splits a response's usage into uncached, cache-read,
// cache-write and output tokens; a missing or inconsistent count is an
// error, never a zero.
func TestCaptureUsage(t *testing.T) {
	cases := []struct {
		raw  string
		want schema.TokenUsage
		err  bool
	}{
		{`{"prompt_tokens":100,"completion_tokens":7}`, schema.TokenUsage{Uncached: 100, Output: 7}, false},
		{`{"prompt_tokens":100,"completion_tokens":7,"prompt_tokens_details":{"cached_tokens":40,"cache_write_tokens":50}}`, schema.TokenUsage{Uncached: 10, CacheRead: 40, CacheWrite: 50, Output: 7}, false},
		{`{"prompt_tokens":0,"completion_tokens":0}`, schema.TokenUsage{}, false},
		{`{"prompt_tokens":100}`, schema.TokenUsage{}, true},
		{`{"completion_tokens":7}`, schema.TokenUsage{}, true},
		{`{"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":11}}`, schema.TokenUsage{}, true},
		{`null`, schema.TokenUsage{}, true},
		{``, schema.TokenUsage{}, true},
		{`"lots"`, schema.TokenUsage{}, true},
	}
	for _, c := range cases {
		got, err := (&capture{raw: json.RawMessage(c.raw)}).usage()
		if c.err {
			if !errors.Is(err, schema.ErrInvalid) {
				t.Errorf("%s: %+v (%v), want invalid", c.raw, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %+v (%v), want %+v", c.raw, got, err, c.want)
		}
	}
}

// TestTransient: rate limits, server errors, timeouts and broken
// connections may pass on another attempt; a refused request may not.
func TestTransient(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"rate limited", &openai.APIError{HTTPStatusCode: http.StatusTooManyRequests}, true},
		{"a server error", &openai.APIError{HTTPStatusCode: http.StatusBadGateway}, true},
		{"a bad request", &openai.APIError{HTTPStatusCode: http.StatusBadRequest}, false},
		{"unauthorized", &openai.APIError{HTTPStatusCode: http.StatusUnauthorized}, false},
		{"an unreadable 503", &openai.RequestError{HTTPStatusCode: http.StatusServiceUnavailable}, true},
		{"an unreadable 404", &openai.RequestError{HTTPStatusCode: http.StatusNotFound}, false},
		{"a timeout", fmt.Errorf("post: %w", context.DeadlineExceeded), true},
		{"a refused connection", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, true},
		{"a cut reply", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{"cancelled", context.Canceled, false},
		{"anything else", errors.New("bad json"), false},
	}
	for _, c := range cases {
		if got := transient(c.err); got != c.want {
			t.Errorf("%s: transient %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCompleteSendsAndRecords: a call with tools requires one tool call
// and no parallel ones, sends its cache key as prompt_cache_key and its
// bound as max_completion_tokens, and is recorded with its source, the
// usage the response reported and whether the offline model answered.
func TestCompleteSendsAndRecords(t *testing.T) {
	llm, m, b := cannedLLM(t, cannedAnswer{tool: "click", args: `{"target":"a1"}`, offlineSystem: true})
	rep, err := llm.Complete(context.Background(), Call{RunID: "r1", StepID: "s3", Source: schema.SourcePlanner, MaxTokens: 512, CacheKey: "k1",
		Tools: functionTools(agentTools()), Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "Go"}}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ToolCall == nil || rep.ToolCall.Name != "click" || rep.ToolCall.Arguments != `{"target":"a1"}` {
		t.Errorf("tool call %+v", rep.ToolCall)
	}
	req := m.sent()[0]
	for field, want := range map[string]string{"prompt_cache_key": `"k1"`, "tool_choice": `"required"`, "parallel_tool_calls": "false", "max_completion_tokens": "512", "model": `"canned"`} {
		if got := string(req[field]); got != want {
			t.Errorf("sent %s %s, want %s", field, got, want)
		}
	}
	calls := recordedCalls(t, b, "r1")
	want := schema.TokenUsage{Uncached: 60, CacheRead: 40, Output: 7}
	if len(calls) != 1 || calls[0].Source != schema.SourcePlanner || calls[0].StepID != "s3" || calls[0].Usage != want || calls[0].CacheKey != "k1" || !calls[0].Offline || calls[0].Model != "canned-1" {
		t.Fatalf("recorded %+v", calls)
	}
	if rep.Event.Usage != want {
		t.Errorf("reply usage %+v", rep.Event.Usage)
	}
}

// TestCompleteRefusesWhatItCannotCount: an answer without usage, or
// without a choice, is an error and nothing is recorded; a call without
// tools asks for none.
func TestCompleteRefusesWhatItCannotCount(t *testing.T) {
	llm, m, b := cannedLLM(t, cannedAnswer{content: "Billing", usage: "-"}, cannedAnswer{body: `{"id":"x","object":"chat.completion","model":"m","choices":[],"usage":` + cannedUsage + `}`, status: http.StatusOK})
	ask := func() error {
		_, err := llm.Complete(context.Background(), Call{RunID: "r2", Source: schema.SourceSlot, Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "Which?"}}})
		return err
	}
	if err := ask(); !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), "no token usage") {
		t.Errorf("no usage: %v", err)
	}
	if err := ask(); !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), "no choice") {
		t.Errorf("no choice: %v", err)
	}
	if _, sent := m.sent()[0]["tool_choice"]; sent {
		t.Error("a call without tools asked for a tool call")
	}
	if calls := recordedCalls(t, b, "r2"); len(calls) != 0 {
		t.Errorf("recorded %d calls the model could not be counted for", len(calls))
	}
}

// TestWireLeavesOutRefusedFields: a 400 naming a field the request sends
// is answered by sending it again without that field (max_completion_tokens
// as max_tokens); the endpoint's next request leaves it out from the
// start; a 400 naming none is the caller's.
func TestWireLeavesOutRefusedFields(t *testing.T) {
	refuse := func(field string) cannedAnswer {
		return cannedAnswer{status: http.StatusBadRequest, body: `{"error":{"message":"Unrecognized request argument supplied: ` + field + `","type":"invalid_request_error"}}`}
	}
	llm, m, _ := cannedLLM(t, refuse("parallel_tool_calls"), refuse("max_completion_tokens"), cannedAnswer{content: "ok"}, cannedAnswer{content: "ok"},
		cannedAnswer{status: http.StatusBadRequest, body: `{"error":{"message":"messages: too long","type":"invalid_request_error"}}`})
	call := Call{RunID: "r3", Source: schema.SourcePlanner, MaxTokens: 64, Tools: functionTools(agentTools()),
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "Go"}}}
	if _, err := llm.Complete(context.Background(), call); err != nil {
		t.Fatalf("a strict endpoint: %v", err)
	}
	sent := m.sent()
	if len(sent) != 3 {
		t.Fatalf("%d requests, want the first and one per field refused", len(sent))
	}
	if _, ok := sent[1]["parallel_tool_calls"]; ok {
		t.Error("sent again with the field refused")
	}
	if _, ok := sent[2]["max_completion_tokens"]; ok || string(sent[2]["max_tokens"]) != "64" {
		t.Errorf("max_completion_tokens not sent as max_tokens: %s", sent[2]["max_tokens"])
	}
	if _, err := llm.Complete(context.Background(), call); err != nil {
		t.Fatal(err)
	}
	if next := m.sent()[3]; next["parallel_tool_calls"] != nil || next["max_completion_tokens"] != nil || string(next["max_tokens"]) != "64" {
		t.Errorf("the endpoint's next request sent what it refused: %v", next)
	}
	_, err := llm.Complete(context.Background(), call)
	if err == nil || !strings.Contains(err.Error(), "messages: too long") || len(m.sent()) != 5 {
		t.Errorf("a 400 naming no field: %v after %d requests", err, len(m.sent()))
	}
}
