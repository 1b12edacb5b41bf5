package node

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

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
	stop  func()
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
// served on loopback in this process. Every call is recorded in runs.
func openModel(offline OfflineModel, runs *bus.RunLog, log *slog.Logger) (*Model, error) {
	if cfg, ok := planner.LLMConfigFromEnv(); ok {
		cfg.Log = log
		llm := planner.NewLLM(cfg, runs)
		return &Model{LLM: llm, Label: llm.Model() + " at " + cfg.BaseURL, stop: func() {}}, nil
	}
	if offline == nil {
		return nil, ErrNoModel
	}
	o, err := offline()
	if err != nil {
		return nil, err
	}
	base, stop, err := serveLoopback(o.Handler)
	if err != nil {
		return nil, err
	}
	llm := planner.NewLLM(planner.LLMConfig{BaseURL: base + "/v1", APIKey: "offline", Model: o.Model, Log: log}, runs)
	return &Model{LLM: llm, Label: o.Label + ", ROTE_LLM_BASE_URL unset", stop: stop}, nil
}

// serveLoopback serves h on a free loopback port until stop is called,
// and returns its base URL.
func serveLoopback(h http.Handler) (base string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}
