package pipeline

import (
	"errors"
	"maps"
)

// An error as the API answers it: the HTTP status of its code and the
// {error: {code, message, details}} envelope. The domain says it, so that
// an approved proposal's failed run keeps exactly what the write would
// have answered; a face adds only the codes of its own transport.

// ErrorEnvelope is the body of every error answer.
type ErrorEnvelope struct {
	Error ErrorObject `json:"error"`
}

// ErrorObject is an error's code, message and details (null, or field
// names to messages, or what the code documents).
type ErrorObject struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details"`
}

// codeStatus is the HTTP status of each of the domain's error codes.
var codeStatus = map[string]int{
	EUnauthenticated:   401,
	EInsufficientScope: 403,
	EForbidden:         403,
	ENotFound:          404,
	EValidation:        422,
	ERateLimited:       429,
	EConflict:          409,
	EUnavailable:       503,
	EInternal:          500,
}

// fixedMessages are the messages the API document spells out; they are
// sent as written whatever the error carried.
var fixedMessages = map[string]string{
	EUnauthenticated: "Unauthenticated.",
	ERateLimited:     "Too Many Attempts.",
	EUnavailable:     "Service temporarily unavailable.",
	EInternal:        "Server error.",
}

// withDetails are the codes whose envelope carries details; every other
// code has details null. A conflict has details only for a double-booked
// interview (its busy times); other conflicts have none.
var withDetails = map[string]bool{
	EValidation:        true,
	EInsufficientScope: true,
	EConflict:          true,
}

// ErrorAnswer is err as the API answers it. An error that is not an
// *Error, or whose code is none of the domain's, is a generic
// server_error: internal reports it, for the caller to log its cause.
func ErrorAnswer(err error) (status int, env ErrorEnvelope, internal bool) {
	code := ErrorCode(err)
	status, known := codeStatus[code]
	if !known || code == EInternal {
		code, status, internal = EInternal, 500, true
	}
	obj := ErrorObject{Code: code, Message: ErrorMessage(err)}
	if msg, ok := fixedMessages[code]; ok {
		obj.Message = msg
	}
	var e *Error
	if withDetails[code] && errors.As(err, &e) {
		obj.Details = e.Details
	}
	return status, ErrorEnvelope{Error: obj}, internal
}

// ErrorCodes are the domain's error codes with the HTTP status of each,
// for the document's table of errors.
func ErrorCodes() map[string]int { return maps.Clone(codeStatus) }
