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
