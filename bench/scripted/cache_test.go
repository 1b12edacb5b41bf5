package scripted

import "testing"

func seq(n, from int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = from + i
	}
	return out
}

// TestCacheRules: nothing under 1,024 tokens is cached; above it caching
// goes in 128-token steps; a read is the longest remembered prefix under
// the same key, and the rest of the cacheable prefix is written.
func TestCacheRules(t *testing.T) {
	for n, want := range map[int]int{0: 0, 1023: 0, 1024: 1024, 1151: 1024, 1152: 1152, 5000: 4992} {
		if got := cacheable(n); got != want {
			t.Errorf("cacheable(%d) = %d, want %d", n, got, want)
		}
	}
	var c promptCache
	a := seq(2000, 0)
	if r, w := c.account("k", a); r != 0 || w != 1920 {
		t.Fatalf("first: read %d write %d", r, w)
	}
	b := append(seq(1500, 0), seq(700, 90000)...) // shares 1,500 tokens with a
	if r, w := c.account("k", b); r != 1408 || w != 2176-1408 {
		t.Fatalf("second: read %d write %d", r, w)
	}
	if r, _ := c.account("other", b); r != 0 {
		t.Fatalf("another key read %d", r)
	}
	if r, w := c.account("k", seq(900, 0)); r != 0 || w != 0 {
		t.Fatalf("short prompt: read %d write %d", r, w)
	}
}
