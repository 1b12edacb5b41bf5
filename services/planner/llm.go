package planner

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// LLMConfig says which OpenAI-compatible endpoint to use.
type LLMConfig struct {
	BaseURL string // e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1
	APIKey  string
	Model   string
	// Timeout bounds one attempt; default 60 s.
	Timeout time.Duration
	// Attempts bounds the tries of a call that timed out, was rate
	// limited or met a server error; default 4.
	Attempts int
	// Backoff is the first wait between attempts, doubled each time and
	// capped at 8 s; default 250 ms.
	Backoff time.Duration
	// Log hears about retried calls; default slog.Default().
	Log *slog.Logger
	// Transport carries the requests; default http.DefaultTransport. An
	// in-process model is called through one, with no socket to listen
	// on.
	Transport http.RoundTripper
}

// LLMConfigFromEnv reads ROTE_LLM_BASE_URL, ROTE_LLM_API_KEY and
// ROTE_MODEL. ok is false when no base URL is set.
func LLMConfigFromEnv() (cfg LLMConfig, ok bool) {
	cfg = LLMConfig{BaseURL: os.Getenv("ROTE_LLM_BASE_URL"), APIKey: os.Getenv("ROTE_LLM_API_KEY"), Model: os.Getenv("ROTE_MODEL")}
	return cfg, cfg.BaseURL != ""
}

// LLM calls a chat model and records every call as llm.call.v1 with its
// source tag and its token usage as the API reported it.
type LLM struct {
	cfg  LLMConfig
	api  *openai.Client
	runs *bus.RunLog
	log  *slog.Logger
}

// NewLLM returns a client for cfg that records every call in runs.
func NewLLM(cfg LLMConfig, runs *bus.RunLog) *LLM {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = 4
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 250 * time.Millisecond
	}
	if cfg.Model == "" {
		cfg.Model = "gpt-4o-mini"
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = cfg.BaseURL
	log := cmp.Or(cfg.Log, slog.Default()).With("component", "llm", "model", cfg.Model)
	oc.HTTPClient = wire{next: &http.Client{Transport: cfg.Transport}, log: log}
	return &LLM{cfg: cfg, api: openai.NewClientWithConfig(oc), runs: runs, log: log}
}

// Model returns the model name requests ask for.
func (l *LLM) Model() string { return l.cfg.Model }

// Call is one model call.
type Call struct {
	RunID, StepID string
	Source        schema.Source
	Messages      []openai.ChatCompletionMessage
	Tools         []openai.Tool
	MaxTokens     int
	CacheKey      string // sent as prompt_cache_key
}

// Reply is a model's answer and what it cost.
type Reply struct {
	Content  string
	ToolCall *openai.FunctionCall
	Event    *schema.LLMCall // as recorded
}

// Complete makes the call, retrying timeouts, rate limits and server
// errors with bounded backoff, and records it. A response without token
// usage is an error (CodeInvalid): a missing count is never a zero.
func (l *LLM) Complete(ctx context.Context, c Call) (*Reply, error) {
	req := openai.ChatCompletionRequest{Model: l.cfg.Model, Messages: c.Messages, Tools: c.Tools, MaxCompletionTokens: c.MaxTokens}
	if len(c.Tools) > 0 {
		req.ToolChoice = "required"
		req.ParallelToolCalls = false
	}
	start := time.Now()
	var resp openai.ChatCompletionResponse
	var cap capture
	wait := l.cfg.Backoff
	for attempt := 1; ; attempt++ {
		cap = capture{cacheKey: c.CacheKey}
		actx, cancel := context.WithTimeout(context.WithValue(ctx, captureKey{}, &cap), l.cfg.Timeout)
		var err error
		resp, err = l.api.CreateChatCompletion(actx, req)
		cancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !transient(err) || attempt >= l.cfg.Attempts {
			return nil, schema.Errorf(schema.CodeUnavailable, "model %s at %s (%s, attempt %d): %v", l.cfg.Model, l.cfg.BaseURL, c.Source, attempt, err)
		}
		l.log.Warn("model call failed, trying again", "run", c.RunID, "step", c.StepID, "source", c.Source, "attempt", attempt, "wait", wait, "err", err)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		wait = min(2*wait, 8*time.Second)
	}
	usage, err := cap.usage()
	if err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 {
		return nil, schema.Errorf(schema.CodeInvalid, "model %s answered with no choice", l.cfg.Model)
	}
	msg := resp.Choices[0].Message
	rep := &Reply{Content: msg.Content}
	if len(msg.ToolCalls) > 0 {
		fc := msg.ToolCalls[0].Function
		rep.ToolCall = &fc
	}
	rep.Event = &schema.LLMCall{Meta: schema.Meta{ID: bus.NewID(), Time: start}, RunID: c.RunID, StepID: c.StepID, Source: c.Source,
		Model: resp.Model, Usage: usage, CacheKey: c.CacheKey, Duration: time.Since(start), Offline: resp.SystemFingerprint == schema.OfflineModelLabel}
	if rep.Event.Model == "" {
		rep.Event.Model = l.cfg.Model
	}
	if _, err := l.runs.Publish(ctx, rep.Event); err != nil {
		return nil, err
	}
	return rep, nil
}

// transient errors may pass on another attempt.
func transient(err error) bool {
	var api *openai.APIError
	if errors.As(err, &api) {
		return api.HTTPStatusCode == http.StatusTooManyRequests || api.HTTPStatusCode >= 500
	}
	var req *openai.RequestError
	if errors.As(err, &req) {
		return req.HTTPStatusCode == http.StatusTooManyRequests || req.HTTPStatusCode >= 500
	}
	var nerr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &nerr) || errors.Is(err, io.ErrUnexpectedEOF)
}

type captureKey struct{}

// capture carries one attempt's prompt cache key to the wire and the raw
// usage object back from it: go-openai's types have no field for either
// prompt_cache_key or cache_write_tokens.
type capture struct {
	cacheKey string
	raw      json.RawMessage
}

// usage splits the reported usage into uncached, cache-read, cache-write
// and output tokens.
func (c *capture) usage() (schema.TokenUsage, error) {
	var u struct {
		PromptTokens     *int64 `json:"prompt_tokens"`
		CompletionTokens *int64 `json:"completion_tokens"`
		Details          struct {
			Cached int64 `json:"cached_tokens"`
			Write  int64 `json:"cache_write_tokens"`
		} `json:"prompt_tokens_details"`
	}
	if len(c.raw) == 0 || string(c.raw) == "null" || json.Unmarshal(c.raw, &u) != nil || u.PromptTokens == nil || u.CompletionTokens == nil {
		return schema.TokenUsage{}, schema.Errorf(schema.CodeInvalid, "the model's response reports no token usage: a missing count is an error, never a zero")
	}
	uncached := *u.PromptTokens - u.Details.Cached - u.Details.Write
	if uncached < 0 {
		return schema.TokenUsage{}, schema.Errorf(schema.CodeInvalid, "the model's usage is inconsistent: %d prompt tokens, %d cached, %d written", *u.PromptTokens, u.Details.Cached, u.Details.Write)
	}
	return schema.TokenUsage{Uncached: uncached, CacheRead: u.Details.Cached, CacheWrite: u.Details.Write, Output: *u.CompletionTokens}, nil
}

// maxModelReply bounds a model's HTTP reply, read before it is decoded.
const maxModelReply = 16 << 20

// maxRefusal bounds the body of a 400 read for the fields it names.
const maxRefusal = 64 << 10

// wire is the HTTP client under go-openai: it adds prompt_cache_key to
// chat requests, leaves out the fields the endpoint refused (strict.go)
// and keeps the raw usage of their responses.
type wire struct {
	next *http.Client
	log  *slog.Logger
}

func (w wire) Do(req *http.Request) (*http.Response, error) {
	cap, _ := req.Context().Value(captureKey{}).(*capture)
	if cap == nil || req.Body == nil {
		resp, err := w.next.Do(req)
		if err == nil {
			// Cut at the bound: what go-openai decodes then fails to parse.
			resp.Body = struct {
				io.Reader
				io.Closer
			}{io.LimitReader(resp.Body, maxModelReply), resp.Body}
		}
		return resp, err
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		fields = nil // not ours to rewrite: sent as it is
	}
	if fields != nil && cap.cacheKey != "" {
		fields["prompt_cache_key"], _ = json.Marshal(cap.cacheKey)
	}
	endpoint := req.URL.Scheme + "://" + req.URL.Host + req.URL.Path
	send := func() (*http.Response, error) {
		if fields != nil {
			without(fields, refusedBy(endpoint))
			body, _ = json.Marshal(fields)
		}
		again := req.Clone(req.Context())
		again.Body = io.NopCloser(bytes.NewReader(body))
		again.ContentLength = int64(len(body))
		return w.next.Do(again)
	}
	resp, err := send()
	// Each 400 that names a field the request still sends is answered by
	// one retry without it (a strict server names one field at a time);
	// one that names none is the caller's.
	for range optionalFields {
		if err != nil || resp.StatusCode != http.StatusBadRequest || fields == nil {
			break
		}
		message, _ := io.ReadAll(io.LimitReader(resp.Body, maxRefusal))
		resp.Body.Close()
		if len(namedIn(endpoint, fields, string(message), w.log)) == 0 {
			resp.Body = io.NopCloser(bytes.NewReader(message))
			break
		}
		resp, err = send()
	}
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxModelReply+1))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(data) > maxModelReply {
		return nil, schema.Errorf(schema.CodeTooLarge, "the model's reply is larger than %d MiB", maxModelReply>>20)
	}
	var top struct {
		Usage json.RawMessage `json:"usage"`
	}
	if json.Unmarshal(data, &top) == nil {
		cap.raw = top.Usage
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return resp, nil
}
