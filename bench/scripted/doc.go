// Package scripted is the offline test model: an OpenAI-compatible chat
// completions server whose answers come from an Oracle that reads the
// request's text, the way a model would, and whose token usage is counted
// with a real tokenizer (o200k_base) over the real request, with prompt
// caching modelled on the providers' rules: per cache key, a prompt's
// longest prefix already seen is read from the cache once it is at least
// 1,024 tokens, in 128-token steps, and the rest of its cacheable prefix
// is written.
//
// No machine the project is tested on reaches a hosted model, so tests,
// `rote demo` and `rote bench` use it unless ROTE_LLM_* points elsewhere.
// It is always labelled: its responses carry the system fingerprint
// Label, and every output that used it says so.
package scripted

import "github.com/rote-agent/rote/schema"

// Label is how every output that used this model names it.
const Label = schema.OfflineModelLabel
