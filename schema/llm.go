package schema

import "time"

// LLMCall records one model call and what it cost. A call without usage
// from the API is never recorded as zero; the client fails instead.
type LLMCall struct {
	Meta     `msgpack:",inline"`
	RunID    string        `msgpack:"run_id" json:"run_id"`
	StepID   string        `msgpack:"step_id,omitempty" json:"step_id,omitempty"`
	Source   Source        `msgpack:"source" json:"source"`
	Model    string        `msgpack:"model" json:"model"`
	Usage    TokenUsage    `msgpack:"usage" json:"usage"`
	CacheKey string        `msgpack:"cache_key,omitempty" json:"cache_key,omitempty"` // SHA-256 of the immutable prefix
	Duration time.Duration `msgpack:"duration" json:"duration"`
	// Offline marks the scripted offline test model, which every output
	// that used it must say.
	Offline bool `msgpack:"offline,omitempty" json:"offline,omitempty"`
}

// EventType returns TypeLLMCall.
func (*LLMCall) EventType() string { return TypeLLMCall }

// Subject returns rote.runs.<run_id>.llm.
func (e *LLMCall) Subject() string { return RunSubject(e.RunID, KindLLM) }

// Validate checks identity, the source tag, the model and the usage.
func (e *LLMCall) Validate() error {
	if err := e.Meta.validateInRun(TypeLLMCall, e.RunID); err != nil {
		return err
	}
	if err := e.Source.Validate(); err != nil {
		return within(TypeLLMCall, err)
	}
	if e.Model == "" {
		return Errorf(CodeInvalid, "%s: missing model", TypeLLMCall)
	}
	if e.Usage.Logical() == 0 {
		return Errorf(CodeInvalid, "%s: usage is all zero; a model call always costs tokens", TypeLLMCall)
	}
	return within(TypeLLMCall, e.Usage.validate())
}

// OfflineModelLabel is the system fingerprint of the offline scripted test
// model, and how every output that used it names it.
const OfflineModelLabel = "scripted model (offline)"
