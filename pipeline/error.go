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
	EUnavailable       = "unavailable"
	EInternal          = "server_error"
)

// Error is a failure the API reports to its caller as {code, message, details}.
// Any error that is not an *Error is an internal fault.
type Error struct {
	Code    string
	Message string
	// Details is nil, FieldErrors for validation failures, or
	// {"required_scope": scope} for insufficient_scope.
	Details any

	// kind is the sentinel of a particular failure (ErrLastOwner…) this
	// error is an instance of, or nil.
	kind *Error
	// particular marks such a sentinel: it matches its instances only,
	// not every error of its code.
	particular bool
}

func (e *Error) Error() string { return fmt.Sprintf("pipeline: %s: %s", e.Code, e.Message) }

// Is reports whether err matches target, however it was wrapped: a
// sentinel of a particular failure (ErrLastOwner…) matches its own
// instances, and any other *Error matches every error of its code, so
// that errors.Is(err, ErrNotFound) holds for every not_found error and
// errors.Is(err, ErrValidation) for an ErrLastOwner.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	switch {
	case !ok:
		return false
	case t.particular:
		return e == t || e.kind == t
	default:
		return t.Code == e.Code
	}
}

// particular returns the sentinel of a particular failure of a code.
func particular(code, message string) *Error {
	return &Error{Code: code, Message: message, particular: true}
}

// instance returns an error of the sentinel kind with its own message,
// recorded against field for a validation failure.
// The receiver is the sentinel.
func (e *Error) instance(field, message string) *Error {
	out := &Error{Code: e.Code, Message: message, kind: e}
	if e.Code == EValidation {
		out.Message, out.Details = ErrValidation.Message, FieldErrors{field: {message}}
	}
	return out
}

// Sentinels of the error codes, for errors.Is. The Service returns errors
// of these codes with messages of their own.
var (
	ErrUnauthenticated   = &Error{Code: EUnauthenticated, Message: "Unauthenticated."}
	ErrInsufficientScope = &Error{Code: EInsufficientScope, Message: "The token does not carry the required scope."}
	ErrForbidden         = &Error{Code: EForbidden, Message: "Forbidden."}
	ErrNotFound          = &Error{Code: ENotFound, Message: "Not found."}
	ErrValidation        = &Error{Code: EValidation, Message: "The given data was invalid."}
	ErrRateLimited       = &Error{Code: ERateLimited, Message: "Too Many Attempts."}
	ErrConflict          = &Error{Code: EConflict, Message: "Conflict."}
	// ErrUnavailable is what the store returns, wrapping the cause, when the
	// database cannot be reached or does not answer in time (the caller's
	// deadline passed, or the database's own statement timeout fired). Any
	// operation may return it; nothing of the operation is committed, so it
	// may be retried, with the same idempotency key for a write.
	ErrUnavailable = &Error{Code: EUnavailable, Message: "Service temporarily unavailable."}
)

// Unavailable returns an error matching ErrUnavailable (errors.Is) that
// wraps cause, for the log.
func Unavailable(cause error) error { return fmt.Errorf("%w: %w", ErrUnavailable, cause) }

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

// FieldErrors maps the fields of an input to what is wrong with them.
type FieldErrors map[string][]string

// Add records msg against field.
func (f FieldErrors) Add(field, msg string) { f[field] = append(f[field], msg) }

// Err returns a validation_failed *Error carrying f, or nil when f is empty.
func (f FieldErrors) Err() error {
	if len(f) == 0 {
		return nil
	}
	return &Error{Code: EValidation, Message: ErrValidation.Message, Details: f}
}

// Fields returns the field messages of a validation_failed error, and nil
// for any other error.
func Fields(err error) FieldErrors {
	var e *Error
	if !errors.As(err, &e) || e.Code != EValidation {
		return nil
	}
	f, _ := e.Details.(FieldErrors)
	return f
}

// Invalid returns a validation_failed error for one field.
func Invalid(field, msg string) error {
	f := FieldErrors{}
	f.Add(field, msg)
	return f.Err()
}

func errNotFound(what string) error { return Errorf(ENotFound, "%s not found.", what) }
