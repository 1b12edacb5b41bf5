package stats

import "testing"

// TestBootstrapIsSeededAndSane: the same seed gives the same interval, the
// interval holds the statistic, and a constant sample has a zero-width
// interval.
func TestBootstrapIsSeededAndSane(t *testing.T) {
	cold := []float64{10000, 12000, 9000, 31000, 14000, 20000}
	warm := []float64{0, 0, 350, 0, 360, 0}
	stat := func(idx []int) float64 {
		return Reduction(idx, func(i int) float64 { return cold[i] }, func(i int) float64 { return warm[i] })
	}
	a, b := Bootstrap(len(cold), 42, stat), Bootstrap(len(cold), 42, stat)
	if a != b {
		t.Fatalf("same seed, different intervals: %+v %+v", a, b)
	}
	if !(a.Low <= a.Value && a.Value <= a.High) || a.Low < 0.95 || a.High > 1 {
		t.Fatalf("interval %+v", a)
	}
	if c := Bootstrap(len(cold), 7, stat); c == a {
		t.Log("another seed gave the same interval (possible, but unlikely)")
	}
	flat := Bootstrap(5, 1, func(idx []int) float64 {
		return Ratio(idx, func(int) float64 { return 10 }, func(int) float64 { return 2 })
	})
	if flat.Value != 5 || flat.Low != 5 || flat.High != 5 {
		t.Fatalf("constant ratio: %+v", flat)
	}
	if g := AtLeast("speedup", flat.Low, MinSpeedup, ""); !g.Pass {
		t.Fatalf("5 >= 5 failed: %v", g)
	}
	if g := Exactly("false matches", 1, 0, ""); g.Pass || g.String()[:4] != "FAIL" {
		t.Fatalf("one false match passed: %v", g)
	}
}
