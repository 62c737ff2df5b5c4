package pipeline

import (
	"errors"
	"fmt"
)

// Error codes, as they appear in the API's error envelope.
const (
	EUnauthenticated   = "unauthenticated"
	EInsufficientScope = "insufficient_scope"
	EForbidden         = "forbidden"
	ENotFound          = "not_found"
	EValidation        = "validation_failed"
	ERateLimited       = "rate_limited"
	EConflict          = "conflict"
	EInternal          = "server_error"
)

// Error is a failure the API reports to its caller as {code, message, details}.
// Any error that is not an *Error is an internal fault.
type Error struct {
	Code    string
	Message string
	// Details is nil, field messages (map[string][]string) for validation
	// failures, or {"required_scope": scope} for insufficient_scope.
	Details any
}

func (e *Error) Error() string { return fmt.Sprintf("pipeline: %s: %s", e.Code, e.Message) }

// Errorf returns an *Error with a formatted message and no details.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err, EInternal for an error that is not an
// *Error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// ErrorMessage returns the caller-safe message of err; internal faults get a
// generic message so that no detail leaks.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Server error."
}

// FieldErrors collects field-level validation messages.
type FieldErrors map[string][]string

// Add records msg against field.
func (f FieldErrors) Add(field, msg string) { f[field] = append(f[field], msg) }

// Messages shared by the checks of several operations.
const (
	MsgPage   = "The page must be an integer greater than or equal to 1."
	MsgStage  = "The stage must be the id of a stage of this job."
	MsgStatus = "The selected status is invalid."
)

// Merge adds the field messages of a validation_failed error; any other
// error, and nil, add nothing.
func (f FieldErrors) Merge(err error) {
	var e *Error
	if !errors.As(err, &e) || e.Code != EValidation {
		return
	}
	details, _ := e.Details.(map[string][]string)
	for field, msgs := range details {
		f[field] = append(f[field], msgs...)
	}
}

// decoded reports whether field still needs its value checked: neither it
// nor the body as a whole failed to decode.
func (f FieldErrors) decoded(field string) bool {
	_, bad := f[field]
	_, unreadable := f["body"]
	return !bad && !unreadable
}

func (f FieldErrors) clone() FieldErrors {
	out := make(FieldErrors, len(f))
	for k, v := range f {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// Err returns a validation_failed *Error carrying f, or nil when f is empty.
func (f FieldErrors) Err() error {
	if len(f) == 0 {
		return nil
	}
	return &Error{Code: EValidation, Message: "The given data was invalid.", Details: map[string][]string(f)}
}

// Invalid returns a validation_failed error for one field.
func Invalid(field, msg string) error {
	f := FieldErrors{}
	f.Add(field, msg)
	return f.Err()
}

func errNotFound(what string) error { return Errorf(ENotFound, "%s not found.", what) }

var errUnauthenticated = &Error{Code: EUnauthenticated, Message: "Unauthenticated."}
