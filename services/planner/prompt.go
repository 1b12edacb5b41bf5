package planner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/rote-agent/rote/schema"
	"github.com/rote-agent/rote/schema/prompt"
)

// agentSystemPrompt opens every agent prompt. It must never change within
// a session, and holds nothing volatile.
const agentSystemPrompt = `You operate a web browser to complete a task. Each turn you see the task, the steps taken so far (one JSON line each), and the page: a compact tree, one element per line as ` + "`id role \"name\" = \"value\" [states]`" + `. The first page you see is whole; later turns show what changed since then (` + "`+ line`" + ` added, ` + "`- id`" + ` gone, ` + "`~ id = \"value\" [states]`" + ` changed).
Answer with exactly one tool call. Address elements by their id. Type a secret parameter exactly as it is shown ({{name}}): it is filled in for you and you never see it.
Call done with a short answer when the task is complete (include anything the task asked you to report), or fail with the reason when it cannot be done.`

// TaskPrompt is what the immutable prefix says about the task.
type TaskPrompt struct {
	Text    string
	Params  map[string]string
	Secrets []string // parameter names shown as {{name}}, never by value
}

// Prompt is the agent's context window, laid out for the prompt cache: an
// immutable prefix (system prompt, task, tool schemas) whose SHA-256 is
// the cache key, a session-stable site brief, the action ledger (one
// compact JSON line per prior step), and the live tail: the last whole
// page once and the diff since it. Earlier pages are evicted. Only
// Prompt orders messages.
type Prompt struct {
	prefix []openai.ChatCompletionMessage
	tools  []openai.Tool
	key    string
	brief  string
	ledger []string
	full   string // the last whole page
	diff   string // the changes since it, "" for none yet
}

// NewPrompt builds the prefix for task with tools.
func NewPrompt(task TaskPrompt, tools []schema.ToolSpec) *Prompt {
	c := &Prompt{}
	var b strings.Builder
	b.WriteString(prompt.Task + oneLine(task.Text) + "\n")
	if len(task.Params) > 0 {
		b.WriteString("\n" + prompt.Params + "\n")
		keys := make([]string, 0, len(task.Params))
		for k := range task.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := task.Params[k]
			if slices.Contains(task.Secrets, k) {
				v = "{{" + k + "}}"
			}
			fmt.Fprintf(&b, "- %s: %s\n", k, oneLine(v))
		}
	}
	c.prefix = []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: agentSystemPrompt},
		{Role: openai.ChatMessageRoleUser, Content: b.String()},
	}
	c.tools = functionTools(tools)
	c.key = c.prefixHash()
	return c
}

// functionTools are tool specs as OpenAI function tools.
func functionTools(specs []schema.ToolSpec) []openai.Tool {
	out := make([]openai.Tool, 0, len(specs))
	for _, t := range specs {
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: json.RawMessage(t.InputSchema)}})
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func (c *Prompt) prefixHash() string {
	h := sha256.New()
	data, _ := json.Marshal(struct {
		M []openai.ChatCompletionMessage
		T []openai.Tool
	}{c.prefix, c.tools})
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// CacheKey is the SHA-256 of the immutable prefix.
func (c *Prompt) CacheKey() string { return c.key }

// Prefix returns the prefix messages, for tests that check nothing
// volatile is in them.
func (c *Prompt) Prefix() []openai.ChatCompletionMessage { return slices.Clone(c.prefix) }

// Tools returns the tool definitions sent with every call.
func (c *Prompt) Tools() []openai.Tool { return c.tools }

// SetBrief sets the site brief, once per session.
func (c *Prompt) SetBrief(s string) {
	if c.brief == "" {
		c.brief = s
	}
}

// Record appends a step to the ledger.
func (c *Prompt) Record(e prompt.LedgerEntry) {
	data, _ := json.Marshal(e)
	c.ledger = append(c.ledger, string(data))
}

// Observe puts an observation in the live tail: a whole page replaces the
// last one (and its diff), a diff replaces the last diff.
func (c *Prompt) Observe(o *schema.Observation) {
	if o.Kind == schema.ObservationDiff && c.full != "" {
		c.diff = o.Render
		return
	}
	c.full, c.diff = o.Render, ""
}

// Messages returns the messages of the next call, in order. It fails if
// the prefix changed since NewPrompt: the cache key would lie.
func (c *Prompt) Messages() ([]openai.ChatCompletionMessage, error) {
	if c.prefixHash() != c.key {
		return nil, schema.Errorf(schema.CodeInvalid, "the prompt prefix changed within a session")
	}
	msgs := slices.Clone(c.prefix)
	var mid strings.Builder
	if c.brief != "" {
		mid.WriteString(prompt.Site + c.brief + "\n\n")
	}
	mid.WriteString(prompt.Steps)
	if len(c.ledger) == 0 {
		mid.WriteString(" none yet\n")
	} else {
		mid.WriteString("\n" + strings.Join(c.ledger, "\n") + "\n")
	}
	msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: mid.String()})
	tail := prompt.Page + "\n" + c.full
	if c.diff != "" {
		tail += "\n\n" + prompt.Changes + "\n" + c.diff
	}
	return append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: tail}), nil
}
