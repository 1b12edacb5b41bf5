package scripted

import (
	"testing"
	"time"
)

func TestParseLatency(t *testing.T) {
	for in, want := range map[string]Latency{
		"none":                                {},
		"":                                    {},
		"hosted":                              HostedLatency,
		"first=800ms,prefill=10000,decode=70": {First: 800 * time.Millisecond, Prefill: 10000, Decode: 70},
		"first=2s":                            {First: 2 * time.Second},
	} {
		got, err := ParseLatency(in)
		if err != nil || got != want {
			t.Errorf("ParseLatency(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if back, err := ParseLatency(got.String()); err != nil || back != got {
			t.Errorf("%q does not read back: %+v, %v", got.String(), back, err)
		}
	}
	for _, bad := range []string{"fast", "first=soon", "first=1s,speed=3", "decode=-1"} {
		if _, err := ParseLatency(bad); err == nil {
			t.Errorf("ParseLatency(%q) took it", bad)
		}
	}
}

func TestLatencyFor(t *testing.T) {
	l := Latency{First: time.Second, Prefill: 5000, Decode: 50}
	// 1 s + 10,000 uncached / 5,000 per s + 100 output / 50 per s = 5 s.
	if got := l.For(10000, 100); got != 5*time.Second {
		t.Fatalf("For(10000, 100) = %s, want 5s", got)
	}
	if got := (Latency{}).For(10000, 100); got != 0 {
		t.Fatalf("the zero latency takes %s", got)
	}
}
