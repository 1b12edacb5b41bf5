package schema

import (
	"fmt"
	"time"
)

// CallErrorKind says how a tool call failed.
type CallErrorKind string

// Call error kinds, a closed set.
const (
	CallErrorRPC       CallErrorKind = "rpc"       // a JSON-RPC error response
	CallErrorTool      CallErrorKind = "tool"      // a result with isError set
	CallErrorCancelled CallErrorKind = "cancelled" // the client cancelled the request
	CallErrorLost      CallErrorKind = "lost"      // no response before the session ended
)

// CallError describes a failed tool call.
type CallError struct {
	Kind    CallErrorKind `msgpack:"kind" json:"kind"`
	Code    int64         `msgpack:"code,omitempty" json:"code,omitempty"`
	Message string        `msgpack:"message,omitempty" json:"message,omitempty"`
}

// ToolCall is one correlated tools/call request and its response: the unit
// of the trajectory.
type ToolCall struct {
	Meta      `msgpack:",inline"` // Time is when the request was seen
	RunID     string              `msgpack:"run_id" json:"run_id"`
	Seq       uint64              `msgpack:"seq" json:"seq"` // monotonic within the run, from 1
	Tool      string              `msgpack:"tool" json:"tool"`
	RequestID RawJSON             `msgpack:"request_id,omitempty" json:"request_id,omitempty"` // the JSON-RPC id
	// Arguments is the call's arguments JSON with secrets replaced by
	// digests, inline when it fits InlineLimit; otherwise it is in the blob
	// store under ArgumentsRef.
	Arguments       RawJSON `msgpack:"arguments,omitempty" json:"arguments,omitempty"`
	ArgumentsDigest string  `msgpack:"arguments_digest,omitempty" json:"arguments_digest,omitempty"`
	ArgumentsSize   int     `msgpack:"arguments_size,omitempty" json:"arguments_size,omitempty"`
	ArgumentsRef    string  `msgpack:"arguments_ref,omitempty" json:"arguments_ref,omitempty"`
	// Result is the response's result (or error) JSON when it fits
	// InlineLimit; otherwise it is in the blob store under BlobRef.
	Result       RawJSON `msgpack:"result,omitempty" json:"result,omitempty"`
	ResultDigest string  `msgpack:"result_digest,omitempty" json:"result_digest,omitempty"`
	ResultSize   int     `msgpack:"result_size,omitempty" json:"result_size,omitempty"`
	BlobRef      string  `msgpack:"blob_ref,omitempty" json:"blob_ref,omitempty"`
	// ResultMeta is the result's _meta, kept inline when the result is in
	// the blob store and its _meta fits MetaLimit: what a server says
	// about its result for a distiller, not its model.
	ResultMeta RawJSON       `msgpack:"result_meta,omitempty" json:"result_meta,omitempty"`
	Duration   time.Duration `msgpack:"duration" json:"duration"`
	Error      *CallError    `msgpack:"error,omitempty" json:"error,omitempty"`
	// StepID is the playbook step a replay made the call for.
	StepID string `msgpack:"step_id,omitempty" json:"step_id,omitempty"`
	// Bound are the step outputs a replay found in earlier results and
	// put into the arguments: reference (steps.<id>.<name>) to value.
	Bound map[string]string `msgpack:"bound,omitempty" json:"bound,omitempty"`
	// Probe marks a call a replay made to read the page before acting (a
	// control's contract), not one of the task's: never distilled.
	Probe bool `msgpack:"probe,omitempty" json:"probe,omitempty"`
	// Offered marks a call rote record answered itself: a playbook it
	// offered as a tool, replayed in a run of its own. The server never
	// saw it; its arguments are not kept (a secret may be among them).
	Offered bool `msgpack:"offered,omitempty" json:"offered,omitempty"`
}

// EventType returns TypeToolCall.
func (*ToolCall) EventType() string { return TypeToolCall }

// Subject returns rote.runs.<run_id>.calls.
func (e *ToolCall) Subject() string { return RunSubject(e.RunID, KindCalls) }

// Validate checks identity, sequence, the tool name, and that the result
// is either inline, spilled with a matching digest, or absent because the
// call failed without a response.
func (e *ToolCall) Validate() error {
	if err := e.Meta.validateSequenced(TypeToolCall, e.RunID, e.Seq); err != nil {
		return err
	}
	if e.Tool == "" {
		return Errorf(CodeInvalid, "%s: missing tool", TypeToolCall)
	}
	if e.Duration < 0 {
		return Errorf(CodeInvalid, "%s: negative duration", TypeToolCall)
	}
	if err := validatePayload(e.Arguments, e.ArgumentsDigest, e.ArgumentsSize, e.ArgumentsRef, true); err != nil {
		return within(TypeToolCall+": arguments", err)
	}
	if len(e.ResultMeta) > 0 && (e.BlobRef == "" || len(e.ResultMeta) > MetaLimit) {
		return Errorf(CodeInvalid, "%s: a result's _meta is kept beside it only when it is in the blob store and fits %d bytes", TypeToolCall, MetaLimit)
	}
	return within(TypeToolCall+": result", validatePayload(e.Result, e.ResultDigest, e.ResultSize, e.BlobRef, e.Error != nil))
}

// Direction is which way a line travelled through the proxy.
type Direction string

// Directions.
const (
	ToServer Direction = "to_server"
	ToClient Direction = "to_client"
)

// Unparsed records a line the proxy forwarded but could not read as
// JSON-RPC. The line itself is inline up to InlineLimit, else in the blob
// store; a line too large to keep at all (Dropped) is recorded by digest
// and size only.
type Unparsed struct {
	Meta      `msgpack:",inline"`
	RunID     string    `msgpack:"run_id" json:"run_id"`
	Seq       uint64    `msgpack:"seq" json:"seq"`
	Direction Direction `msgpack:"direction" json:"direction"`
	Reason    string    `msgpack:"reason" json:"reason"`
	Line      RawText   `msgpack:"line,omitempty" json:"line,omitempty"`
	Digest    string    `msgpack:"digest" json:"digest"`
	Size      int       `msgpack:"size" json:"size"`
	BlobRef   string    `msgpack:"blob_ref,omitempty" json:"blob_ref,omitempty"`
	Dropped   bool      `msgpack:"dropped,omitempty" json:"dropped,omitempty"`
}

// EventType returns TypeUnparsed.
func (*Unparsed) EventType() string { return TypeUnparsed }

// Subject returns rote.runs.<run_id>.unparsed.
func (e *Unparsed) Subject() string { return RunSubject(e.RunID, KindUnparsed) }

// Validate checks identity, direction, reason and the payload reference.
func (e *Unparsed) Validate() error {
	if err := e.Meta.validateInRun(TypeUnparsed, e.RunID); err != nil {
		return err
	}
	if e.Direction != ToServer && e.Direction != ToClient {
		return Errorf(CodeInvalid, "%s: direction %q: want to_server or to_client", TypeUnparsed, e.Direction)
	}
	if e.Reason == "" {
		return Errorf(CodeInvalid, "%s: missing reason", TypeUnparsed)
	}
	if e.Dropped {
		if len(e.Line) > 0 || e.BlobRef != "" {
			return Errorf(CodeInvalid, "%s: a dropped line keeps no payload", TypeUnparsed)
		}
		return within(TypeUnparsed, ValidateDigest(e.Digest))
	}
	return within(TypeUnparsed, validatePayload(e.Line, e.Digest, e.Size, e.BlobRef, false))
}

// validatePayload checks an inline-or-spilled payload: an inline payload
// fits InlineLimit and matches its digest and size; a spilled one has no
// inline bytes and its blob ref is its digest. optional allows no payload.
func validatePayload(inline []byte, digest string, size int, blobRef string, optional bool) error {
	if digest == "" {
		if optional && len(inline) == 0 && blobRef == "" {
			return nil
		}
		return Errorf(CodeInvalid, "missing digest")
	}
	if err := ValidateDigest(digest); err != nil {
		return err
	}
	if blobRef != "" {
		if len(inline) != 0 {
			return Errorf(CodeInvalid, "payload both inline and in blob %s", blobRef)
		}
		if blobRef != digest {
			return Errorf(CodeInvalid, "blob ref %s differs from digest %s", blobRef, digest)
		}
		if size <= InlineLimit {
			return Errorf(CodeInvalid, "payload of %d bytes spilled below the inline limit", size)
		}
		return nil
	}
	if len(inline) > InlineLimit {
		return Errorf(CodeInvalid, "inline payload of %d bytes exceeds %d", len(inline), InlineLimit)
	}
	if size != len(inline) || Digest(inline) != digest {
		return Errorf(CodeInvalid, "inline payload does not match its size or digest")
	}
	return nil
}

// String returns "kind code: message".
func (e *CallError) String() string {
	if e.Code != 0 {
		return fmt.Sprintf("%s %d: %s", e.Kind, e.Code, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Kind, e.Message)
}
