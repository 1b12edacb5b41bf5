package lab

import (
	"bytes"
	"strings"
	"testing"
)

// Off a terminal, progress is one plain line per step, with the steps
// done, the step begun, the time taken and, once a step has finished, an
// estimate of the time left.
func TestProgressOffATerminal(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, 2)
	p.step("B1 learn")
	p.step("B1 rep 1")
	p.finish()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || strings.Contains(out.String(), "\r") {
		t.Fatalf("want 3 plain lines, got %q", out.String())
	}
	for i, want := range []string{"bench: 0/2 B1 learn (0s elapsed, estimating)", "bench: 1/2 B1 rep 1 (", "bench: 2/2 done ("} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d = %q, want it to start %q", i, lines[i], want)
		}
	}
	if !strings.Contains(lines[1], "left)") {
		t.Errorf("no estimate of the time left: %q", lines[1])
	}
}
