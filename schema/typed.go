package schema

import "slices"

// Bounds on the values a run remembers it typed (TypedValues): shorter
// ones would be found in any address by accident.
const (
	MinGuardedValue  = 3
	MaxGuardedValues = 32
)

// TypedValues are the values a run typed into the page, newest last:
// the send guard refuses a load that carries one when the control that
// started it sent nothing when it was recorded (a form a script handled,
// a button that navigates by script).
type TypedValues []string

// Add remembers v, unless it is shorter than MinGuardedValue or already
// there; past MaxGuardedValues the oldest is forgotten.
func (t *TypedValues) Add(v string) {
	if len([]rune(v)) < MinGuardedValue || slices.Contains(*t, v) {
		return
	}
	if len(*t) == MaxGuardedValues {
		*t = (*t)[1:]
	}
	*t = append(*t, v)
}
