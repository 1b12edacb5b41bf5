package lab

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress says how far a benchmark is: on a terminal one line redrawn in
// place (a bar, the step, the time taken and an estimate of the time
// left), elsewhere (a log, CI) one plain line per step.
type progress struct {
	out      io.Writer
	terminal bool
	start    time.Time
	done     int // steps begun
	total    int
}

func newProgress(out io.Writer, total int) *progress {
	if out == nil {
		out = io.Discard
	}
	return &progress{out: out, terminal: isTerminal(out), start: time.Now(), total: total}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// step says the next step begins.
func (p *progress) step(what string) {
	finished := p.done
	p.done++
	elapsed := time.Since(p.start).Round(time.Second)
	left := "estimating"
	if finished > 0 && finished <= p.total {
		left = "about " + (elapsed * time.Duration(p.total-finished) / time.Duration(finished)).Round(time.Second).String() + " left"
	}
	if !p.terminal {
		fmt.Fprintf(p.out, "bench: %d/%d %s (%s elapsed, %s)\n", finished, p.total, what, elapsed, left)
		return
	}
	const width = 30
	filled := width * min(finished, p.total) / max(p.total, 1)
	fmt.Fprintf(p.out, "\r[%s%s] %d/%d %-32s %s elapsed, %-22s", strings.Repeat("#", filled), strings.Repeat(".", width-filled), finished, p.total, what, elapsed, left)
}

// finish ends the progress line.
func (p *progress) finish() {
	p.step("done")
	if p.terminal {
		fmt.Fprintln(p.out)
	}
}
