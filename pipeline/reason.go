package pipeline

import (
	"context"
	"errors"
	"maps"
	"strings"
	"unicode/utf8"
)

// MaxReasonLength is the most characters a write's reason may have, once
// trimmed.
const MaxReasonLength = 1000

// ReasonField names a write's reason in validation details.
const ReasonField = "reason"

// Reasoned is embedded in the input of every write: why the caller makes
// the write, in its own words, kept on the write's activity entry (and on
// every entry the write causes) for whoever reviews what was done. It is
// part of the input, so an idempotency key binds it.
type Reasoned struct {
	// Reason is 1–1,000 characters once trimmed, line breaks allowed,
	// stored as given; nil: none given.
	Reason *string `json:"reason,omitempty"`
}

// Because is the Reasoned of a write made for reason.
func Because(reason string) Reasoned { return Reasoned{Reason: &reason} }

// reasoned lets the write helpers find the reason of any write's input.
func (r *Reasoned) reasoned() *Reasoned { return r }

// SetReason sets the reason the request gave (a face's reading).
func (r *Reasoned) SetReason(reason *string) { r.Reason = reason }

// reasonOf is the reason of the write whose input input points to; nil
// when it has none.
func reasonOf(input any) *string {
	if r, ok := input.(interface{ reasoned() *Reasoned }); ok {
		return r.reasoned().Reason
	}
	return nil
}

// checkReason is what is wrong with a reason, nil when nothing is.
func checkReason(reason *string) error {
	if reason == nil {
		return nil
	}
	f := FieldErrors{}
	switch text := strings.TrimSpace(*reason); {
	case !checkText(f, ReasonField, *reason):
	case text == "":
		f.Add(ReasonField, "The reason must not be blank.")
	case utf8.RuneCountInString(text) > MaxReasonLength:
		f.Add(ReasonField, "The reason may not be greater than 1000 characters.")
	}
	return f.Err()
}

// withReason is the outcome of a write's act (err) judged with its reason
// (bad, what checkReason found). A bad reason is part of the input's
// validation: it joins the fields act found wrong, and comes before what
// the check order puts after validation (forbidden, a conflict, a double
// booking) and before success; the write's changes roll back with it.
func withReason(err, bad error) error {
	if bad == nil {
		return err
	}
	switch {
	case err == nil, errors.Is(err, ErrBooked):
		return bad
	}
	switch ErrorCode(err) {
	case EForbidden, EConflict:
		return bad
	case EValidation:
		fields := Fields(err)
		if fields == nil {
			return err
		}
		out := maps.Clone(fields)
		if _, ok := out[ReasonField]; !ok {
			out[ReasonField] = Fields(bad)[ReasonField]
		}
		return out.Err()
	}
	return err
}

// reasonTx is a write's transaction as its act sees it: every activity
// entry logged in it, the write's own and those it causes, carries the
// write's reason.
type reasonTx struct {
	Tx
	reason *string
}

func (t reasonTx) Activity() ActivityTx {
	return stampedActivity{ActivityTx: t.Tx.Activity(), stamp: func(a *Activity) { a.Reason = t.reason }}
}

// stampedActivity is the activity log of a transaction that stamps every
// entry logged in it (reasonTx, approvedTx).
type stampedActivity struct {
	ActivityTx
	stamp func(*Activity)
}

func (a stampedActivity) Insert(ctx context.Context, e Activity) error {
	a.stamp(&e)
	return a.ActivityTx.Insert(ctx, e)
}
