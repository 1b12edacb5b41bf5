package planner

import (
	"fmt"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

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

// TestPromptLayout: the task's parameters are listed by name, each on
// one line; the site brief is set once per session; a diff before any
// whole page is shown as the page; the ledger says when no step ran yet;
// every tool is a function tool with its schema.
func TestPromptLayout(t *testing.T) {
	c := NewPrompt(TaskPrompt{Text: "Register\n\tthe vendor", Params: map[string]string{"zip": "69001", "company": "Initech\nSA", "city": "Lyon"}}, agentTools())
	msgs, err := c.Messages()
	if err != nil {
		t.Fatal(err)
	}
	if want := "Task: Register the vendor\n\nParameters:\n- city: Lyon\n- company: Initech SA\n- zip: 69001\n"; msgs[1].Content != want {
		t.Errorf("task message %q, want %q", msgs[1].Content, want)
	}
	if msgs[0].Role != openai.ChatMessageRoleSystem || msgs[2].Content != "Steps so far: none yet\n" || msgs[3].Content != "Page:\n" {
		t.Errorf("messages %+v", msgs)
	}
	c.SetBrief("http://shop.test")
	c.SetBrief("http://elsewhere.test")
	c.Observe(&schema.Observation{Kind: schema.ObservationDiff, Render: `+ a1 button "Go"`})
	msgs, _ = c.Messages()
	if msgs[2].Content != "Site: http://shop.test\n\nSteps so far: none yet\n" {
		t.Errorf("middle %q: want the first brief only", msgs[2].Content)
	}
	if msgs[3].Content != "Page:\n+ a1 button \"Go\"" {
		t.Errorf("a diff before any page: tail %q", msgs[3].Content)
	}
	tools := c.Tools()
	if len(tools) != len(agentTools()) || tools[0].Type != openai.ToolTypeFunction || tools[0].Function.Name != agentTools()[0].Name ||
		!strings.Contains(fmt.Sprintf("%s", tools[0].Function.Parameters), `"type":"object"`) {
		t.Errorf("tools %+v", tools[0])
	}
	before := c.CacheKey()
	c.Record(prompt.LedgerEntry{Step: 1, Action: "click", Result: "ok"})
	c.Observe(&schema.Observation{Kind: schema.ObservationFull, Render: "page B"})
	if _, err := c.Messages(); err != nil || c.CacheKey() != before {
		t.Errorf("the ledger or the page changed the cache key (%v)", err)
	}
}
