package schema

import (
	"errors"
	"fmt"
)

// Code is the closed vocabulary of error codes that cross the bus.
type Code string

// Error codes. A Code names a class of failure; Error.Message says what
// happened in that instance.
const (
	CodeInvalid           Code = "invalid"            // malformed input: event, playbook, expect
	CodeUnknownParam      Code = "unknown_param"      // a binding names no declared parameter
	CodeMissingParam      Code = "missing_param"      // a required parameter has no binding
	CodeParamType         Code = "param_type"         // a binding does not parse as its declared type
	CodeInvalidParam      Code = "invalid_param"      // a value would reach outside the path segment it fills
	CodeUnbound           Code = "unbound"            // a template references a value with no binding
	CodeOutOfSet          Code = "out_of_set"         // an answer outside a closed option set
	CodeNotApplicable     Code = "not_applicable"     // an expect primitive the world state cannot answer
	CodeFingerprint       Code = "fingerprint"        // environment fingerprint mismatch
	CodeRepairUnavailable Code = "repair_unavailable" // no planner answered a repair request
	CodeUnverified        Code = "unverified"         // nothing proved the run's effect
	CodeTooLarge          Code = "too_large"          // a page too large to observe, even compacted
	CodeNotFound          Code = "not_found"          // no element (or option) matches a target
	CodeAmbiguous         Code = "ambiguous"          // several elements match a target: refuse to guess
	CodeBindingNotFound   Code = "binding_not_found"  // a step output's locator found nothing in the result
	CodeContractChanged   Code = "contract_changed"   // the target sends elsewhere than recorded (form action or method, href)
	CodeControlChanged    Code = "control_changed"    // the target is another kind of control (tag, input type), sending where it did
	CodeStateChanged      Code = "state_changed"      // a control a click toggles is not in the state it was recorded in
	CodeOutOfOrigin       Code = "out_of_origin"      // a page load outside the origins a session may visit, or a scheme no page may use
	CodeObscured          Code = "obscured"           // another element covers the target
	CodeBrowserCrashed    Code = "browser_crashed"    // the browser of a session died
	CodeNoSession         Code = "no_session"         // no browser session for the run here
	CodeUnavailable       Code = "unavailable"        // a service a step needs did not answer
	CodeToolError         Code = "tool_error"         // a tool answered with isError
	CodeExpectFailed      Code = "expect_failed"      // an assertion did not hold
	CodeUnrepeatable      Code = "unrepeatable"       // a step's check failed after its action sent what doing it again could repeat
	CodeDialog            Code = "dialog"             // the page asked a question (confirm, prompt) the playbook's step never met; it was dismissed
	CodeInternal          Code = "internal"           // a bug or an unexpected failure
)

// Error is the one error type that crosses service boundaries. Two Errors
// match under errors.Is when their Codes are equal, so callers compare
// against the sentinels below regardless of the message.
type Error struct {
	Code    Code   `msgpack:"code" json:"code"`
	Message string `msgpack:"message" json:"message"`
}

// Error returns "code: message".
func (e *Error) Error() string {
	if e.Message == "" {
		return string(e.Code)
	}
	return string(e.Code) + ": " + e.Message
}

// Is reports whether target is an *Error with the same Code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Errorf returns an *Error with code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Sentinels for errors.Is. Each matches any *Error with the same Code.
var (
	ErrInvalid           = &Error{Code: CodeInvalid}
	ErrUnknownParam      = &Error{Code: CodeUnknownParam}
	ErrMissingParam      = &Error{Code: CodeMissingParam}
	ErrParamType         = &Error{Code: CodeParamType}
	ErrInvalidParam      = &Error{Code: CodeInvalidParam}
	ErrUnbound           = &Error{Code: CodeUnbound}
	ErrOutOfSet          = &Error{Code: CodeOutOfSet}
	ErrNotApplicable     = &Error{Code: CodeNotApplicable}
	ErrFingerprint       = &Error{Code: CodeFingerprint}
	ErrRepairUnavailable = &Error{Code: CodeRepairUnavailable}
	ErrUnverified        = &Error{Code: CodeUnverified}
	ErrTooLarge          = &Error{Code: CodeTooLarge}
	ErrNotFound          = &Error{Code: CodeNotFound}
	ErrAmbiguous         = &Error{Code: CodeAmbiguous}
	ErrBindingNotFound   = &Error{Code: CodeBindingNotFound}
	ErrContractChanged   = &Error{Code: CodeContractChanged}
	ErrControlChanged    = &Error{Code: CodeControlChanged}
	ErrStateChanged      = &Error{Code: CodeStateChanged}
	ErrOutOfOrigin       = &Error{Code: CodeOutOfOrigin}
	ErrObscured          = &Error{Code: CodeObscured}
	ErrBrowserCrashed    = &Error{Code: CodeBrowserCrashed}
	ErrNoSession         = &Error{Code: CodeNoSession}
	ErrUnavailable       = &Error{Code: CodeUnavailable}
	ErrToolError         = &Error{Code: CodeToolError}
	ErrExpectFailed      = &Error{Code: CodeExpectFailed}
	ErrUnrepeatable      = &Error{Code: CodeUnrepeatable}
	ErrDialog            = &Error{Code: CodeDialog}
	ErrInternal          = &Error{Code: CodeInternal}
)

// within returns err with context in front of its message, keeping its
// code; an error that is not an *Error becomes CodeInvalid.
func within(context string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return &Error{Code: e.Code, Message: context + ": " + messageOf(err)}
	}
	return Errorf(CodeInvalid, "%s: %v", context, err)
}

// messageOf is err's message without its code: an *Error's, or a
// wrapped one's whole text with the wrapping; any other error's text.
func messageOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return AsError(err).Message
	}
	return err.Error()
}

// AsError converts any error to an *Error for the bus: an *Error as is;
// an error wrapping one keeps its code with the whole message; anything
// else is CodeInternal.
func AsError(err error) *Error {
	var e *Error
	if !errors.As(err, &e) {
		return &Error{Code: CodeInternal, Message: err.Error()}
	}
	if err == error(e) {
		return e
	}
	return &Error{Code: e.Code, Message: err.Error()}
}
