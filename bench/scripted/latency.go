package scripted

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Latency is how long the scripted model takes to answer, simulated: the
// oracle answers in microseconds, which no hosted model does, and wall
// time comparisons between a run that calls the model at every step and
// one that does not mean nothing without it. A call takes First, plus its
// uncached prompt tokens at Prefill tokens per second, plus its output
// tokens at Decode tokens per second. The zero Latency answers at once.
type Latency struct {
	First   time.Duration
	Prefill float64 // uncached prompt tokens per second; 0: free
	Decode  float64 // output tokens per second; 0: free
}

// HostedLatency stands in for a hosted frontier model answering an agent
// step with a tool call: about a second to the first token, uncached
// prompt tokens read at 5,000 per second, output written at 60 per
// second. It is an assumption, stated wherever it is used, not a
// measurement.
var HostedLatency = Latency{First: time.Second, Prefill: 5000, Decode: 60}

// For is the time a call with uncached prompt tokens and output tokens
// takes.
func (l Latency) For(uncached, output int) time.Duration {
	d := l.First
	if l.Prefill > 0 {
		d += time.Duration(float64(uncached) / l.Prefill * float64(time.Second))
	}
	if l.Decode > 0 {
		d += time.Duration(float64(output) / l.Decode * float64(time.Second))
	}
	return d
}

// IsZero reports whether calls answer at once.
func (l Latency) IsZero() bool { return l == Latency{} }

// String is the form ParseLatency reads: first=1s,prefill=5000,decode=60,
// or "none".
func (l Latency) String() string {
	if l.IsZero() {
		return "none"
	}
	return fmt.Sprintf("first=%s,prefill=%g,decode=%g", l.First, l.Prefill, l.Decode)
}

// Describe says what l simulates, for labels.
func (l Latency) Describe() string {
	if l.IsZero() {
		return "answers at once (no simulated latency)"
	}
	return fmt.Sprintf("simulated latency %s to first token + uncached prompt at %g tok/s + output at %g tok/s", l.First, l.Prefill, l.Decode)
}

// ParseLatency reads "none", "hosted" (HostedLatency) or
// first=DURATION,prefill=TOKENS_PER_S,decode=TOKENS_PER_S (any subset).
func ParseLatency(s string) (Latency, error) {
	switch strings.TrimSpace(s) {
	case "", "none", "0":
		return Latency{}, nil
	case "hosted":
		return HostedLatency, nil
	}
	var l Latency
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return Latency{}, fmt.Errorf("latency %q: want none, hosted or first=1s,prefill=5000,decode=60", s)
		}
		var err error
		switch k {
		case "first":
			l.First, err = time.ParseDuration(v)
		case "prefill":
			l.Prefill, err = strconv.ParseFloat(v, 64)
		case "decode":
			l.Decode, err = strconv.ParseFloat(v, 64)
		default:
			return Latency{}, fmt.Errorf("latency %q: unknown part %q (want first, prefill, decode)", s, k)
		}
		if err != nil || l.First < 0 || l.Prefill < 0 || l.Decode < 0 {
			return Latency{}, fmt.Errorf("latency %q: bad %s value %q", s, k, v)
		}
	}
	return l, nil
}
