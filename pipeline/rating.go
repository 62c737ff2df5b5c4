package pipeline

import (
	"context"
	"time"
)

// RatingValue is a user's verdict on a candidate.
type RatingValue string

// Rating values.
const (
	GoodFit RatingValue = "good_fit"
	Maybe   RatingValue = "maybe"
	NotAFit RatingValue = "not_a_fit"
)

// Valid reports whether v is a rating value; values are case-sensitive.
func (v RatingValue) Valid() bool { return v == GoodFit || v == Maybe || v == NotAFit }

// Rating is one user's rating of one candidate; rating again replaces it.
type Rating struct {
	CandidateID int64
	UserID      int64
	Value       RatingValue
	UpdatedAt   time.Time
}

// NewRating is the input of RateCandidate.
type NewRating struct {
	Value       RatingValue  `json:"rating"`
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *NewRating) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *NewRating) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the input.
func (in NewRating) Validate() error { return inputVerdict(in.Unread, in.check()) }

func (in NewRating) check() error {
	switch {
	case in.Value == "":
		return Invalid("rating", "The rating field is required.")
	case !in.Value.Valid():
		return Invalid("rating", "The rating must be one of good_fit, maybe, not_a_fit.")
	}
	return nil
}

// RateCandidate sets the caller's rating of a candidate. Setting the rating
// the caller already gave changes and logs nothing. Scope: candidates:write.
// Errors: unauthenticated, insufficient_scope, not_found,
// validation_failed, conflict (idempotency key in flight).
func (s *Service) RateCandidate(ctx context.Context, jobID, candidateID int64, in NewRating) (Result[Rating], error) {
	return writeCandidate(s, ctx, OpRateCandidate, jobID, candidateID, &in, &in.Idempotency, func(tx Tx, c Caller, cand Candidate) (Rating, error) {
		old, err := tx.Ratings().Get(ctx, RatingParams{CandidateID: cand.ID, UserID: c.user.ID})
		if err != nil {
			return Rating{}, err
		}
		if old != nil && old.Value == in.Value {
			return *old, nil
		}
		r := Rating{CandidateID: cand.ID, UserID: c.user.ID, Value: in.Value, UpdatedAt: s.now()}
		if err := tx.Ratings().Save(ctx, r); err != nil {
			return Rating{}, err
		}
		var before any
		if old != nil {
			before = old.Value
		}
		changes := map[string]Change{"rating": {Before: before, After: r.Value}}
		return r, s.log(ctx, tx, c, cand.TeamID, cand.JobID, ActionCandidateRated, SubjectCandidate, cand.ID, changes)
	})
}

// The operation on ratings.
const (
	OpRateCandidate Op = "rate_candidate"
)

// ratingOps are the rows of opTable for these operations, in the order of
// the API's document.
var ratingOps = []opRow{
	{OpRateCandidate, opTraits{ScopeCandidatesWrite, mPost, candidatePath + "/rating", 0}, runs(onCandidate((*Service).RateCandidate), Rating.Record), &Words{Title: "Rate a candidate", Idempotent: true,
		Description: "Sets the token's user's rating of a candidate, replacing an earlier one, and returns it (POST .../candidates/{candidate}/rating)."}, Doc{
		Tag: "Candidates", Summary: "Set the token user's rating of a candidate",
		Description: "Scope: `candidates:write`. Each user has one rating per candidate; setting it again replaces " +
			"it. Giving the rating already given changes and logs nothing.",
		Success: "The rating as it is now.",
		Invalid: "`validation_failed`: `rating` is missing or not one of `good_fit`, `maybe`, `not_a_fit` (the " +
			"message names them, for a value of another type too), or the body or `Idempotency-Key` is invalid.",
	}},
}

// RatingStore is what the Service reads of ratings outside a write.
type RatingStore interface {
	// List returns the ratings of a candidate with their users, by user
	// id.
	List(ctx context.Context, p ListRatingsParams) ([]UserRating, error)
}

// ListRatingsParams names the candidate whose ratings are read.
type ListRatingsParams struct {
	CandidateID int64
}

// RatingTx is what a write transaction does to ratings. The caller holds
// the rated candidate locked (CandidateTx.Lock).
type RatingTx interface {
	// Get returns a user's rating of a candidate, or nil.
	Get(ctx context.Context, p RatingParams) (*Rating, error)
	// Save stores a user's rating of a candidate, replacing theirs.
	Save(ctx context.Context, r Rating) error
}

// RatingParams names a user's rating of a candidate.
type RatingParams struct {
	CandidateID, UserID int64
}
