package stats

import (
	"math/rand/v2"
	"slices"
)

// Resamples is how many bootstrap resamples an interval takes.
const Resamples = 10000

// Interval is a statistic with its 95% percentile bootstrap interval.
type Interval struct {
	Value float64 `json:"value"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
}

// Bootstrap returns stat over samples with a 95% percentile interval from
// Resamples resamples drawn with a PCG seeded by seed: byte-stable. Paired
// samples (cold and warm of one repetition) are resampled together: stat
// receives the indices of a resample.
func Bootstrap(n int, seed uint64, stat func(idx []int) float64) Interval {
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	out := Interval{Value: stat(all)}
	if n == 0 {
		return out
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	vals := make([]float64, Resamples)
	idx := make([]int, n)
	for k := range vals {
		for i := range idx {
			idx[i] = r.IntN(n)
		}
		vals[k] = stat(idx)
	}
	slices.Sort(vals)
	out.Low, out.High = vals[int(0.025*Resamples)], vals[int(0.975*Resamples)-1]
	return out
}

// Sum adds f over idx.
func Sum(idx []int, f func(int) float64) float64 {
	s := 0.0
	for _, i := range idx {
		s += f(i)
	}
	return s
}

// Reduction is 1 - warm/cold over the resample: the share of cold cost a
// warm run saves. 0 when cold is 0.
func Reduction(idx []int, cold, warm func(int) float64) float64 {
	c := Sum(idx, cold)
	if c == 0 {
		return 0
	}
	return 1 - Sum(idx, warm)/c
}

// Ratio is cold/warm over the resample; 0 when warm is 0.
func Ratio(idx []int, cold, warm func(int) float64) float64 {
	w := Sum(idx, warm)
	if w == 0 {
		return 0
	}
	return Sum(idx, cold) / w
}
