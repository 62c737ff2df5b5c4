package pipeline

import (
	"context"
	"time"
)

// IdempotencyWindow is how long a stored response is replayed for its key.
const IdempotencyWindow = 24 * time.Hour

// Idempotency makes a write replayable: the first successful response is
// stored under Key, in the write's own transaction, and a later request with
// the same key gets it back instead of acting again.
type Idempotency struct {
	// Key is 1–255 printable ASCII characters, unique per action in a team.
	Key string
	// Fingerprint identifies the request (method, path and body) so that a key
	// reused for another request is refused. The user is bound separately.
	Fingerprint string
	// Render turns the write's result into the response to store. Only 2xx
	// statuses are stored.
	Render func(result any) (status int, body []byte, err error)
}

// IdempotencyRecord is a stored response.
type IdempotencyRecord struct {
	TeamID      int64
	Key         string
	UserID      int64
	Fingerprint string
	Status      int
	Body        []byte
	CreatedAt   time.Time
}

// Replay is returned by a write in place of its result when its idempotency
// key already holds a stored response: the action was not repeated.
type Replay struct {
	Status int
	Body   []byte
}

func (r *Replay) Error() string { return "pipeline: idempotent replay" }

type idempotencyKey struct{}

// WithIdempotency returns a context on which the next write is idempotent
// under k.
func WithIdempotency(ctx context.Context, k Idempotency) context.Context {
	return context.WithValue(ctx, idempotencyKey{}, k)
}

// ValidIdempotencyKey reports whether key is 1–255 printable ASCII
// characters.
func ValidIdempotencyKey(key string) bool {
	if len(key) < 1 || len(key) > 255 {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return false
		}
	}
	return true
}

const idempotencyField = "Idempotency-Key"

// write runs a write in one transaction, in the API's check order: load
// finds the record the write is about (not_found), then the idempotency key
// is checked (validation_failed, conflict, or a replay of the stored
// response), then act validates the input and acts. The response act's
// result renders to is stored under the key in the same transaction.
// A nil load finds nothing.
func write[R, T any](s *Service, ctx context.Context, c Caller, load func(Tx) (R, error), act func(Tx, R) (T, error)) (T, error) {
	var out T
	err := s.store.Write(ctx, func(tx Tx) error {
		var rec R
		if load != nil {
			var err error
			if rec, err = load(tx); err != nil {
				return err
			}
		}
		k, keyed := ctx.Value(idempotencyKey{}).(Idempotency)
		if keyed {
			if err := s.claim(ctx, tx, c, k); err != nil {
				return err
			}
		}
		res, err := act(tx, rec)
		if err != nil {
			return err
		}
		if keyed && k.Render != nil {
			if err := s.remember(ctx, tx, c, k, res); err != nil {
				return err
			}
		}
		out = res
		return nil
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return out, nil
}

// claim validates a key and takes it for this transaction: a key held by a
// request still in flight is a conflict, a key that holds a response of
// this user's same request is a *Replay, and one of another request is
// invalid.
func (s *Service) claim(ctx context.Context, tx Tx, c Caller, k Idempotency) error {
	if !ValidIdempotencyKey(k.Key) {
		return Invalid(idempotencyField, "The Idempotency-Key must be 1 to 255 printable ASCII characters.")
	}
	ok, err := tx.LockIdempotencyKey(ctx, c.Team.ID, k.Key)
	if err != nil {
		return err
	}
	if !ok {
		return Errorf(EConflict, "A request with this Idempotency-Key is still being processed.")
	}
	rec, err := tx.IdempotencyRecord(ctx, c.Team.ID, k.Key, s.now().Add(-IdempotencyWindow))
	if err != nil || rec == nil {
		return err
	}
	if rec.UserID != c.User.ID || rec.Fingerprint != k.Fingerprint {
		return Invalid(idempotencyField, "The Idempotency-Key was already used for a different request.")
	}
	return &Replay{Status: rec.Status, Body: rec.Body}
}

// remember stores the successful response of a write under its key.
func (s *Service) remember(ctx context.Context, tx Tx, c Caller, k Idempotency, result any) error {
	status, body, err := k.Render(result)
	if err != nil || status < 200 || status > 299 {
		return err
	}
	return tx.SaveIdempotencyRecord(ctx, IdempotencyRecord{
		TeamID: c.Team.ID, Key: k.Key, UserID: c.User.ID, Fingerprint: k.Fingerprint,
		Status: status, Body: body, CreatedAt: s.now(),
	})
}

// PurgeIdempotency deletes stored responses older than the replay window.
// Servers call it periodically so the table stays bounded.
func (s *Service) PurgeIdempotency(ctx context.Context) (int64, error) {
	return s.store.PurgeIdempotency(ctx, s.now().Add(-IdempotencyWindow))
}
