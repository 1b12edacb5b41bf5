package replay_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/services/replay"
)

func entry(t *testing.T, name, doc string) bus.PlaybookEntry {
	t.Helper()
	p, err := schema.DecodePlaybook([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	p.Name = name
	out, err := schema.EncodePlaybook(p)
	if err != nil {
		t.Fatal(err)
	}
	return bus.PlaybookEntry{Fingerprint: fp, Name: name, Stored: schema.StoredPlaybook{Version: 3, Document: out}}
}

// TestPlaybookTools: a playbook's tool is named apart from the server's
// tools and from the other playbooks', describes its intent and its
// verify gate, and takes its parameters, typed, as the input schema.
func TestPlaybookTools(t *testing.T) {
	typed := strings.Replace(playbook, "  password: {type: secret, required: true}",
		"  password: {type: secret, required: true}\n  count: {type: number}\n  urgent: {type: bool}\n  tier: {type: enum, enum: [gold, silver]}", 1)
	typed = strings.Replace(typed, `args: {value: "{{company}}"}`, `args: {value: "{{company}} {{count}} {{urgent}} {{tier}}"}`, 1)
	tools := replay.PlaybookTools([]bus.PlaybookEntry{entry(t, "register", typed), entry(t, "register", playbook), entry(t, "taken", playbook)},
		[]schema.ToolSpec{{Name: "rote_taken"}})
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Spec.Name)
	}
	if got := strings.Join(names, ","); got != "rote_register,rote_register_2,rote_taken_2" {
		t.Fatalf("tool names: %s", got)
	}
	d := tools[0].Spec.Description
	if !strings.Contains(d, "register {{company}}") || !strings.Contains(d, `Verifies: text_visible "Vendor {{company}} registered"`) || !strings.Contains(d, "v3") {
		t.Errorf("description: %s", d)
	}
	var s struct {
		Properties map[string]struct {
			Type        string   `json:"type"`
			Enum        []string `json:"enum"`
			Description string   `json:"description"`
		} `json:"properties"`
		Required   []string `json:"required"`
		Additional bool     `json:"additionalProperties"`
	}
	if err := json.Unmarshal(tools[0].Spec.InputSchema, &s); err != nil {
		t.Fatal(err)
	}
	p := s.Properties
	if p["company"].Type != "string" || p["count"].Type != "number" || p["urgent"].Type != "boolean" || strings.Join(p["tier"].Enum, ",") != "gold,silver" ||
		!strings.Contains(p["password"].Description, "never stored") || strings.Join(s.Required, ",") != "company,password" || s.Additional {
		t.Errorf("input schema: %s", tools[0].Spec.InputSchema)
	}

	got, err := tools[0].Params(json.RawMessage(`{"company":"Initech","count":2.5,"urgent":true,"tier":"gold"}`))
	if err != nil || got["count"] != "2.5" || got["urgent"] != "true" || got["company"] != "Initech" {
		t.Errorf("params: %v %v", got, err)
	}
	for _, bad := range []string{`{"company":{"x":1}}`, `{"company":null}`, `[1]`, `"x"`, `{"company":42}`, `{"count":"2"}`, `{"urgent":"true"}`, `{"tier":1}`} {
		if _, err := tools[0].Params(json.RawMessage(bad)); schema.AsError(err).Code != schema.CodeParamType {
			t.Errorf("%s: %v, want param_type", bad, err)
		}
	}
	if got, err := tools[0].Params(nil); err != nil || len(got) != 0 {
		t.Errorf("no arguments: %v %v", got, err)
	}
}

// TestToolResult: a verified success says what it verified; a stop says
// where, why and what was done, as an error result; a replay that never
// started says nothing was done.
func TestToolResult(t *testing.T) {
	tool := replay.PlaybookTool{Playbook: &schema.Playbook{Name: "register"}}
	text := func(r *mcp.CallToolResult) string { return r.Content[0].(*mcp.TextContent).Text }
	ok := replay.ToolResult(tool, &schema.ReplayResult{Outcome: schema.OutcomeSuccess, RunID: "r1", Playbook: schema.PlaybookRef{Name: "register", Version: 2},
		Completed: []string{"a", "b"}, Duration: 1234 * time.Millisecond, Answer: "42",
		Verify: []schema.Check{{Expect: schema.Expect{Op: schema.OpTextVisible, Arg: "Saved"}, Passed: true}}}, nil)
	if ok.IsError || !strings.Contains(text(ok), `done and verified (text_visible "Saved") in 2 step(s)`) || !strings.Contains(text(ok), "Read: 42") || !strings.Contains(text(ok), "Run r1") {
		t.Errorf("success: %q", text(ok))
	}
	stop := replay.ToolResult(tool, &schema.ReplayResult{Outcome: schema.OutcomeFallback, RunID: "r2", Playbook: schema.PlaybookRef{Name: "register", Version: 2},
		Completed: []string{"open", "sign-in"}, FailedStep: "company", Reason: schema.Errorf(schema.CodeContractChanged, "the form posts elsewhere")}, nil)
	for _, want := range []string{"stopped (fallback) at step company", "contract_changed: the form posts elsewhere", "Steps done, whose effects happened: open, sign-in", "carry on"} {
		if !stop.IsError || !strings.Contains(text(stop), want) {
			t.Errorf("stop: want %q in %q", want, text(stop))
		}
	}
	if s := stop.StructuredContent.(map[string]any); s["failed_step"] != "company" || s["outcome"] != schema.OutcomeFallback {
		t.Errorf("stop structured: %v", s)
	}
	never := replay.ToolResult(tool, nil, schema.Errorf(schema.CodeUnknownParam, "unknown parameter nickname"))
	if !never.IsError || !strings.Contains(text(never), "unknown_param") || !strings.Contains(text(never), "Nothing was done") {
		t.Errorf("not started: %q", text(never))
	}
}
