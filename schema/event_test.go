package schema_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/schema"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 123456789, time.UTC)

var inventoryEnv = schema.Environment{
	Tools:    []schema.ToolSpec{{Name: "echo", Description: "says it back", InputSchema: schema.RawJSON(`{"type":"object"}`)}},
	Identity: schema.Identity{Server: "fixture", Target: "dev"},
	Surfaces: map[string]string{"protocol": "2025-06-18", "server_version": "1.0.0"},
}

func inventoryFP(t testing.TB) string {
	fp, err := schema.Fingerprint(inventoryEnv)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

func meta(id string) schema.Meta { return schema.Meta{ID: id, Time: t0} }

func mustExpect(t testing.TB, js string) schema.Expect {
	t.Helper()
	var e schema.Expect
	if err := e.UnmarshalJSON([]byte(js)); err != nil {
		t.Fatalf("expect %s: %v", js, err)
	}
	return e
}

// sampleEvents returns one fully populated event of every type.
func sampleEvents(t testing.TB) []schema.Event {
	result := []byte(`{"content":[{"type":"text","text":"ok"}]}`)
	spec := schema.RunSpec{
		RunID: "01JRUN", Mode: schema.ModeReplay,
		Task:        schema.TaskSpec{Suite: "B2", Name: "register-vendor", Text: "register Acme", Params: map[string]string{"vendor": "Acme", "b": "2", "a": "1"}, Target: "http://127.0.0.1:8080"},
		Fingerprint: "3b5d5c3712955042212316173ccf37be800b7d1cc4d3fd8a4f2d3f7e4c1b2a90",
		Playbook:    &schema.PlaybookRef{Name: "register-vendor", Version: 3},
		Parent:      "01JPARENT",
	}
	check := schema.Check{Expect: mustExpect(t, `{"text_visible":"Saved"}`), Passed: true, Detail: "found"}
	return []schema.Event{
		&schema.TaskRequested{Meta: meta("e1"), TaskID: "t1", Task: spec.Task, Playbook: "register-vendor"},
		&schema.RunStarted{Meta: meta("e2"), RunSpec: spec},
		&schema.RunFinished{Meta: meta("e3"), Manifest: schema.Manifest{
			RunSpec: spec, Outcome: schema.OutcomeFallback,
			Reason:  &schema.Error{Code: schema.CodeFingerprint, Message: "environment changed"},
			Started: t0, Finished: t0.Add(3 * time.Second),
			Usage: []schema.SourceUsage{
				{Source: schema.SourcePlanner, Calls: 3, Tokens: schema.TokenUsage{Uncached: 100, CacheRead: 2048, CacheWrite: 1024, Output: 30}},
				{Source: schema.SourceRepair, Calls: 1, Tokens: schema.TokenUsage{Uncached: 500, Output: 20}},
			},
		}},
		&schema.ToolCall{Meta: meta("e4"), RunID: "01JRUN", Seq: 7, Tool: "browser_click", RequestID: schema.RawJSON(`7`),
			Arguments: []byte(`{"target":"e11"}`), ArgumentsDigest: schema.Digest([]byte(`{"target":"e11"}`)), ArgumentsSize: 16, Result: result, ResultDigest: schema.Digest(result), ResultSize: len(result),
			Duration: 42 * time.Millisecond, Error: &schema.CallError{Kind: schema.CallErrorTool, Message: "element detached"}},
		&schema.ToolCall{Meta: meta("e4b"), RunID: "01JRUN", Seq: 8, Tool: "browser_snapshot",
			ResultDigest: schema.Digest([]byte("big")), ResultSize: schema.InlineLimit + 1, BlobRef: schema.Digest([]byte("big")), Duration: time.Second,
			ArgumentsDigest: schema.Digest([]byte("args")), ArgumentsSize: schema.InlineLimit + 2, ArgumentsRef: schema.Digest([]byte("args"))},
		&schema.Inventory{Meta: meta("e4c"), RunID: "01JRUN", Seq: 1, Environment: inventoryEnv, Fingerprint: inventoryFP(t)},
		&schema.Unparsed{Meta: meta("e5"), RunID: "01JRUN", Seq: 9, Direction: schema.ToServer, Reason: "not JSON",
			Line: []byte("hello"), Digest: schema.Digest([]byte("hello")), Size: 5},
		&schema.BrowserObserved{Meta: meta("e6"), RunID: "01JRUN", Seq: 1, StepID: "open", URL: "http://x/", Title: "Portal",
			Kind: schema.ObservationFull, Render: "k3f9q2 button \"Save\"\n",
			Stats: schema.ObservationStats{DOMElements: 6784, Nodes: 797, Actionable: 787, Chars: 90000, Tokens: 22279, Capture: 30 * time.Millisecond, Distill: 5 * time.Millisecond}},
		&schema.BrowserAction{Meta: meta("e7"), RunID: "01JRUN", Seq: 2, StepID: "name",
			Action:     schema.Action{Kind: schema.ActFill, Target: &schema.Target{ID: "k3f9q2", Role: "textbox", Name: "Vendor", Contract: &schema.Contract{Tag: "input", InputType: "text"}}, Value: "Acme"},
			Resolution: schema.ResolvedByRoleName, SettleWait: 250 * time.Millisecond, Duration: 300 * time.Millisecond, Output: "x",
			Error: &schema.Error{Code: schema.CodeInternal, Message: "boom"}},
		&schema.LLMCall{Meta: meta("e8"), RunID: "01JRUN", StepID: "classify", Source: schema.SourceJudgment, Model: "gpt-x",
			Usage: schema.TokenUsage{Uncached: 1, CacheRead: 2, CacheWrite: 3, Output: 4}, CacheKey: "abc", Duration: time.Second, Offline: true},
		&schema.ExpectChecked{Meta: meta("e9"), RunID: "01JRUN", StepID: "open", Attempt: 2, Check: check},
		&schema.VerifyChecked{Meta: meta("e10"), RunID: "01JRUN", Checks: []schema.Check{check}, Passed: true},
		&schema.PlaybookPromoted{Meta: meta("e11"), RunID: "01JRUN", Name: "register-vendor", Fingerprint: spec.Fingerprint, Version: 1, SourceRun: "01JSRC", Document: []byte("name: x\n")},
		&schema.PlaybookPatched{Meta: meta("e12"), RunID: "01JRUN", Name: "register-vendor", Fingerprint: spec.Fingerprint, FromVersion: 1, Version: 2, StepID: "submit", Reason: "button moved", Document: []byte("name: x\n")},
		&schema.TaskRejected{Meta: meta("e13"), RunID: "task-7", TaskSeq: 7, MsgID: "req-7", Reason: schema.Error{Code: schema.CodeInvalid, Message: "no secret password: set $ROTE_SECRET_PASSWORD"}},
		&schema.MemoryChecked{Meta: meta("e14"), RunID: "01JRUN", StepID: "s2", Fingerprint: spec.Fingerprint, Kind: schema.MemoryRoutine, Name: "sign-in", Why: "expect url_contains: /dashboard did not hold"},
	}
}

func TestEventRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	for _, ev := range sampleEvents(t) {
		t.Run(ev.EventType(), func(t *testing.T) {
			data, err := schema.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			again, err := schema.Marshal(ev)
			if err != nil || string(again) != string(data) {
				t.Fatalf("encoding is not deterministic: %v", err)
			}
			got, err := schema.Unmarshal(ev.EventType(), data)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, ev) {
				t.Fatalf("round trip changed the event:\n got %#v\nwant %#v", got, ev)
			}
			if got.Subject() != ev.Subject() || got.EventID() != ev.EventID() {
				t.Fatalf("subject or id changed")
			}
		})
		seen[ev.EventType()] = true
	}
	for _, typ := range schema.EventTypes() {
		if !seen[typ] {
			t.Errorf("no round-trip sample for %s", typ)
		}
	}
}

func TestEventSubjects(t *testing.T) {
	want := map[string]string{
		schema.TypeTaskRequested:    "rote.tasks",
		schema.TypeRunStarted:       "rote.runs.01JRUN.started",
		schema.TypeRunFinished:      "rote.runs.01JRUN.finished",
		schema.TypeToolCall:         "rote.runs.01JRUN.calls",
		schema.TypeUnparsed:         "rote.runs.01JRUN.unparsed",
		schema.TypeInventory:        "rote.runs.01JRUN.inventory",
		schema.TypeBrowserObserved:  "rote.runs.01JRUN.observed",
		schema.TypeBrowserAction:    "rote.runs.01JRUN.actions",
		schema.TypeLLMCall:          "rote.runs.01JRUN.llm",
		schema.TypeExpectChecked:    "rote.runs.01JRUN.expect",
		schema.TypeVerifyChecked:    "rote.runs.01JRUN.verify",
		schema.TypePlaybookPromoted: "rote.runs.01JRUN.playbook",
		schema.TypePlaybookPatched:  "rote.runs.01JRUN.playbook",
		schema.TypeTaskRejected:     "rote.runs.task-7.rejected",
		schema.TypeMemoryChecked:    "rote.runs.01JRUN.memory",
	}
	for _, ev := range sampleEvents(t) {
		if got := ev.Subject(); got != want[ev.EventType()] {
			t.Errorf("%s: subject %q, want %q", ev.EventType(), got, want[ev.EventType()])
		}
	}
}

func TestInvalidEventsAreRejected(t *testing.T) {
	big := make([]byte, schema.InlineLimit+1)
	cases := []struct {
		name string
		ev   schema.Event
	}{
		{"no id", &schema.RunStarted{Meta: schema.Meta{Time: t0}, RunSpec: schema.RunSpec{RunID: "r", Mode: schema.ModeAgent}}},
		{"no time", &schema.RunStarted{Meta: schema.Meta{ID: "e"}, RunSpec: schema.RunSpec{RunID: "r", Mode: schema.ModeAgent}}},
		{"run id with a dot", &schema.RunStarted{Meta: meta("e"), RunSpec: schema.RunSpec{RunID: "a.b", Mode: schema.ModeAgent}}},
		{"unknown mode", &schema.RunStarted{Meta: meta("e"), RunSpec: schema.RunSpec{RunID: "r", Mode: "guess"}}},
		{"unknown outcome", &schema.RunFinished{Meta: meta("e"), Manifest: schema.Manifest{RunSpec: schema.RunSpec{RunID: "r", Mode: schema.ModeAgent}, Outcome: "maybe", Started: t0, Finished: t0}}},
		{"failure without reason", &schema.RunFinished{Meta: meta("e"), Manifest: schema.Manifest{RunSpec: schema.RunSpec{RunID: "r", Mode: schema.ModeAgent}, Outcome: schema.OutcomeFailed, Started: t0, Finished: t0}}},
		{"time runs backwards", &schema.RunFinished{Meta: meta("e"), Manifest: schema.Manifest{RunSpec: schema.RunSpec{RunID: "r", Mode: schema.ModeAgent}, Outcome: schema.OutcomeSuccess, Started: t0, Finished: t0.Add(-time.Second)}}},
		{"unsorted usage", &schema.RunFinished{Meta: meta("e"), Manifest: schema.Manifest{RunSpec: schema.RunSpec{RunID: "r", Mode: schema.ModeAgent}, Outcome: schema.OutcomeSuccess, Started: t0, Finished: t0,
			Usage: []schema.SourceUsage{{Source: schema.SourceRepair}, {Source: schema.SourcePlanner}}}}},
		{"unknown source in usage", &schema.RunFinished{Meta: meta("e"), Manifest: schema.Manifest{RunSpec: schema.RunSpec{RunID: "r", Mode: schema.ModeAgent}, Outcome: schema.OutcomeSuccess, Started: t0, Finished: t0,
			Usage: []schema.SourceUsage{{Source: "vibes"}}}}},
		{"seq zero", &schema.ToolCall{Meta: meta("e"), RunID: "r", Tool: "x", ResultDigest: schema.Digest(nil)}},
		{"no tool", &schema.ToolCall{Meta: meta("e"), RunID: "r", Seq: 1}},
		{"result digest mismatch", &schema.ToolCall{Meta: meta("e"), RunID: "r", Seq: 1, Tool: "x", Result: []byte("{}"), ResultSize: 2, ResultDigest: schema.Digest([]byte("[]"))}},
		{"result over inline limit", &schema.ToolCall{Meta: meta("e"), RunID: "r", Seq: 1, Tool: "x", Result: big, ResultSize: len(big), ResultDigest: schema.Digest(big)}},
		{"arguments without digest", &schema.ToolCall{Meta: meta("e"), RunID: "r", Seq: 1, Tool: "x", Arguments: []byte("{}"), Error: &schema.CallError{Kind: schema.CallErrorLost}}},
		{"inventory with a wrong fingerprint", &schema.Inventory{Meta: meta("e"), RunID: "r", Seq: 1, Environment: inventoryEnv, Fingerprint: strings.Repeat("0", 64)}},
		{"no result and no error", &schema.ToolCall{Meta: meta("e"), RunID: "r", Seq: 1, Tool: "x"}},
		{"blob ref is not the digest", &schema.ToolCall{Meta: meta("e"), RunID: "r", Seq: 1, Tool: "x", ResultDigest: schema.Digest(big), ResultSize: len(big), BlobRef: schema.Digest(nil)}},
		{"result meta beside an inline result", &schema.ToolCall{Meta: meta("e"), RunID: "r", Seq: 1, Tool: "x", Result: []byte("{}"), ResultSize: 2, ResultDigest: schema.Digest([]byte("{}")), ResultMeta: []byte(`{"a":1}`)}},
		{"unparsed without reason", &schema.Unparsed{Meta: meta("e"), RunID: "r", Seq: 1, Direction: schema.ToClient, Digest: schema.Digest(nil)}},
		{"unparsed bad direction", &schema.Unparsed{Meta: meta("e"), RunID: "r", Seq: 1, Direction: "sideways", Reason: "x", Digest: schema.Digest(nil)}},
		{"observation kind", &schema.BrowserObserved{Meta: meta("e"), RunID: "r", Seq: 1, Kind: "summary"}},
		{"action outside the closed set", &schema.BrowserAction{Meta: meta("e"), RunID: "r", Seq: 1, Action: schema.Action{Kind: "scroll"}}},
		{"click without target", &schema.BrowserAction{Meta: meta("e"), RunID: "r", Seq: 1, Action: schema.Action{Kind: schema.ActClick}}},
		{"llm call with unknown source", &schema.LLMCall{Meta: meta("e"), RunID: "r", Source: "misc", Model: "m", Usage: schema.TokenUsage{Output: 1}}},
		{"llm call with zero usage", &schema.LLMCall{Meta: meta("e"), RunID: "r", Source: schema.SourcePlanner, Model: "m"}},
		{"llm call with negative usage", &schema.LLMCall{Meta: meta("e"), RunID: "r", Source: schema.SourcePlanner, Model: "m", Usage: schema.TokenUsage{Output: 5, CacheRead: -1}}},
		{"verify passed with no checks", &schema.VerifyChecked{Meta: meta("e"), RunID: "r", Passed: true}},
		{"verify passed with a failed check", &schema.VerifyChecked{Meta: meta("e"), RunID: "r", Passed: true, Checks: []schema.Check{{Expect: mustExpect(t, `{"url_contains":"/x"}`)}}}},
		{"expect attempt zero", &schema.ExpectChecked{Meta: meta("e"), RunID: "r", StepID: "s", Check: schema.Check{Expect: mustExpect(t, `{"url_contains":"/x"}`)}}},
		{"promoted bad fingerprint", &schema.PlaybookPromoted{Meta: meta("e"), RunID: "r", Name: "p", Fingerprint: "xyz", Version: 1, Document: []byte("x")}},
		{"patched version does not advance", &schema.PlaybookPatched{Meta: meta("e"), RunID: "r", Name: "p", Fingerprint: "3b5d5c3712955042212316173ccf37be800b7d1cc4d3fd8a4f2d3f7e4c1b2a90", FromVersion: 2, Version: 2, StepID: "s", Reason: "r", Document: []byte("x")}},
		{"task without text", &schema.TaskRequested{Meta: meta("e"), TaskID: "t"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := schema.Marshal(c.ev)
			if !errors.Is(err, schema.ErrInvalid) && !errors.Is(err, schema.ErrOutOfSet) {
				t.Fatalf("Marshal accepted an invalid event (err %v)", err)
			}
		})
	}
}

func TestUnmarshalRejectsGarbage(t *testing.T) {
	if _, err := schema.Unmarshal("no.such.v1", []byte{0x80}); !errors.Is(err, schema.ErrInvalid) {
		t.Fatalf("unknown type: %v", err)
	}
	if _, err := schema.Unmarshal(schema.TypeToolCall, []byte{0xc1, 0x00}); !errors.Is(err, schema.ErrInvalid) {
		t.Fatalf("garbage bytes: %v", err)
	}
	// A well-formed msgpack map that decodes to an invalid event.
	if _, err := schema.Unmarshal(schema.TypeToolCall, []byte{0x80}); !errors.Is(err, schema.ErrInvalid) {
		t.Fatalf("empty event: %v", err)
	}
}

func TestTallySumsBySource(t *testing.T) {
	calls := []*schema.LLMCall{
		{Source: schema.SourceRepair, Usage: schema.TokenUsage{Uncached: 10, Output: 1}},
		{Source: schema.SourcePlanner, Usage: schema.TokenUsage{Uncached: 5, CacheRead: 1024, Output: 2}},
		{Source: schema.SourcePlanner, Usage: schema.TokenUsage{CacheWrite: 7, Output: 3}},
	}
	got := schema.Tally(calls)
	want := []schema.SourceUsage{
		{Source: schema.SourcePlanner, Calls: 2, Tokens: schema.TokenUsage{Uncached: 5, CacheRead: 1024, CacheWrite: 7, Output: 5}},
		{Source: schema.SourceRepair, Calls: 1, Tokens: schema.TokenUsage{Uncached: 10, Output: 1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Tally = %+v, want %+v", got, want)
	}
	if got[0].Tokens.Logical() != 5+1024+7+5 {
		t.Fatalf("Logical = %d", got[0].Tokens.Logical())
	}
}

func TestErrorIsComparesCode(t *testing.T) {
	err := schema.Errorf(schema.CodeFingerprint, "playbook bound to %s", "abc")
	if !errors.Is(err, schema.ErrFingerprint) || errors.Is(err, schema.ErrInvalid) {
		t.Fatalf("errors.Is does not compare codes: %v", err)
	}
	if err.Error() != "fingerprint: playbook bound to abc" {
		t.Fatalf("Error() = %q", err.Error())
	}
}

func TestUnmarshalGivesUTC(t *testing.T) {
	saved := time.Local
	time.Local = time.FixedZone("UTC+5", 5*3600)
	defer func() { time.Local = saved }()
	for _, ev := range sampleEvents(t) {
		data, err := schema.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		got, err := schema.Unmarshal(ev.EventType(), data)
		if err != nil {
			t.Fatal(err)
		}
		if loc := got.EventTime().Location(); loc != time.UTC {
			t.Fatalf("%s decoded in %v", ev.EventType(), loc)
		}
		if !reflect.DeepEqual(got, ev) {
			t.Fatalf("%s: a nested time is not UTC after decoding", ev.EventType())
		}
	}
}

func TestAsError(t *testing.T) {
	base := schema.Errorf(schema.CodeNotFound, "no button")
	if got := schema.AsError(base); got != base {
		t.Fatal("an *Error is not returned as is")
	}
	wrapped := fmt.Errorf("step 3: %w", base)
	if got := schema.AsError(wrapped); got.Code != schema.CodeNotFound || got.Message != wrapped.Error() {
		t.Fatalf("wrapped: %+v", got)
	}
	if got := schema.AsError(errors.New("disk full")); got.Code != schema.CodeInternal || got.Message != "disk full" {
		t.Fatalf("plain: %+v", got)
	}
}

// TestSpillKeepsTheResultMeta: a result too large to travel inline goes to
// the blob store, and its _meta, which says what the server wants a
// distiller to know, stays in the event.
func TestSpillKeepsTheResultMeta(t *testing.T) {
	result := []byte(`{"content":[{"type":"text","text":"` + strings.Repeat("x", schema.InlineLimit) + `"}],"_meta":{"rote/control":{"id":"b1","role":"button","name":"Trash"}}}`)
	c := &schema.ToolCall{Meta: meta("e"), RunID: "r", Seq: 1, Tool: "click", Result: result, ResultSize: len(result), ResultDigest: schema.Digest(result)}
	blobs := schema.Spill(c)
	if len(blobs) != 1 || len(c.Result) != 0 || c.BlobRef == "" {
		t.Fatalf("spilled %d blobs, result %d bytes, ref %q", len(blobs), len(c.Result), c.BlobRef)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := string(c.ResultMetaOf()["rote/control"]); got != `{"id":"b1","role":"button","name":"Trash"}` {
		t.Errorf("control kept beside the blob: %s", got)
	}
}
