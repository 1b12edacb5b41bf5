package planner

import (
	"fmt"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/rote-agent/rote/schema"
)

// TestPromptLayout: the task's parameters are listed by name, each on
// one line; the site brief is set once per session; a diff before any
// whole page is shown as the page; the ledger says when no step ran yet;
// every tool is a function tool with its schema.
func TestPromptLayout(t *testing.T) {
	c := NewContext(TaskPrompt{Text: "Register\n\tthe vendor", Params: map[string]string{"zip": "69001", "company": "Initech\nSA", "city": "Lyon"}}, agentTools())
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
	c.Record(schema.LedgerEntry{Step: 1, Action: "click", Result: "ok"})
	c.Observe(&schema.Observation{Kind: schema.ObservationFull, Render: "page B"})
	if _, err := c.Messages(); err != nil || c.CacheKey() != before {
		t.Errorf("the ledger or the page changed the cache key (%v)", err)
	}
}
