package schema

import "time"

// ObservationKind says whether an observation is a whole page or a diff.
type ObservationKind string

// Observation kinds.
const (
	ObservationFull ObservationKind = "full" // a grounded render of the page
	ObservationDiff ObservationKind = "diff" // changes since the last grounded observation
)

// ObservationStats measures one observation.
type ObservationStats struct {
	DOMElements int           `msgpack:"dom_elements" json:"dom_elements"`
	Nodes       int           `msgpack:"nodes" json:"nodes"`
	Actionable  int           `msgpack:"actionable" json:"actionable"`
	Chars       int           `msgpack:"chars" json:"chars"`
	Tokens      int           `msgpack:"tokens" json:"tokens"`
	Capture     time.Duration `msgpack:"capture" json:"capture"`
	Distill     time.Duration `msgpack:"distill" json:"distill"`
	// Settle is how long the page took to settle before it was captured;
	// Unsettled says the wait gave up at its cap and the capture went
	// ahead on a page still changing, and HeldBy what held it ("awaiting
	// GET http://…/poll", "its DOM still changing").
	Settle    time.Duration `msgpack:"settle,omitempty" json:"settle,omitempty"`
	Unsettled bool          `msgpack:"unsettled,omitempty" json:"unsettled,omitempty"`
	HeldBy    string        `msgpack:"held_by,omitempty" json:"held_by,omitempty"`
}

// BrowserObserved is one observation of a page as the planner saw it.
type BrowserObserved struct {
	Meta   `msgpack:",inline"`
	RunID  string           `msgpack:"run_id" json:"run_id"`
	Seq    uint64           `msgpack:"seq" json:"seq"`
	StepID string           `msgpack:"step_id,omitempty" json:"step_id,omitempty"`
	URL    string           `msgpack:"url" json:"url"`
	Title  string           `msgpack:"title,omitempty" json:"title,omitempty"`
	Kind   ObservationKind  `msgpack:"kind" json:"kind"`
	Render string           `msgpack:"render" json:"render"`
	Stats  ObservationStats `msgpack:"stats" json:"stats"`
}

// EventType returns TypeBrowserObserved.
func (*BrowserObserved) EventType() string { return TypeBrowserObserved }

// Subject returns rote.runs.<run_id>.observed.
func (e *BrowserObserved) Subject() string { return RunSubject(e.RunID, KindObserved) }

// Validate checks identity, sequence and kind.
func (e *BrowserObserved) Validate() error {
	if err := e.Meta.validateSequenced(TypeBrowserObserved, e.RunID, e.Seq); err != nil {
		return err
	}
	if e.Kind != ObservationFull && e.Kind != ObservationDiff {
		return Errorf(CodeInvalid, "%s: kind %q: want full or diff", TypeBrowserObserved, e.Kind)
	}
	return nil
}

// Resolution says which rung of the resolution ladder found a target.
type Resolution string

// Resolution rungs, strongest first.
const (
	ResolvedByID       Resolution = "id"
	ResolvedByRoleName Resolution = "role_name"
	ResolvedByText     Resolution = "text"
	ResolvedByRule     Resolution = "rule"  // a Pick among sibling records
	ResolvedByPlace    Resolution = "place" // the Nth of as many twin fields as recorded (Target.Twins)
)

// MaxDialogs bounds the dialogs one action reports (the actuator answers
// any more without reporting them).
const MaxDialogs = 8

// BrowserAction is one dispatched (or refused) browser action.
type BrowserAction struct {
	Meta       `msgpack:",inline"`
	RunID      string        `msgpack:"run_id" json:"run_id"`
	Seq        uint64        `msgpack:"seq" json:"seq"`
	StepID     string        `msgpack:"step_id,omitempty" json:"step_id,omitempty"`
	Action     Action        `msgpack:"action" json:"action"`
	Resolution Resolution    `msgpack:"resolution,omitempty" json:"resolution,omitempty"`
	SettleWait time.Duration `msgpack:"settle_wait" json:"settle_wait"`
	// Unsettled says the settle gave up at its cap, or a navigation's
	// load did not end and was stopped: the action went ahead on a page
	// still changing. HeldBy says what held it.
	Unsettled bool          `msgpack:"unsettled,omitempty" json:"unsettled,omitempty"`
	HeldBy    string        `msgpack:"held_by,omitempty" json:"held_by,omitempty"`
	Duration  time.Duration `msgpack:"duration" json:"duration"`
	// Timing is where the rest of Duration went.
	Timing ActionTiming `msgpack:"timing,omitempty" json:"timing,omitempty"`
	Output string       `msgpack:"output,omitempty" json:"output,omitempty"` // extract
	// Options are the labels a select offered: what a choice was made
	// among, for the distiller to tell a judgment from a constant.
	Options []string `msgpack:"options,omitempty" json:"options,omitempty"`
	// Among are the sibling records a clicked control was one of, and
	// Chosen its place among them: a choice, for the distiller to bind
	// or turn into a rule, never to freeze.
	Among  *RecordSet `msgpack:"among,omitempty" json:"among,omitempty"`
	Chosen int        `msgpack:"chosen,omitempty" json:"chosen,omitempty"`
	// Lists are the lists the page showed when an extract read its main
	// text: what an answer read off it may be the first few of.
	Lists []RecordSet `msgpack:"lists,omitempty" json:"lists,omitempty"`
	// Picked is what a Pick's evaluation found at replay.
	Picked string `msgpack:"picked,omitempty" json:"picked,omitempty"`
	// Dialogs are the alerts, confirms and prompts the page opened during
	// the action, each dismissed: `confirm "Delete it?" dismissed`.
	Dialogs []string `msgpack:"dialogs,omitempty" json:"dialogs,omitempty"`
	Error   *Error   `msgpack:"error,omitempty" json:"error,omitempty"`
}

// ActionTiming is where an action's time went after its page settled
// (SettleWait): resolving its target on the page (an observation, the
// resolution ladder, the element's handle), dispatching it (input events,
// a navigation's load), and, for a control that sends, the page settling
// after it while the send guard watched where it went.
type ActionTiming struct {
	Resolve  time.Duration `msgpack:"resolve,omitempty" json:"resolve,omitempty"`
	Dispatch time.Duration `msgpack:"dispatch,omitempty" json:"dispatch,omitempty"`
	Send     time.Duration `msgpack:"send,omitempty" json:"send,omitempty"`
}

// EventType returns TypeBrowserAction.
func (*BrowserAction) EventType() string { return TypeBrowserAction }

// Subject returns rote.runs.<run_id>.actions.
func (e *BrowserAction) Subject() string { return RunSubject(e.RunID, KindActions) }

// Validate checks identity, sequence and the action itself.
func (e *BrowserAction) Validate() error {
	if err := e.Meta.validateSequenced(TypeBrowserAction, e.RunID, e.Seq); err != nil {
		return err
	}
	switch e.Resolution {
	case "", ResolvedByID, ResolvedByRoleName, ResolvedByText, ResolvedByRule, ResolvedByPlace:
	default:
		return Errorf(CodeInvalid, "%s: resolution %q: want id, role_name, text, rule or place", TypeBrowserAction, e.Resolution)
	}
	if len(e.Dialogs) > MaxDialogs {
		return Errorf(CodeInvalid, "%s: %d dialogs, over %d", TypeBrowserAction, len(e.Dialogs), MaxDialogs)
	}
	return within(TypeBrowserAction, e.Action.Validate())
}
