package schema

// Check is the result of evaluating one expect assertion.
type Check struct {
	Expect Expect `msgpack:"expect" json:"expect"`
	Passed bool   `msgpack:"passed" json:"passed"`
	Detail string `msgpack:"detail,omitempty" json:"detail,omitempty"` // what was seen, for a human
}

// ExpectChecked records a per-step assertion.
type ExpectChecked struct {
	Meta    `msgpack:",inline"`
	RunID   string `msgpack:"run_id" json:"run_id"`
	StepID  string `msgpack:"step_id" json:"step_id"`
	Attempt int    `msgpack:"attempt" json:"attempt"`
	Check   Check  `msgpack:"check" json:"check"`
}

// EventType returns TypeExpectChecked.
func (*ExpectChecked) EventType() string { return TypeExpectChecked }

// Subject returns rote.runs.<run_id>.expect.
func (e *ExpectChecked) Subject() string { return RunSubject(e.RunID, KindExpect) }

// Validate checks identity, the step, the attempt and the assertion.
func (e *ExpectChecked) Validate() error {
	if err := e.Meta.validateInRun(TypeExpectChecked, e.RunID); err != nil {
		return err
	}
	if e.StepID == "" {
		return Errorf(CodeInvalid, "%s: missing step_id", TypeExpectChecked)
	}
	if e.Attempt < 1 {
		return Errorf(CodeInvalid, "%s: attempt starts at 1", TypeExpectChecked)
	}
	return within(TypeExpectChecked, e.Check.Expect.Validate())
}

// VerifyChecked records the final verify gate of a run. Passed is true
// only when there is at least one check and every check passed.
type VerifyChecked struct {
	Meta   `msgpack:",inline"`
	RunID  string  `msgpack:"run_id" json:"run_id"`
	Checks []Check `msgpack:"checks" json:"checks"`
	Passed bool    `msgpack:"passed" json:"passed"`
}

// EventType returns TypeVerifyChecked.
func (*VerifyChecked) EventType() string { return TypeVerifyChecked }

// Subject returns rote.runs.<run_id>.verify.
func (e *VerifyChecked) Subject() string { return RunSubject(e.RunID, KindVerify) }

// Validate checks identity, every assertion, and that Passed agrees with
// the checks: a verify with no checks, or with a failed one, cannot pass.
func (e *VerifyChecked) Validate() error {
	if err := e.Meta.validateInRun(TypeVerifyChecked, e.RunID); err != nil {
		return err
	}
	for _, c := range e.Checks {
		if err := c.Expect.Validate(); err != nil {
			return within(TypeVerifyChecked, err)
		}
	}
	if e.Passed != AllPassed(e.Checks) {
		return Errorf(CodeInvalid, "%s: passed=%v disagrees with its %d checks", TypeVerifyChecked, e.Passed, len(e.Checks))
	}
	return nil
}

// VerifyFailure is the first check that did not hold as an *Error with
// CodeExpectFailed, or nil when none failed: why a verify gate failed.
func VerifyFailure(checks []Check) *Error {
	for _, c := range checks {
		if !c.Passed {
			return Errorf(CodeExpectFailed, "verify %s did not hold (%s)", c.Expect, c.Detail)
		}
	}
	return nil
}

// AllPassed reports whether checks is non-empty and every check passed.
func AllPassed(checks []Check) bool {
	for _, c := range checks {
		if !c.Passed {
			return false
		}
	}
	return len(checks) > 0
}
