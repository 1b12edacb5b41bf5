package node

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/services/planner"
)

// Model is the language model a node's planner asks, and how outputs
// name it.
type Model struct {
	LLM *planner.LLM
	// Label names the model for people: the model at its endpoint, or
	// the offline scripted model's label.
	Label string
}

// OfflineModel returns the offline test model, used only when
// ROTE_LLM_BASE_URL is unset.
type OfflineModel func() (*Offline, error)

// Offline is a test model served in process.
type Offline struct {
	// Handler serves the OpenAI chat completions API under /v1.
	Handler http.Handler
	// Model is the model name requests ask for.
	Model string
	// Label is how every output that used it must name it.
	Label string
}

// ErrNoModel means a planner has no model to ask: ROTE_LLM_BASE_URL is
// unset and this build has no offline model.
var ErrNoModel = errors.New("no model: set ROTE_LLM_BASE_URL (and ROTE_LLM_API_KEY, ROTE_MODEL); this build has no offline scripted model")

// openModel returns the model ROTE_LLM_* names, else the offline model
// called in this process. Every call is recorded in runs.
func openModel(offline OfflineModel, runs *bus.RunLog, log *slog.Logger) (*Model, error) {
	if cfg, ok := planner.LLMConfigFromEnv(); ok {
		cfg.Log = log
		llm := planner.NewLLM(cfg, runs)
		return &Model{LLM: llm, Label: llm.Model() + " at " + cfg.BaseURL}, nil
	}
	if offline == nil {
		return nil, ErrNoModel
	}
	o, err := offline()
	if err != nil {
		return nil, err
	}
	// Called in this process: no port that any local user could reach.
	llm := planner.NewLLM(planner.LLMConfig{BaseURL: offlineBase + "/v1", APIKey: "offline", Model: o.Model, Log: log, Transport: inProcess{o.Handler}}, runs)
	return &Model{LLM: llm, Label: o.Label + ", ROTE_LLM_BASE_URL unset"}, nil
}

// offlineBase is the offline model's address: no host serves it, its
// requests never leave the process.
const offlineBase = "http://offline-model.invalid"

// inProcess is a RoundTripper that serves each request with h, in this
// process.
type inProcess struct{ h http.Handler }

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	w := httptest.NewRecorder()
	t.h.ServeHTTP(w, req)
	if req.Body != nil {
		req.Body.Close()
	}
	return w.Result(), nil
}
