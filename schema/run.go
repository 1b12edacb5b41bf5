package schema

import "time"

// TaskSpec describes one task: what to do, with which parameters, where.
type TaskSpec struct {
	Suite  string            `msgpack:"suite,omitempty" json:"suite,omitempty"`   // frozen suite id, e.g. "B1"
	Name   string            `msgpack:"name,omitempty" json:"name,omitempty"`     // task class name
	Text   string            `msgpack:"text,omitempty" json:"text,omitempty"`     // natural-language task
	Params map[string]string `msgpack:"params,omitempty" json:"params,omitempty"` // bindings as given; secrets as digests
	Target string            `msgpack:"target,omitempty" json:"target,omitempty"` // base URL or target id
}

// Label returns the most specific human name of the task.
func (t TaskSpec) Label() string {
	switch {
	case t.Suite != "" && t.Name != "":
		return t.Suite + " " + t.Name
	case t.Name != "":
		return t.Name
	case t.Suite != "":
		return t.Suite
	}
	return t.Text
}

// RunMode says how a run does its work.
type RunMode string

// Run modes, a closed set.
const (
	ModeAgent  RunMode = "agent"  // the planner decides every step
	ModeReplay RunMode = "replay" // a playbook is executed
	ModeRecord RunMode = "record" // an external client's MCP session, recorded by the proxy
	ModeShadow RunMode = "shadow" // a candidate playbook replayed before promotion
)

func (m RunMode) validate() error {
	switch m {
	case ModeAgent, ModeReplay, ModeRecord, ModeShadow:
		return nil
	}
	return Errorf(CodeInvalid, "run mode %q: want agent, replay, record or shadow", m)
}

// Outcome is how a run ended.
type Outcome string

// Outcomes, a closed set. Only a passed verify gate makes OutcomeSuccess.
const (
	OutcomeSuccess  Outcome = "success"
	OutcomeFailed   Outcome = "failed"
	OutcomeFallback Outcome = "fallback" // a replay handed over to the full agent
	OutcomeAborted  Outcome = "aborted"  // the process died before finishing the run
	// OutcomeUnverified: the run ended normally but nothing proved its
	// effect, e.g. a recorded MCP session without verify assertions.
	OutcomeUnverified Outcome = "unverified"
)

func (o Outcome) validate() error {
	switch o {
	case OutcomeSuccess, OutcomeFailed, OutcomeFallback, OutcomeAborted, OutcomeUnverified:
		return nil
	}
	return Errorf(CodeInvalid, "outcome %q: want success, failed, fallback, aborted or unverified", o)
}

// PlaybookRef names one version of a stored playbook.
type PlaybookRef struct {
	Name    string `msgpack:"name" json:"name"`
	Version uint64 `msgpack:"version,omitempty" json:"version,omitempty"`
}

// RunSpec is what is known about a run when it starts.
type RunSpec struct {
	RunID       string       `msgpack:"run_id" json:"run_id"`
	Mode        RunMode      `msgpack:"mode" json:"mode"`
	Task        TaskSpec     `msgpack:"task" json:"task"`
	Fingerprint string       `msgpack:"fingerprint,omitempty" json:"fingerprint,omitempty"`
	Playbook    *PlaybookRef `msgpack:"playbook,omitempty" json:"playbook,omitempty"`
	Parent      string       `msgpack:"parent,omitempty" json:"parent,omitempty"` // the run this one continues, e.g. after fallback
}

func (s RunSpec) validate(eventType string) error {
	if err := ValidateRunID(s.RunID); err != nil {
		return within(eventType, err)
	}
	if err := s.Mode.validate(); err != nil {
		return within(eventType, err)
	}
	return nil
}

// Manifest is a run's identity card: what ran, where, how it ended, and
// what it cost.
type Manifest struct {
	RunSpec  `msgpack:",inline"`
	Outcome  Outcome       `msgpack:"outcome" json:"outcome"`
	Reason   *Error        `msgpack:"reason,omitempty" json:"reason,omitempty"`
	Started  time.Time     `msgpack:"started" json:"started"`
	Finished time.Time     `msgpack:"finished" json:"finished"`
	Usage    []SourceUsage `msgpack:"usage,omitempty" json:"usage,omitempty"` // one entry per source, sorted by source
	// ToolCalls counts a recorded session's tool calls by tool: what a
	// session recorded with no task did, at a glance.
	ToolCalls map[string]int `msgpack:"tool_calls,omitempty" json:"tool_calls,omitempty"`
	// Steps are how the run's steps went, in the order they ran, each
	// with its class: with the run's events, where each step's time went
	// (RunFold.StepTimes).
	Steps []StepReport `msgpack:"steps,omitempty" json:"steps,omitempty"`
}

// TaskRequested asks for a task to be done. It is the work-queue item on
// rote.tasks that external systems publish; exactly one planner claims it.
// Its run is the run whose id is TaskID (TaskID-2, -3 on redelivery), and
// a replay that falls back continues in a run whose parent that is.
// Secrets names parameters whose values the planner takes from its own
// environment: a secret never travels in, nor is stored with, the task.
type TaskRequested struct {
	Meta     `msgpack:",inline"`
	TaskID   string   `msgpack:"task_id" json:"task_id"`
	Task     TaskSpec `msgpack:"task" json:"task"`
	Playbook string   `msgpack:"playbook,omitempty" json:"playbook,omitempty"` // force a playbook instead of matching
	Secrets  []string `msgpack:"secrets,omitempty" json:"secrets,omitempty"`
	Verify   []Expect `msgpack:"verify,omitempty" json:"verify,omitempty"` // the verify gate; a suite task brings its own
	MaxSteps int      `msgpack:"max_steps,omitempty" json:"max_steps,omitempty"`
}

// EventType returns TypeTaskRequested.
func (*TaskRequested) EventType() string { return TypeTaskRequested }

// Subject returns SubjectTasks.
func (*TaskRequested) Subject() string { return SubjectTasks }

// Validate checks the id, time, task id and that the task says something.
func (e *TaskRequested) Validate() error {
	if err := e.Meta.validate(TypeTaskRequested); err != nil {
		return err
	}
	if e.TaskID == "" {
		return Errorf(CodeInvalid, "%s: missing task_id", TypeTaskRequested)
	}
	if err := ValidateRunID(e.TaskID); err != nil {
		return within(TypeTaskRequested+": task_id names its run", err)
	}
	if e.Task.Text == "" && e.Task.Name == "" && e.Task.Suite == "" {
		return Errorf(CodeInvalid, "%s: task has no text, name or suite id", TypeTaskRequested)
	}
	for _, x := range e.Verify {
		if err := x.Validate(); err != nil {
			return within(TypeTaskRequested+": verify", err)
		}
	}
	if e.MaxSteps < 0 {
		return Errorf(CodeInvalid, "%s: max_steps %d is negative", TypeTaskRequested, e.MaxSteps)
	}
	return nil
}

// RunStarted opens a run.
type RunStarted struct {
	Meta    `msgpack:",inline"`
	RunSpec `msgpack:",inline"`
}

// EventType returns TypeRunStarted.
func (*RunStarted) EventType() string { return TypeRunStarted }

// Subject returns rote.runs.<run_id>.started.
func (e *RunStarted) Subject() string { return RunSubject(e.RunID, KindStarted) }

// Validate checks the header, run id and mode.
func (e *RunStarted) Validate() error {
	if err := e.Meta.validate(TypeRunStarted); err != nil {
		return err
	}
	return e.RunSpec.validate(TypeRunStarted)
}

// RunFinished closes a run; it carries the complete manifest.
type RunFinished struct {
	Meta     `msgpack:",inline"`
	Manifest `msgpack:",inline"`
}

// EventType returns TypeRunFinished.
func (*RunFinished) EventType() string { return TypeRunFinished }

// Subject returns rote.runs.<run_id>.finished.
func (e *RunFinished) Subject() string { return RunSubject(e.RunID, KindFinished) }

// Validate checks the manifest: outcome in its set, a time range that does
// not run backwards, and usage with valid, unique, sorted sources.
func (e *RunFinished) Validate() error {
	if err := e.Meta.validate(TypeRunFinished); err != nil {
		return err
	}
	if err := e.RunSpec.validate(TypeRunFinished); err != nil {
		return err
	}
	if err := e.Outcome.validate(); err != nil {
		return within(TypeRunFinished, err)
	}
	if e.Started.IsZero() || e.Finished.Before(e.Started) {
		return Errorf(CodeInvalid, "%s: time range %v..%v is empty or reversed", TypeRunFinished, e.Started, e.Finished)
	}
	if e.Outcome != OutcomeSuccess && e.Reason == nil {
		return Errorf(CodeInvalid, "%s: outcome %s without a reason", TypeRunFinished, e.Outcome)
	}
	if err := validateSteps(TypeRunFinished, e.Steps); err != nil {
		return err
	}
	return validateUsage(TypeRunFinished, e.Usage)
}
