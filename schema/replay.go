package schema

import "time"

// StepReport is how one step of a run went: a replay's step, or an
// agent's.
type StepReport struct {
	StepID   string        `msgpack:"step_id" json:"step_id"`
	Class    StepClass     `msgpack:"class,omitempty" json:"class,omitempty"` // why it ran
	Attempts int           `msgpack:"attempts" json:"attempts"`
	Duration time.Duration `msgpack:"duration" json:"duration"`
	Calls    int           `msgpack:"calls,omitempty" json:"calls,omitempty"` // model calls
	Tokens   TokenUsage    `msgpack:"tokens" json:"tokens"`                   // zero for deterministic steps
	Error    *Error        `msgpack:"error,omitempty" json:"error,omitempty"`
	// Repaired says the step failed and a scoped repair's replacement
	// ran in its place and passed its expect, or cleared what covered
	// the step's control so that the step itself then passed.
	Repaired bool `msgpack:"repaired,omitempty" json:"repaired,omitempty"`
}

// FailedStepActed reports whether the step a replay stopped at acted
// before it stopped: its check failed after its action, whose effect may
// have happened like those of the steps completed before it.
func (r *ReplayResult) FailedStepActed() bool {
	return r.Reason != nil && (r.Reason.Code == CodeExpectFailed || r.Reason.Code == CodeUnrepeatable || r.Reason.Code == CodeDialog)
}

// ReplayResult is the outcome of replaying a playbook. Completed lists,
// in order, the steps that ran to completion before any failure: their
// side effects may have happened, so a fallback must know them.
type ReplayResult struct {
	Outcome    Outcome       `msgpack:"outcome" json:"outcome"` // success, failed or fallback
	RunID      string        `msgpack:"run_id" json:"run_id"`
	Playbook   PlaybookRef   `msgpack:"playbook" json:"playbook"`
	Completed  []string      `msgpack:"completed" json:"completed"`
	FailedStep string        `msgpack:"failed_step,omitempty" json:"failed_step,omitempty"`
	Reason     *Error        `msgpack:"reason,omitempty" json:"reason,omitempty"`
	Steps      []StepReport  `msgpack:"steps" json:"steps"`
	Verify     []Check       `msgpack:"verify,omitempty" json:"verify,omitempty"`
	Usage      []SourceUsage `msgpack:"usage,omitempty" json:"usage,omitempty"`
	Duration   time.Duration `msgpack:"duration" json:"duration"`
	// Patched is the new version a verified replay saved its repairs as;
	// PatchNote says why repairs were not saved, when they were not.
	Patched *PlaybookRef `msgpack:"patched,omitempty" json:"patched,omitempty"`
	// Answer is what the last extract step read: a read task's result.
	Answer    string `msgpack:"answer,omitempty" json:"answer,omitempty"`
	PatchNote string `msgpack:"patch_note,omitempty" json:"patch_note,omitempty"`
	// Contracts are what the controls of steps that record none turned
	// out to be, by step id: a shadow replay's promotion records them,
	// so that later replays refuse a control that changed.
	Contracts map[string]*Contract `msgpack:"contracts,omitempty" json:"contracts,omitempty"`
	// Unsettled counts the actions and looks that went ahead on a page
	// still changing when the settle gave up at its cap.
	Unsettled int `msgpack:"unsettled,omitempty" json:"unsettled,omitempty"`
}

// StoredPlaybook is one version of a playbook in ROTE_PLAYBOOKS.
type StoredPlaybook struct {
	Version  uint64    `msgpack:"version" json:"version"`
	Document []byte    `msgpack:"document" json:"document"` // the playbook as YAML
	Origin   string    `msgpack:"origin" json:"origin"`     // import, promote, patch or rollback
	Note     string    `msgpack:"note,omitempty" json:"note,omitempty"`
	Time     time.Time `msgpack:"time" json:"time"`
}
