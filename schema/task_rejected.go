package schema

import "github.com/vmihailenco/msgpack/v5"

// TaskRejected says a task on rote.tasks will not be done, and why: it
// did not decode, named no suite task Rote has, needed a secret the
// serving process was not given, or its run refused it for a reason
// every attempt would meet. It is published on
// rote.runs.<task_id>.rejected, where the task's publisher waits for its
// run, so that no task vanishes without a reason. A message whose task
// id cannot be read is only logged and counted.
type TaskRejected struct {
	Meta    `msgpack:",inline"`
	RunID   string `msgpack:"run_id" json:"run_id"`                         // the task id: the run it would have been
	TaskSeq uint64 `msgpack:"task_seq,omitempty" json:"task_seq,omitempty"` // its place in ROTE_TASKS
	MsgID   string `msgpack:"msg_id,omitempty" json:"msg_id,omitempty"`     // its Nats-Msg-Id, when set
	Reason  Error  `msgpack:"reason" json:"reason"`
}

// EventType returns TypeTaskRejected.
func (*TaskRejected) EventType() string { return TypeTaskRejected }

// Subject returns rote.runs.<run_id>.rejected.
func (e *TaskRejected) Subject() string { return RunSubject(e.RunID, KindRejected) }

// Validate checks identity and that a reason is given.
func (e *TaskRejected) Validate() error {
	if err := e.Meta.validateInRun(TypeTaskRejected, e.RunID); err != nil {
		return err
	}
	if e.Reason.Code == "" {
		return Errorf(CodeInvalid, "%s: a rejection without a reason", TypeTaskRejected)
	}
	return nil
}

// TaskIDOf reads the task id out of a task message that did not decode
// as task.requested.v1 (a field of the wrong type, a missing one): ""
// when the message holds no usable task id.
func TaskIDOf(data []byte) string {
	var partial struct {
		TaskID string `msgpack:"task_id"`
	}
	if msgpack.Unmarshal(data, &partial) != nil || ValidateRunID(partial.TaskID) != nil {
		return ""
	}
	return partial.TaskID
}
