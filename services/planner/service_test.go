package planner

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
)

// cannedService is a planner service whose model gives answers.
func cannedService(t *testing.T, answers ...cannedAnswer) (*Service, *cannedModel, func(runID string) []*schema.LLMCall) {
	t.Helper()
	llm, m, b := cannedLLM(t, answers...)
	s, err := New(Config{Log: slog.New(slog.DiscardHandler)}, nil, llm)
	if err != nil {
		t.Fatal(err)
	}
	return s, m, func(runID string) []*schema.LLMCall { return recordedCalls(t, b, runID) }
}

func TestNewNeedsAModel(t *testing.T) {
	if _, err := New(Config{}, nil, nil); err == nil {
		t.Error("a planner without a model")
	}
}

// TestJudgmentAndSlot: one bounded call each, tagged with its source,
// whose prompt holds the question, the options and the page, and whose
// answer is read out of any code fence around it.
func TestJudgmentAndSlot(t *testing.T) {
	s, m, calls := cannedService(t, cannedAnswer{content: "```\nsilver\n```"}, cannedAnswer{content: "  RPT-2026-11\n"})
	ctx := context.Background()
	if _, err := s.judgment(ctx, &schema.JudgmentRequest{RunID: "r1", StepID: "tier", Prompt: "Which tier?"}); !errors.Is(err, schema.ErrInvalid) || len(m.sent()) != 0 {
		t.Fatalf("a judgment without options: %v after %d calls", err, len(m.sent()))
	}
	got, err := s.judgment(ctx, &schema.JudgmentRequest{RunID: "r1", StepID: "tier", Prompt: "Which\ntier  is it?", Options: []string{"gold", "silver"}, Page: `a1 text "Tier: Silver"`})
	if err != nil || got.Value != "silver" || got.Usage.Logical() == 0 {
		t.Fatalf("judgment %+v (%v)", got, err)
	}
	prompt := m.prompt(t, 0)
	for _, want := range []string{"Question: Which tier is it?", "Options: gold | silver", "Page:\na1 text \"Tier: Silver\"", "exactly one of a fixed set"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the judgment prompt does not hold %q:\n%s", want, prompt)
		}
	}
	if string(m.sent()[0]["max_completion_tokens"]) != "64" {
		t.Errorf("an unbounded judgment asked for %s tokens, want the default 64", m.sent()[0]["max_completion_tokens"])
	}
	got, err = s.slot(ctx, &schema.SlotRequest{RunID: "r1", StepID: "report", Prompt: "The newest report's id", MaxTokens: 16, Page: "…"})
	if err != nil || got.Value != "RPT-2026-11" || string(m.sent()[1]["max_completion_tokens"]) != "16" {
		t.Fatalf("slot %+v (%v)", got, err)
	}
	recorded := calls("r1")
	if len(recorded) != 2 || recorded[0].Source != schema.SourceJudgment || recorded[0].StepID != "tier" || recorded[1].Source != schema.SourceSlot {
		t.Errorf("recorded %+v", recorded)
	}
}

// TestBindReadsAnObjectOfStrings: the matcher's binding is one JSON
// object of strings, fenced or not; anything else is invalid.
func TestBindReadsAnObjectOfStrings(t *testing.T) {
	cases := []struct {
		name   string
		answer string
		want   map[string]string
		err    bool
	}{
		{"an object", `{"company": "Initech", "city": "Lyon"}`, map[string]string{"company": "Initech", "city": "Lyon"}, false},
		{"fenced", "```json\n{\"company\": \"Initech\"}\n```", map[string]string{"company": "Initech"}, false},
		{"a name left out", `{}`, map[string]string{}, false},
		{"prose", "company: Initech", nil, true},
		{"a number", `{"count": 3}`, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, m, calls := cannedService(t, cannedAnswer{content: c.answer})
			got, err := s.bind(context.Background(), &schema.BindRequest{RunID: "r1", Task: "Register Initech in Lyon", Intent: "register {{company}} in {{city}}", Names: []string{"company", "city"}})
			if c.err {
				if !errors.Is(err, schema.ErrInvalid) {
					t.Fatalf("%+v (%v), want invalid", got, err)
				}
				return
			}
			if err != nil || !maps.Equal(got.Values, c.want) || got.Choice != 0 || got.Usage.Logical() == 0 {
				t.Fatalf("%+v (%v), want %v", got, err, c.want)
			}
			if p := m.prompt(t, 0); !strings.Contains(p, "Intent: register {{company}} in {{city}}") || !strings.Contains(p, "Bind: company, city") {
				t.Errorf("prompt:\n%s", p)
			}
			if rec := calls("r1"); len(rec) != 1 || rec[0].Source != schema.SourceMatcher || rec[0].StepID != "match" {
				t.Errorf("recorded %+v", rec)
			}
		})
	}
}

// TestChooseAmongIntents: with choices, the answer names one of them by
// number (0: none) with its values; a number out of range or an answer
// that is no such object is invalid, and a prompt over the bound is
// refused before any call.
func TestChooseAmongIntents(t *testing.T) {
	choices := []string{"register {{company}}", "delete {{company}}"}
	cases := []struct {
		name   string
		answer string
		choice int
		values map[string]string
		err    error
	}{
		{"the second", `{"choice": 2, "values": {"company": "Initech"}}`, 2, map[string]string{"company": "Initech"}, nil},
		{"none", `{"choice": 0}`, 0, nil, nil},
		{"out of range", `{"choice": 3, "values": {}}`, 0, nil, schema.ErrInvalid},
		{"negative", `{"choice": -1}`, 0, nil, schema.ErrInvalid},
		{"prose", "The second one.", 0, nil, schema.ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, m, _ := cannedService(t, cannedAnswer{content: c.answer})
			got, err := s.bind(context.Background(), &schema.BindRequest{RunID: "r1", Task: "Remove Initech", Choices: choices})
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("%+v (%v), want %v", got, err, c.err)
				}
				return
			}
			if err != nil || got.Choice != c.choice || !maps.Equal(got.Values, c.values) {
				t.Fatalf("%+v (%v)", got, err)
			}
			if p := m.prompt(t, 0); !strings.Contains(p, "Playbooks:\n1. register {{company}}\n2. delete {{company}}\n") {
				t.Errorf("prompt:\n%s", p)
			}
		})
	}
	s, m, _ := cannedService(t, cannedAnswer{content: `{"choice": 1}`})
	_, err := s.bind(context.Background(), &schema.BindRequest{RunID: "r1", Task: strings.Repeat("long task ", 120), Choices: choices})
	if !errors.Is(err, schema.ErrTooLarge) || len(m.sent()) != 0 {
		t.Errorf("a choice over the bound: %v after %d calls", err, len(m.sent()))
	}
}

// TestRepairHandler: one call tagged repair, shown the intent, the failed
// step, why it failed and the page; an obscured step's answer clears the
// way and asserts nothing of the step's; a model that declines is
// repair_unavailable.
func TestRepairHandler(t *testing.T) {
	step := schema.Step{ID: "save", Kind: schema.StepDeterministic, Tool: "click", Target: &schema.Target{Role: "button", Name: "Save"},
		Expect: []schema.Expect{{Op: schema.OpTextVisible, Arg: "Saved"}}}
	page := "page \"Vendor\" http://shop.test/v\na3 button \"Save vendor\"\na9 button \"Accept cookies\""
	cases := []struct {
		name    string
		failure schema.Code
		answer  cannedAnswer
		want    schema.Step
		clears  bool
		err     error
	}{
		{"renamed", schema.CodeNotFound, cannedAnswer{tool: "click", args: `{"target":"a3"}`},
			schema.Step{ID: "save", Kind: schema.StepDeterministic, Tool: "click", Target: &schema.Target{Role: "button", Name: "Save vendor"}, Expect: step.Expect}, false, nil},
		{"covered", schema.CodeObscured, cannedAnswer{tool: "click", args: `{"target":"a9"}`},
			schema.Step{ID: "save-clear", Kind: schema.StepDeterministic, Tool: "click", Target: &schema.Target{Role: "button", Name: "Accept cookies"}}, true, nil},
		{"declined", schema.CodeNotFound, cannedAnswer{tool: "fail", args: `{"reason":"the form is gone"}`}, schema.Step{}, false, schema.ErrRepairUnavailable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, m, calls := cannedService(t, c.answer)
			got, err := s.repair(context.Background(), &schema.RepairRequest{RunID: "r1", Intent: "register\n{{company}}", Step: step,
				Failure: schema.Error{Code: c.failure, Message: `no element is button "Save"`}, Page: page})
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("%+v (%v), want %v", got, err, c.err)
				}
				return
			}
			if err != nil || got.Clears != c.clears || got.Usage.Logical() == 0 || got.Step.ID != c.want.ID || got.Step.Tool != c.want.Tool ||
				*got.Step.Target != *c.want.Target || len(got.Step.Expect) != len(c.want.Expect) {
				t.Fatalf("%+v (%v), want %+v clears %v", got, err, c.want, c.clears)
			}
			prompt := m.prompt(t, 0)
			for _, want := range []string{"Intent: register {{company}}", "Failed step: save", "expect: text_visible \"Saved\"", "Failure: " + string(c.failure) + `: no element is button "Save"`, "a9 button \"Accept cookies\""} {
				if !strings.Contains(prompt, want) {
					t.Errorf("the repair prompt does not hold %q:\n%s", want, prompt)
				}
			}
			if rec := calls("r1"); len(rec) != 1 || rec[0].Source != schema.SourceRepair || rec[0].StepID != "save" {
				t.Errorf("recorded %+v", rec)
			}
		})
	}
}
