package schema

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAutomatonFindsWhatASearchFinds: on random patterns over a small
// alphabet (so that they overlap, nest and share suffixes), the automaton
// finds exactly the occurrences a plain search for each pattern finds.
func TestAutomatonFindsWhatASearchFinds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abc"[rng.IntN(3)]
		}
		return b
	}
	for round := range 200 {
		var patterns [][]byte
		for range 1 + rng.IntN(12) {
			patterns = append(patterns, word(1+rng.IntN(5)))
		}
		text := word(rng.IntN(60))
		got := newAutomaton(patterns).find(text, nil)
		var want []match
		for id, p := range patterns {
			for at := 0; at+len(p) <= len(text); at++ {
				if bytes.Equal(text[at:at+len(p)], p) {
					want = append(want, match{at, at + len(p), id})
				}
			}
		}
		order := func(a, b match) int {
			if a.start != b.start {
				return a.start - b.start
			}
			if a.end != b.end {
				return a.end - b.end
			}
			return a.id - b.id
		}
		slices.SortFunc(got, order)
		slices.SortFunc(want, order)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: patterns %q in %q: found %v, want %v", round, patterns, text, got, want)
		}
	}
}
