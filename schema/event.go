package schema

import (
	"bytes"
	"reflect"
	"regexp"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

// Event is implemented by every event type. An event knows its versioned
// type name, its id (used as Nats-Msg-Id for deduplication), the subject it
// is published on, and how to check itself before it is written.
type Event interface {
	// EventType returns the versioned type name, e.g. "trajectory.tool_call.v1".
	EventType() string
	// EventID returns the event's unique id.
	EventID() string
	// EventTime returns when the event happened.
	EventTime() time.Time
	// Subject returns the NATS subject the event belongs on.
	Subject() string
	// Validate returns an *Error with CodeInvalid when a required field is
	// missing or a value is outside its closed set.
	Validate() error
}

// Meta is the header every event embeds: its id and when it happened.
// Callers set both; schema never reads a clock.
type Meta struct {
	ID   string    `msgpack:"id" json:"id"`
	Time time.Time `msgpack:"time" json:"time"`
}

// EventID returns m.ID.
func (m Meta) EventID() string { return m.ID }

// EventTime returns m.Time.
func (m Meta) EventTime() time.Time { return m.Time }

func (m Meta) validate(eventType string) error {
	if m.ID == "" {
		return Errorf(CodeInvalid, "%s: missing event id", eventType)
	}
	if m.Time.IsZero() {
		return Errorf(CodeInvalid, "%s: missing time", eventType)
	}
	return nil
}

// validateInRun checks what every event inside a run has: its header and
// a valid run id.
func (m Meta) validateInRun(eventType, runID string) error {
	if err := m.validate(eventType); err != nil {
		return err
	}
	return within(eventType, ValidateRunID(runID))
}

// validateSequenced also checks a sequence number, which starts at 1.
func (m Meta) validateSequenced(eventType, runID string, seq uint64) error {
	if err := m.validateInRun(eventType, runID); err != nil {
		return err
	}
	if seq == 0 {
		return Errorf(CodeInvalid, "%s: seq starts at 1", eventType)
	}
	return nil
}

// Subjects and subject parts. These names are a contract shared with every
// deployment; do not rename them.
const (
	SubjectTasks  = "rote.tasks"
	subjectRuns   = "rote.runs"
	SubjectAllRun = subjectRuns + ".>"
)

// Run subject kinds: the last token of rote.runs.<run_id>.<kind>.
const (
	KindStarted   = "started"
	KindFinished  = "finished"
	KindCalls     = "calls"
	KindUnparsed  = "unparsed"
	KindObserved  = "observed"
	KindActions   = "actions"
	KindLLM       = "llm"
	KindExpect    = "expect"
	KindVerify    = "verify"
	KindPlaybook  = "playbook"
	KindInventory = "inventory"
	KindRejected  = "rejected"
	KindMemory    = "memory"
)

// RunSubject returns rote.runs.<runID>.<kind>.
func RunSubject(runID, kind string) string { return subjectRuns + "." + runID + "." + kind }

// RunFilter returns the subject filter matching every event of one run.
func RunFilter(runID string) string { return subjectRuns + "." + runID + ".>" }

// RunKindFilter returns the subject filter matching one kind across all runs.
func RunKindFilter(kind string) string { return subjectRuns + ".*." + kind }

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ValidateRunID returns an *Error with CodeInvalid unless id can be used as
// a single subject token: 1 to 64 characters of letters, digits, '-' or '_'.
func ValidateRunID(id string) error {
	if !runIDPattern.MatchString(id) {
		return Errorf(CodeInvalid, "run id %q: want 1-64 characters of [A-Za-z0-9_-]", id)
	}
	return nil
}

// Event type names.
const (
	TypeTaskRequested    = "task.requested.v1"
	TypeRunStarted       = "run.started.v1"
	TypeRunFinished      = "run.finished.v1"
	TypeToolCall         = "trajectory.tool_call.v1"
	TypeUnparsed         = "trajectory.unparsed.v1"
	TypeInventory        = "trajectory.inventory.v1"
	TypeBrowserObserved  = "browser.observed.v1"
	TypeBrowserAction    = "browser.action.v1"
	TypeLLMCall          = "llm.call.v1"
	TypeExpectChecked    = "expect.checked.v1"
	TypeVerifyChecked    = "verify.checked.v1"
	TypePlaybookPromoted = "playbook.promoted.v1"
	TypePlaybookPatched  = "playbook.patched.v1"
	TypeTaskRejected     = "task.rejected.v1"
	TypeMemoryChecked    = "memory.checked.v1"
)

// EventTypes returns every known event type name, in a fixed order.
func EventTypes() []string {
	return []string{
		TypeTaskRequested, TypeRunStarted, TypeRunFinished, TypeToolCall,
		TypeUnparsed, TypeInventory, TypeBrowserObserved, TypeBrowserAction, TypeLLMCall,
		TypeExpectChecked, TypeVerifyChecked, TypePlaybookPromoted, TypePlaybookPatched, TypeTaskRejected,
		TypeMemoryChecked,
	}
}

// NewEvent returns a zero event of the named type, ready to decode into.
// An unknown name is an *Error with CodeInvalid.
func NewEvent(eventType string) (Event, error) {
	switch eventType {
	case TypeTaskRequested:
		return &TaskRequested{}, nil
	case TypeRunStarted:
		return &RunStarted{}, nil
	case TypeRunFinished:
		return &RunFinished{}, nil
	case TypeToolCall:
		return &ToolCall{}, nil
	case TypeUnparsed:
		return &Unparsed{}, nil
	case TypeInventory:
		return &Inventory{}, nil
	case TypeBrowserObserved:
		return &BrowserObserved{}, nil
	case TypeBrowserAction:
		return &BrowserAction{}, nil
	case TypeLLMCall:
		return &LLMCall{}, nil
	case TypeExpectChecked:
		return &ExpectChecked{}, nil
	case TypeVerifyChecked:
		return &VerifyChecked{}, nil
	case TypePlaybookPromoted:
		return &PlaybookPromoted{}, nil
	case TypePlaybookPatched:
		return &PlaybookPatched{}, nil
	case TypeTaskRejected:
		return &TaskRejected{}, nil
	case TypeMemoryChecked:
		return &MemoryChecked{}, nil
	}
	return nil, Errorf(CodeInvalid, "unknown event type %q", eventType)
}

// Marshal validates ev and encodes it as msgpack. Map keys are sorted so
// that the same event always encodes to the same bytes.
func Marshal(ev Event) ([]byte, error) {
	if err := ev.Validate(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	if err := enc.Encode(ev); err != nil {
		return nil, Errorf(CodeInvalid, "encode %s: %v", ev.EventType(), err)
	}
	return buf.Bytes(), nil
}

// Unmarshal decodes msgpack data as an event of the named type and
// validates it. Every time in the event is in UTC, whatever the local
// zone, so decoded events print the same everywhere. Unknown types and malformed or invalid payloads are an
// *Error with CodeInvalid.
func Unmarshal(eventType string, data []byte) (Event, error) {
	ev, err := NewEvent(eventType)
	if err != nil {
		return nil, err
	}
	if err := DecodeMsgpack(data, ev); err != nil {
		return nil, within("decode "+eventType, err)
	}
	utcTimes(reflect.ValueOf(ev))
	if err := ev.Validate(); err != nil {
		return nil, err
	}
	return ev, nil
}

var timeType = reflect.TypeOf(time.Time{})

// utcTimes sets every time.Time reachable from v to UTC.
func utcTimes(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			utcTimes(v.Elem())
		}
	case reflect.Struct:
		if v.Type() == timeType {
			if v.CanSet() {
				v.Set(reflect.ValueOf(v.Interface().(time.Time).UTC()))
			}
			return
		}
		for i := 0; i < v.NumField(); i++ {
			utcTimes(v.Field(i))
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			utcTimes(v.Index(i))
		}
	}
}
