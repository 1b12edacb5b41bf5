package schema

import (
	"fmt"
	"slices"
	"strings"
)

// Source tags who asked the model. Every model call carries one.
type Source string

// Sources, a closed set.
const (
	SourcePlanner   Source = "planner"
	SourceMatcher   Source = "matcher"
	SourceSlot      Source = "slot"
	SourceJudgment  Source = "judgment"
	SourceRepair    Source = "repair"
	SourceDistiller Source = "distiller"
)

// Validate returns an *Error with CodeInvalid unless s is a known source.
func (s Source) Validate() error {
	switch s {
	case SourcePlanner, SourceMatcher, SourceSlot, SourceJudgment, SourceRepair, SourceDistiller:
		return nil
	}
	return Errorf(CodeInvalid, "source %q: want planner, matcher, slot, judgment, repair or distiller", s)
}

// TokenUsage splits a model call's tokens the way providers bill them.
type TokenUsage struct {
	Uncached   int64 `msgpack:"uncached" json:"uncached"`       // prompt tokens neither read from nor written to the cache
	CacheRead  int64 `msgpack:"cache_read" json:"cache_read"`   // prompt tokens served from the prompt cache
	CacheWrite int64 `msgpack:"cache_write" json:"cache_write"` // prompt tokens written to the prompt cache
	Output     int64 `msgpack:"output" json:"output"`           // completion tokens
}

// Logical returns every token the model processed, however it was billed.
func (u TokenUsage) Logical() int64 { return u.Uncached + u.CacheRead + u.CacheWrite + u.Output }

// Cache-adjusted token weights, relative to an uncached prompt token, as
// providers commonly bill them: a cache read costs a tenth, a cache write
// a quarter more. Output tokens count once.
const (
	CacheReadWeight  = 0.1
	CacheWriteWeight = 1.25
)

// Adjusted returns the cache-adjusted token count: what the call costs
// in uncached-token equivalents.
func (u TokenUsage) Adjusted() float64 {
	return float64(u.Uncached) + CacheReadWeight*float64(u.CacheRead) + CacheWriteWeight*float64(u.CacheWrite) + float64(u.Output)
}

// Plus returns the field-wise sum of u and v.
func (u TokenUsage) Plus(v TokenUsage) TokenUsage {
	return TokenUsage{
		Uncached:   u.Uncached + v.Uncached,
		CacheRead:  u.CacheRead + v.CacheRead,
		CacheWrite: u.CacheWrite + v.CacheWrite,
		Output:     u.Output + v.Output,
	}
}

func (u TokenUsage) validate() error {
	if u.Uncached < 0 || u.CacheRead < 0 || u.CacheWrite < 0 || u.Output < 0 {
		return Errorf(CodeInvalid, "negative token count in %+v", u)
	}
	return nil
}

// SourceUsage is the usage of one source within a run.
type SourceUsage struct {
	Source Source     `msgpack:"source" json:"source"`
	Calls  int        `msgpack:"calls" json:"calls"`
	Tokens TokenUsage `msgpack:"tokens" json:"tokens"`
}

// Tally sums model calls per source, sorted by source name.
func Tally(calls []*LLMCall) []SourceUsage {
	var out []SourceUsage
	for _, c := range calls {
		i := slices.IndexFunc(out, func(u SourceUsage) bool { return u.Source == c.Source })
		if i < 0 {
			out = append(out, SourceUsage{Source: c.Source})
			i = len(out) - 1
		}
		out[i].Calls++
		out[i].Tokens = out[i].Tokens.Plus(c.Usage)
	}
	slices.SortFunc(out, func(a, b SourceUsage) int { return strings.Compare(string(a.Source), string(b.Source)) })
	return out
}

func validateUsage(eventType string, usage []SourceUsage) error {
	for i, u := range usage {
		if err := u.Source.Validate(); err != nil {
			return within(fmt.Sprintf("%s: usage[%d]", eventType, i), err)
		}
		if i > 0 && usage[i-1].Source >= u.Source {
			return Errorf(CodeInvalid, "%s: usage sources must be unique and sorted, got %s after %s", eventType, u.Source, usage[i-1].Source)
		}
		if u.Calls < 0 {
			return Errorf(CodeInvalid, "%s: usage[%d]: negative call count", eventType, i)
		}
		if err := u.Tokens.validate(); err != nil {
			return within(fmt.Sprintf("%s: usage[%d]", eventType, i), err)
		}
	}
	return nil
}

// MergeUsage sums per-source usage lists into one, sorted by source.
func MergeUsage(lists ...[]SourceUsage) []SourceUsage {
	var out []SourceUsage
	for _, list := range lists {
		for _, u := range list {
			i := slices.IndexFunc(out, func(o SourceUsage) bool { return o.Source == u.Source })
			if i < 0 {
				out = append(out, SourceUsage{Source: u.Source})
				i = len(out) - 1
			}
			out[i].Calls += u.Calls
			out[i].Tokens = out[i].Tokens.Plus(u.Tokens)
		}
	}
	slices.SortFunc(out, func(a, b SourceUsage) int { return strings.Compare(string(a.Source), string(b.Source)) })
	return out
}

// LogicalTokens is the tokens of usage, every kind counted once.
func LogicalTokens(usage []SourceUsage) int64 {
	var n int64
	for _, u := range usage {
		n += u.Tokens.Logical()
	}
	return n
}
