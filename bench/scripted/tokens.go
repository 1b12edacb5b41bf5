package scripted

import (
	"encoding/json"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"
	"github.com/tiktoken-go/tokenizer"
)

var (
	codecOnce sync.Once
	codec     tokenizer.Codec
)

// encode returns s's o200k_base token ids (the GPT-4o family's BPE,
// embedded in the binary).
func encode(s string) []int {
	codecOnce.Do(func() {
		var err error
		if codec, err = tokenizer.Get(tokenizer.O200kBase); err != nil {
			panic("scripted: o200k_base tokenizer: " + err.Error()) // embedded: cannot fail
		}
	})
	ids, _, err := codec.Encode(strings.ToValidUTF8(s, "\uFFFD"))
	if err != nil {
		return nil
	}
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}

// promptText is the request as the model reads it, in order: the tool
// definitions, then every message with its role. Providers put tools
// first too, so the tools are part of the cacheable prefix.
func promptText(req *openai.ChatCompletionRequest) string {
	var b strings.Builder
	for _, t := range req.Tools {
		if t.Function == nil {
			continue
		}
		b.WriteString("<|tool|>")
		b.WriteString(t.Function.Name)
		b.WriteString(": ")
		b.WriteString(t.Function.Description)
		if data, err := json.Marshal(t.Function.Parameters); err == nil {
			b.Write(data)
		}
		b.WriteByte('\n')
	}
	for _, m := range req.Messages {
		b.WriteString("<|")
		b.WriteString(m.Role)
		b.WriteString("|>\n")
		b.WriteString(messageText(m))
		for _, c := range m.ToolCalls {
			b.WriteString("\n<|call|>")
			b.WriteString(c.Function.Name)
			b.WriteString(c.Function.Arguments)
		}
		b.WriteString("\n<|end|>\n")
	}
	b.WriteString("<|assistant|>\n")
	return b.String()
}

// messageText is a message's text, whether given as a string or as parts.
func messageText(m openai.ChatCompletionMessage) string {
	if len(m.MultiContent) == 0 {
		return m.Content
	}
	var parts []string
	for _, p := range m.MultiContent {
		if p.Type == openai.ChatMessagePartTypeText {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}
