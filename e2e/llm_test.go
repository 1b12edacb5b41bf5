package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/rote-agent/rote/bench/scripted"
	"github.com/rote-agent/rote/bench/scripted/scriptedtest"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/bus/bustest"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/planner"
)

// offlineLLM is a model client for the scripted model answering with
// oracle over real HTTP, recording on b.
func offlineLLM(t testing.TB, b *bus.Bus, oracle scripted.Oracle) (*planner.LLM, *scripted.Server) {
	t.Helper()
	base, srv := scriptedtest.Start(t, oracle)
	return planner.NewLLM(planner.LLMConfig{BaseURL: base, APIKey: "offline", Model: scripted.ModelName, Backoff: 10 * time.Millisecond}, b.Runs()), srv
}

func echoOracle() scripted.Oracle {
	return scripted.OracleFunc(func(r scripted.Request) (scripted.Answer, error) {
		return scripted.Answer{Call: &scripted.Call{Name: "done", Arguments: `{"reason":"ok"}`}}, nil
	})
}

// longPrompt is a conversation of well over 1,024 tokens.
func longPrompt(tail string) []openai.ChatCompletionMessage {
	return []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: strings.Repeat("You operate a browser; answer with one tool call. ", 120)},
		{Role: openai.ChatMessageRoleUser, Content: tail},
	}
}

// TestLLMOverHTTP: go-openai talks to the offline model over real HTTP;
// the usage it reports is split into uncached, cache-read, cache-write and
// output tokens by the providers' rules (nothing below 1,024 tokens,
// 128-token steps, per cache key), and every call is recorded as an
// llm.call.v1 marked offline.
func TestLLMOverHTTP(t *testing.T) {
	t.Parallel()
	b := bustest.Start(t)
	llm, _ := offlineLLM(t, b, echoOracle())
	ctx := testContext(t)
	call := func(key, tail string) schema.TokenUsage {
		rep, err := llm.Complete(ctx, planner.Call{RunID: "run-llm", StepID: "s1", Source: schema.SourcePlanner, Messages: longPrompt(tail), CacheKey: key})
		if err != nil {
			t.Fatal(err)
		}
		if rep.ToolCall == nil || rep.ToolCall.Name != "done" || !rep.Event.Offline {
			t.Fatalf("reply %+v", rep)
		}
		return rep.Event.Usage
	}
	first := call("k1", "page one")
	if first.CacheRead != 0 || first.CacheWrite < scripted.MinCachedTokens || first.CacheWrite%scripted.CacheStep != 0 || first.Output == 0 {
		t.Fatalf("first call %+v: want a cache write of the cacheable prefix, no read", first)
	}
	second := call("k1", "page two, which differs")
	if second.CacheRead < scripted.MinCachedTokens || second.CacheRead > first.CacheWrite {
		t.Fatalf("second call %+v: want the shared prefix read from the cache", second)
	}
	prompt := func(u schema.TokenUsage) int64 { return u.Uncached + u.CacheRead + u.CacheWrite }
	if prompt(second) < prompt(first) {
		t.Fatalf("prompt tokens %d then %d", prompt(first), prompt(second))
	}
	if other := call("k2", "page two, which differs"); other.CacheRead != 0 {
		t.Fatalf("another cache key read %d cached tokens", other.CacheRead)
	}
	if short := call("k3", ""); short.CacheRead != 0 {
		t.Fatalf("short prompt: %+v", short)
	}
	calls, _ := runLog(t, b, "run-llm")
	if len(calls) != 4 || calls[1].Usage != second || calls[1].CacheKey != "k1" || calls[1].Source != schema.SourcePlanner {
		t.Fatalf("recorded %d calls: %+v", len(calls), calls)
	}
}

// TestLLMBacksOff: rate limits and server errors are retried with bounded
// backoff; when they outlast the attempts the call fails, typed.
func TestLLMBacksOff(t *testing.T) {
	t.Parallel()
	b := bustest.Start(t)
	llm, srv := offlineLLM(t, b, echoOracle())
	srv.FailNext(http.StatusTooManyRequests, http.StatusServiceUnavailable)
	if _, err := llm.Complete(testContext(t), planner.Call{RunID: "run-backoff", Source: schema.SourcePlanner, Messages: longPrompt("x")}); err != nil {
		t.Fatalf("two transient failures then success: %v", err)
	}
	srv.FailNext(429, 429, 429, 429)
	_, err := llm.Complete(testContext(t), planner.Call{RunID: "run-backoff", Source: schema.SourcePlanner, Messages: longPrompt("x")})
	if !errors.Is(err, schema.ErrUnavailable) || !strings.Contains(err.Error(), "attempt 4") {
		t.Fatalf("four rate limits: %v", err)
	}
	srv.FailNext(http.StatusBadRequest)
	if _, err := llm.Complete(testContext(t), planner.Call{RunID: "run-backoff", Source: schema.SourcePlanner, Messages: longPrompt("x")}); !strings.Contains(err.Error(), "attempt 1") {
		t.Fatalf("a 400 is not retried: %v", err)
	}
}

// TestLLMMissingUsageIsAnError: a response without token usage is an
// error, never a zero count, and nothing is recorded for it.
func TestLLMMissingUsageIsAnError(t *testing.T) {
	t.Parallel()
	b := bustest.Start(t)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Billing"},"finish_reason":"stop"}]}`))
	}))
	t.Cleanup(hs.Close)
	llm := planner.NewLLM(planner.LLMConfig{BaseURL: hs.URL + "/v1", Model: "m", Timeout: 5 * time.Second}, b.Runs())
	_, err := llm.Complete(context.Background(), planner.Call{RunID: "run-nousage", Source: schema.SourceJudgment, Messages: longPrompt("x")})
	if !errors.Is(err, schema.ErrInvalid) || !strings.Contains(err.Error(), "no token usage") {
		t.Fatalf("missing usage: %v", err)
	}
	if envs, err := b.Runs().ReadRun(testContext(t), "run-nousage"); !errors.Is(err, bus.ErrRunNotFound) {
		t.Fatalf("recorded %d events (%v) for a call without usage", len(envs), err)
	}
}

// strictModel is a chat endpoint that refuses, with a 400 naming it, any
// request carrying one of the fields it does not know, as some
// OpenAI-compatible servers do, one field at a time; it records the
// fields of every request it got.
func strictModel(t *testing.T, refuses ...string) (url string, got func() [][]string) {
	var mu sync.Mutex
	var requests [][]string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		requests = append(requests, slices.Sorted(maps.Keys(body)))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		for _, f := range refuses {
			if _, ok := body[f]; ok {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"error":{"message":"Unrecognized request argument supplied: %s","type":"invalid_request_error","param":null,"code":null}}`, f)
				return
			}
		}
		w.Write([]byte(`{"id":"x","object":"chat.completion","model":"strict","choices":[{"index":0,"message":{"role":"assistant","content":"Billing"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":1}}`))
	}))
	t.Cleanup(hs.Close)
	return hs.URL + "/v1", func() [][]string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(requests)
	}
}

// TestLLMOnAStrictServer: a server that refuses prompt_cache_key,
// parallel_tool_calls and max_completion_tokens, one at a time, gets a
// retry without each field it named (max_completion_tokens sent as
// max_tokens), and the endpoint is remembered: the next call leaves them
// out from its first request. A 400 naming no such field is not retried.
func TestLLMOnAStrictServer(t *testing.T) {
	t.Parallel()
	b := bustest.Start(t)
	url, requests := strictModel(t, "prompt_cache_key", "max_completion_tokens", "parallel_tool_calls")
	llm := planner.NewLLM(planner.LLMConfig{BaseURL: url, Model: "strict", Timeout: 5 * time.Second}, b.Runs())
	tools := []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "done", Parameters: json.RawMessage(`{"type":"object"}`)}}}
	call := planner.Call{RunID: "run-strict", Source: schema.SourcePlanner, Messages: longPrompt("x"), Tools: tools, MaxTokens: 64, CacheKey: "k1"}
	rep, err := llm.Complete(testContext(t), call)
	if err != nil || rep.Content != "Billing" {
		t.Fatalf("a strict server: %+v, %v (requests %q)", rep, err, requests())
	}
	first := requests()
	if len(first) != 4 {
		t.Fatalf("want 4 requests (3 refusals, 1 answer), got %q", first)
	}
	last := first[len(first)-1]
	for _, f := range []string{"prompt_cache_key", "max_completion_tokens", "parallel_tool_calls"} {
		if slices.Contains(last, f) {
			t.Errorf("the accepted request still sent %s: %q", f, last)
		}
	}
	if !slices.Contains(last, "max_tokens") {
		t.Errorf("the accepted request has no max_tokens in place of max_completion_tokens: %q", last)
	}
	if _, err := llm.Complete(testContext(t), call); err != nil {
		t.Fatal(err)
	}
	if all := requests(); len(all) != 5 || !slices.Equal(all[4], last) {
		t.Errorf("the second call was not sent as the endpoint takes it at once: %q", all[len(first):])
	}

	// A server that refuses something else: its 400 is the caller's.
	other, _ := strictModel(t, "messages")
	llm = planner.NewLLM(planner.LLMConfig{BaseURL: other, Model: "strict", Timeout: 5 * time.Second}, b.Runs())
	if _, err := llm.Complete(testContext(t), call); err == nil || !strings.Contains(err.Error(), "attempt 1") || !strings.Contains(err.Error(), "messages") {
		t.Errorf("a 400 naming no optional field: %v", err)
	}
}
