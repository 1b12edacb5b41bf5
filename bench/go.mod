module github.com/rote-agent/rote/bench

go 1.26

require (
	github.com/sashabaranov/go-openai v1.43.0
	github.com/tiktoken-go/tokenizer v0.10.0
)

require (
	github.com/dlclark/regexp2/v2 v2.5.1 // indirect
	github.com/goccy/go-yaml v1.19.2 // indirect
	github.com/vmihailenco/msgpack/v5 v5.4.1 // indirect
	github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
)

require (
	github.com/rote-agent/rote/portal v0.0.0
	github.com/rote-agent/rote/schema v0.0.0
)

replace github.com/rote-agent/rote/schema => ../schema

replace github.com/rote-agent/rote/portal => ../portal
