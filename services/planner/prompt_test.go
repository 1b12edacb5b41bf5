package planner

import (
	"strings"
	"testing"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/prompt"
)

func testPrompt() *Prompt {
	return NewPrompt(TaskPrompt{Text: "Sign in as admin and  download\nthe report.", Params: map[string]string{"username": "admin", "password": "hunter2"}, Secrets: []string{"password"}}, agentTools())
}

// TestPrefixShowsSecretsByName: the prefix names the task and its
// parameters, a secret only as {{name}}, and its key is stable.
func TestPrefixShowsSecretsByName(t *testing.T) {
	c := testPrompt()
	msgs, err := c.Messages()
	if err != nil {
		t.Fatal(err)
	}
	task := msgs[1].Content
	if !strings.Contains(task, "Task: Sign in as admin and download the report.") || !strings.Contains(task, "- password: {{password}}") || strings.Contains(task, "hunter2") {
		t.Fatalf("task message:\n%s", task)
	}
	if c.CacheKey() != testPrompt().CacheKey() || len(c.CacheKey()) != 64 {
		t.Fatal("the same task and tools give another cache key")
	}
	for _, m := range msgs {
		if strings.Contains(m.Content, "hunter2") {
			t.Fatalf("a secret's value reached the model: %q", m.Content)
		}
	}
}

// TestPrefixChangeIsRefused: a prefix changed within a session would make
// the cache key lie; Messages refuses it.
func TestPrefixChangeIsRefused(t *testing.T) {
	c := testPrompt()
	c.prefix[1].Content += "at 2026-11-29T10:00:00Z"
	if _, err := c.Messages(); err == nil {
		t.Fatal("a changed prefix was sent")
	}
}

// TestLiveTailKeepsOnePage: a whole page replaces the last one and its
// diff; a diff replaces the last diff; the ledger only grows.
func TestLiveTailKeepsOnePage(t *testing.T) {
	c := testPrompt()
	c.Observe(&schema.Observation{Kind: schema.ObservationFull, Render: "page A"})
	c.Record(prompt.LedgerEntry{Step: 1, Action: "click", Result: "ok"})
	c.Observe(&schema.Observation{Kind: schema.ObservationDiff, Render: "~ a1 = \"x\""})
	c.Observe(&schema.Observation{Kind: schema.ObservationDiff, Render: "~ a1 = \"xy\""})
	msgs, _ := c.Messages()
	tail := msgs[len(msgs)-1].Content
	if tail != "Page:\npage A\n\nChanges since that page:\n~ a1 = \"xy\"" {
		t.Fatalf("tail:\n%s", tail)
	}
	c.Observe(&schema.Observation{Kind: schema.ObservationFull, Render: "page B"})
	msgs, _ = c.Messages()
	if tail := msgs[len(msgs)-1].Content; tail != "Page:\npage B" {
		t.Fatalf("after a new page, tail:\n%s", tail)
	}
	if !strings.Contains(msgs[2].Content, `{"step":1,"action":"click","result":"ok"}`) {
		t.Fatalf("ledger:\n%s", msgs[2].Content)
	}
}
