package stats

import "fmt"

// Gate is one launch gate: a measured value, the bound it must meet, and
// whether it does.
type Gate struct {
	Name   string  `json:"-"`
	Value  float64 `json:"value"`
	Bound  float64 `json:"bound"`
	Pass   bool    `json:"pass"`
	Detail string  `json:"detail"`
}

// The launch gates' bounds.
const (
	MinTokenReduction = 0.95 // the lower 95% bound of warm's token saving
	MinSpeedup        = 5.0  // the lower 95% bound of cold wall time over warm
)

// AtLeast is the gate value >= bound.
func AtLeast(name string, value, bound float64, detail string) Gate {
	return Gate{Name: name, Value: value, Bound: bound, Pass: value >= bound, Detail: detail}
}

// Exactly is the gate value == bound (counts: false matches, success gaps).
func Exactly(name string, value, bound float64, detail string) Gate {
	return Gate{Name: name, Value: value, Bound: bound, Pass: value == bound, Detail: detail}
}

// String is "PASS name: value (bound ...)".
func (g Gate) String() string {
	verdict := "PASS"
	if !g.Pass {
		verdict = "FAIL"
	}
	return fmt.Sprintf("%s %s: %.4g (bound %.4g) %s", verdict, g.Name, g.Value, g.Bound, g.Detail)
}

// AtMost is the gate value <= bound (a ratio of times).
func AtMost(name string, value, bound float64, detail string) Gate {
	return Gate{Name: name, Value: value, Bound: bound, Pass: value <= bound, Detail: detail}
}
