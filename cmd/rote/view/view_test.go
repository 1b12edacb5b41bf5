package view_test

import (
	"strings"
	"testing"
	"time"

	"github.com/rote-agent/rote/cmd/rote/runlog"
	"github.com/rote-agent/rote/cmd/rote/view"
	"github.com/rote-agent/rote/schema"
)

func TestReplayResult(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  schema.ReplayResult
		want []string
	}{
		{"a verified success", schema.ReplayResult{RunID: "r1", Outcome: schema.OutcomeSuccess, Duration: 1234 * time.Millisecond, Answer: "two\nlines",
			Usage: []schema.SourceUsage{{Source: "repair", Calls: 1, Tokens: schema.TokenUsage{Uncached: 90, Output: 10}}}},
			[]string{"  answer two; lines\n", "success: verified in 1.234s; 1 model call(s), 100 tokens; run r1\n"}},
		{"a fallback after a step acted", schema.ReplayResult{RunID: "r2", Outcome: schema.OutcomeFallback, FailedStep: "save", Completed: []string{"open", "fill"},
			Reason: schema.Errorf(schema.CodeExpectFailed, "no Saved")},
			[]string{"fallback at step save: expect_failed: no Saved\n  completed before it (their effects may have happened): open, fill\n", "  save itself acted before its check failed"}},
		{"a failure", schema.ReplayResult{RunID: "r3", Outcome: schema.OutcomeFailed, Reason: schema.Errorf(schema.CodeNotFound, "no Save button"), Unsettled: 2},
			[]string{"note: 2 time(s) the page was still changing", "failed: not_found: no Save button; run r3\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			view.ReplayResult(&b, &tc.res)
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("missing %q in:\n%s", w, b.String())
				}
			}
		})
	}
}

func TestTaskCell(t *testing.T) {
	named := runlog.Summary{Manifest: schema.Manifest{RunSpec: schema.RunSpec{Task: schema.TaskSpec{Name: "register"}}, ToolCalls: map[string]int{"click": 2}}}
	untasked := runlog.Summary{Manifest: schema.Manifest{ToolCalls: map[string]int{"browser_click": 5, "browser_type": 8, "browser_close": 5}}}
	if got := view.TaskCell(named); got != "register" {
		t.Errorf("named: %q", got)
	}
	if got, want := view.TaskCell(untasked), "(no task) browser_type×8 browser_click×5 browser_close×5"; got != want {
		t.Errorf("untasked: %q, want %q", got, want)
	}
}

func TestCell(t *testing.T) {
	if got := view.Cell("a\n  b\tc", 100); got != "a b c" {
		t.Errorf("%q", got)
	}
	if got := view.Cell(strings.Repeat("x", 300), 48); len([]rune(got)) > 48 {
		t.Errorf("%d runes, want at most 48", len([]rune(got)))
	}
}
