package schema

import (
	"slices"
	"time"
)

// StepClass says why a step ran, the design's closed set. Every step a
// run reports carries one, so that what a run cost can be split by what
// decided each step.
type StepClass string

// Step classes.
const (
	// ClassReplay is a playbook step, run as it was learned (a slot or
	// judgment step's model call included).
	ClassReplay StepClass = "replay"
	// ClassSpeculated is a step taken from site memory without a model
	// call, checked before it counts.
	ClassSpeculated StepClass = "speculated"
	// ClassGroundedRoutine is a step of a site routine whose
	// precondition held on the page as observed.
	ClassGroundedRoutine StepClass = "grounded-routine"
	// ClassFrontier is a step the model chose.
	ClassFrontier StepClass = "frontier"
	// ClassRecovery is a step that drift cost: a playbook step retried
	// or repaired, or the agent's step after a replay fell back.
	ClassRecovery StepClass = "recovery"
)

// StepClasses are the classes in the order reports list them.
var StepClasses = []StepClass{ClassReplay, ClassSpeculated, ClassGroundedRoutine, ClassFrontier, ClassRecovery}

// Validate returns an *Error with CodeInvalid unless c is a known class.
func (c StepClass) Validate() error {
	if slices.Contains(StepClasses, c) {
		return nil
	}
	return Errorf(CodeInvalid, "step class %q: want replay, speculated, grounded-routine, frontier or recovery", c)
}

// ClassUsage is what a run's steps of one class cost.
type ClassUsage struct {
	Class  StepClass     `json:"class"`
	Steps  int           `json:"steps"`
	Calls  int           `json:"calls"` // model calls
	Tokens TokenUsage    `json:"tokens"`
	Wall   time.Duration `json:"wall"`
}

// TallyClasses sums steps by class, in StepClasses order, leaving out
// the classes no step had. A step reported before steps were classed
// (an older run) is counted under "".
func TallyClasses(steps []StepReport) []ClassUsage {
	each := make([]ClassUsage, len(steps))
	for i, s := range steps {
		each[i] = ClassUsage{Class: s.Class, Steps: 1, Calls: s.Calls, Tokens: s.Tokens, Wall: s.Duration}
	}
	return MergeClasses(each)
}

// MergeClasses adds class tallies up, class by class.
func MergeClasses(lists ...[]ClassUsage) []ClassUsage {
	var out []ClassUsage
	for _, c := range append(slices.Clone(StepClasses), "") {
		sum := ClassUsage{Class: c}
		for _, list := range lists {
			for _, u := range list {
				if u.Class == c {
					sum.Steps += u.Steps
					sum.Calls += u.Calls
					sum.Tokens = sum.Tokens.Plus(u.Tokens)
					sum.Wall += u.Wall
				}
			}
		}
		if sum.Steps > 0 {
			out = append(out, sum)
		}
	}
	return out
}

func validateSteps(eventType string, steps []StepReport) error {
	for _, s := range steps {
		if s.Class == "" {
			continue
		}
		if err := s.Class.Validate(); err != nil {
			return within(eventType+": step "+s.StepID, err)
		}
		if s.Calls < 0 {
			return Errorf(CodeInvalid, "%s: step %s: %d model calls", eventType, s.StepID, s.Calls)
		}
	}
	return nil
}
