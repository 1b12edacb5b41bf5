package scripted

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// ModelName is the model the server says it is.
const ModelName = "rote-scripted"

// maxRequest bounds a request body.
const maxRequest = 8 << 20

// Server is the offline model's HTTP handler: POST /v1/chat/completions
// and GET /v1/models, as OpenAI serves them.
type Server struct {
	oracle Oracle
	cache  promptCache
	seq    atomic.Int64

	latency Latency

	mu       sync.Mutex
	failures []int // statuses to answer the next requests with, in order
}

// SetLatency makes every answer take as long as l says; set it before
// serving.
func (s *Server) SetLatency(l Latency) { s.latency = l }

// NewServer returns a server whose answers come from o.
func NewServer(o Oracle) *Server { return &Server{oracle: o} }

// FailNext makes the next len(statuses) chat requests fail with those HTTP
// statuses (429 comes with Retry-After: 0), to exercise a client's
// backoff.
func (s *Server) FailNext(statuses ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, statuses...)
}

// ServeHTTP routes the two endpoints; anything else is 404.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/v1/models" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []map[string]any{{"id": ModelName, "object": "model", "owned_by": Label}}})
	case r.URL.Path == "/v1/chat/completions" && r.Method == http.MethodPost:
		s.complete(w, r)
	default:
		writeError(w, http.StatusNotFound, "not_found", fmt.Sprintf("%s %s: this server answers POST /v1/chat/completions and GET /v1/models", r.Method, r.URL.Path))
	}
}

// cacheKeyField is the one request field go-openai's type does not carry.
type cacheKeyField struct {
	PromptCacheKey string `json:"prompt_cache_key"`
}

func (s *Server) complete(w http.ResponseWriter, r *http.Request) {
	if status, ok := s.injected(); ok {
		w.Header().Set("Retry-After", "0")
		writeError(w, status, "injected", fmt.Sprintf("injected failure %d", status))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequest))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("request over %d bytes", maxRequest))
			return
		}
		writeError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	var req openai.ChatCompletionRequest
	var key cacheKeyField
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "body is not a chat completion request: "+err.Error())
		return
	}
	_ = json.Unmarshal(body, &key)
	if len(req.Messages) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request", "messages is empty")
		return
	}
	if req.Stream {
		writeError(w, http.StatusBadRequest, "invalid_request", "streaming is not supported by the scripted model")
		return
	}
	//lint:ignore SA1019 older clients still send max_tokens, and the server honours either
	oreq := Request{MaxTokens: max(req.MaxCompletionTokens, req.MaxTokens)}
	for _, t := range req.Tools {
		if t.Function != nil {
			oreq.Tools = append(oreq.Tools, t.Function.Name)
		}
	}
	for _, m := range req.Messages {
		oreq.Messages = append(oreq.Messages, Message{Role: m.Role, Content: messageText(m)})
	}
	ans, err := s.oracle.Answer(oreq)
	if err != nil {
		ans = Answer{Content: "I cannot answer that: " + err.Error()}
	}
	prompt := encode(promptText(&req))
	read, write := s.cache.account(key.PromptCacheKey, prompt)
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: ans.Content}
	outText := ans.Content
	finish := openai.FinishReasonStop
	if ans.Call != nil {
		msg.ToolCalls = []openai.ToolCall{{ID: "call_" + strconv.FormatInt(s.seq.Add(1), 10), Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: ans.Call.Name, Arguments: ans.Call.Arguments}}}
		outText = ans.Call.Name + ans.Call.Arguments
		finish = openai.FinishReasonToolCalls
	}
	output := len(encode(outText))
	if oreq.MaxTokens > 0 && output > oreq.MaxTokens {
		msg.Content, msg.ToolCalls, output, finish = truncate(outText, oreq.MaxTokens), nil, oreq.MaxTokens, openai.FinishReasonLength
	}
	if d := s.latency.For(len(prompt)-read, output); d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	model := req.Model
	if model == "" {
		model = ModelName
	}
	writeJSON(w, http.StatusOK, completion{
		ID: "chatcmpl-scripted-" + strconv.FormatInt(s.seq.Add(1), 10), Object: "chat.completion", Created: time.Now().Unix(),
		Model: model, SystemFingerprint: Label,
		Choices: []openai.ChatCompletionChoice{{Index: 0, Message: msg, FinishReason: finish}},
		Usage: usage{PromptTokens: len(prompt), CompletionTokens: output, TotalTokens: len(prompt) + output,
			PromptTokensDetails: promptDetails{CachedTokens: read, CacheWriteTokens: write}},
	})
}

// truncate keeps the first n tokens of s.
func truncate(s string, n int) string {
	ids := encode(s)
	if len(ids) <= n {
		return s
	}
	out := make([]uint, n)
	for i := range n {
		out[i] = uint(ids[i])
	}
	text, err := codec.Decode(out)
	if err != nil {
		return ""
	}
	return text
}

func (s *Server) injected() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.failures) == 0 {
		return 0, false
	}
	status := s.failures[0]
	s.failures = s.failures[1:]
	return status, true
}

// completion is OpenAI's chat.completion object, with the usage
// extension some providers send: prompt_tokens_details.cache_write_tokens.
type completion struct {
	ID                string                        `json:"id"`
	Object            string                        `json:"object"`
	Created           int64                         `json:"created"`
	Model             string                        `json:"model"`
	SystemFingerprint string                        `json:"system_fingerprint"`
	Choices           []openai.ChatCompletionChoice `json:"choices"`
	Usage             usage                         `json:"usage"`
}

type usage struct {
	PromptTokens        int           `json:"prompt_tokens"`
	CompletionTokens    int           `json:"completion_tokens"`
	TotalTokens         int           `json:"total_tokens"`
	PromptTokensDetails promptDetails `json:"prompt_tokens_details"`
}

type promptDetails struct {
	CachedTokens     int `json:"cached_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers in OpenAI's error shape.
func writeError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": message, "type": code, "code": code}})
}
