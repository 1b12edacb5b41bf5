package schema

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestNestingBombsAreRefused: documents nested past MaxNesting, however
// the nesting hides (in flow brackets, block sequences, indentation,
// behind a quote inside a word or a "]" inside a string), are refused
// before the parser sees them, fast and with little memory; a stream
// that never ends is refused after MaxPlaybookBytes.
func TestNestingBombsAreRefused(t *testing.T) {
	head := "name: bomb\nintent: go\nsteps: [{id: a, kind: deterministic, tool: navigate, args: {url: "
	bombs := map[string]string{
		"brackets":            strings.Repeat("[", 400_000),
		"braces":              head + strings.Repeat("{a: ", 100_000),
		"quote inside a word": head + "[a '" + strings.Repeat("[", 100_000),
		"closers in strings":  head + strings.Repeat(`["]",`, 100_000),
		"block sequences":     "steps:\n" + strings.Repeat("- ", 100_000) + "x\n",
		"indentation":         "steps:\n" + strings.Repeat(" ", 300) + "x: 1\n",
		"comment then flow":   head + "[a#" + strings.Repeat("[", 100_000),
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	for name, doc := range bombs {
		_, err := DecodePlaybook([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), "nested more than") {
			t.Errorf("%s: %.200v", name, err)
		}
	}
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if took > time.Second || after.TotalAlloc-before.TotalAlloc > 64<<20 {
		t.Errorf("refusing the bombs took %v and %d MiB", took, (after.TotalAlloc-before.TotalAlloc)>>20)
	}
	// Nesting a playbook uses, and brackets that are only text, pass.
	fine := head + `"/a"}, expect: [{text_visible: "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}]}]` + "\n" +
		"# [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\nverify: [{text_visible: 'it''s [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['}]\n"
	if _, err := DecodePlaybook([]byte(fine)); err != nil {
		t.Fatalf("brackets in strings and comments: %v", err)
	}
	r := &countingReader{}
	if _, err := ReadPlaybook(r); err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") || r.n > MaxPlaybookBytes+4096 {
		t.Fatalf("an endless stream: %v after %d bytes", err, r.n)
	}
}

// countingReader is an endless stream of spaces that counts what is read.
type countingReader struct{ n int }

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	r.n += len(p)
	return len(p), nil
}

// TestWidePlaybooksAreRefused: a megabyte of shallow nodes, flow or block,
// is refused before the parser sees it, fast and in little memory.
func TestWidePlaybooksAreRefused(t *testing.T) {
	wide := map[string]string{
		"empty steps":    "name: w\nintent: go\nsteps: [" + strings.Repeat("{},", 340_000) + "]\n",
		"verify scalars": "name: w\nintent: go\nverify: [" + strings.Repeat("a,", 500_000) + "]\n",
		"block items":    "name: w\nintent: go\nverify:\n" + strings.Repeat("- a\n", 250_000),
		"block keys":     "name: w\nintent: go\nparams:\n" + strings.Repeat("  k: v\n", 140_000),
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	for name, doc := range wide {
		if len(doc) > MaxPlaybookBytes {
			t.Fatalf("%s: %d bytes, over the size limit: it would not test the node limit", name, len(doc))
		}
		if _, err := DecodePlaybook([]byte(doc)); err == nil || !strings.Contains(err.Error(), "more than 20000 nodes") {
			t.Errorf("%s: %.200v", name, err)
		}
	}
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if took > time.Second || after.TotalAlloc-before.TotalAlloc > 64<<20 {
		t.Errorf("refusing wide documents took %v and %d MiB", took, (after.TotalAlloc-before.TotalAlloc)>>20)
	}
}
