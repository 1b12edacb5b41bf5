package scripted

import (
	"slices"
	"sync"
)

// Prompt-cache rules modelled on the providers': nothing is cached below
// MinCachedTokens, and above it caching goes in CacheStep increments.
const (
	MinCachedTokens = 1024
	CacheStep       = 128
	keptPrefixes    = 64 // per cache key, most recent first
)

// promptCache remembers, per cache key, the cacheable prefixes of recent
// prompts as token ids.
type promptCache struct {
	mu   sync.Mutex
	keys map[string][][]int
}

// cacheable is how much of an n-token prompt a cache can hold.
func cacheable(n int) int {
	if n < MinCachedTokens {
		return 0
	}
	return MinCachedTokens + (n-MinCachedTokens)/CacheStep*CacheStep
}

// account returns how many of prompt's tokens are read from the cache of
// key and how many are newly written to it, and remembers the prompt.
func (c *promptCache) account(key string, prompt []int) (read, write int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keys == nil {
		c.keys = map[string][][]int{}
	}
	longest := 0
	for _, p := range c.keys[key] {
		longest = max(longest, commonPrefix(p, prompt))
	}
	read = cacheable(longest)
	stored := cacheable(len(prompt))
	write = max(0, stored-read)
	if stored > 0 {
		kept := slices.Insert(c.keys[key], 0, slices.Clone(prompt[:stored]))
		c.keys[key] = kept[:min(len(kept), keptPrefixes)]
	}
	return read, write
}

func commonPrefix(a, b []int) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
