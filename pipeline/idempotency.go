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

// write runs fn in a transaction together with the idempotency protocol:
// lock the key, replay a stored response, or act and store the response.
func write[T any](s *Service, ctx context.Context, c Caller, fn func(Tx) (T, error)) (T, error) {
	var zero T
	k, keyed := ctx.Value(idempotencyKey{}).(Idempotency)
	if keyed && !ValidIdempotencyKey(k.Key) {
		return zero, Invalid(idempotencyField, "The Idempotency-Key must be 1 to 255 printable ASCII characters.")
	}
	var out T
	err := s.store.Write(ctx, func(tx Tx) error {
		if keyed {
			ok, err := tx.LockIdempotencyKey(ctx, c.Team.ID, k.Key)
			if err != nil {
				return err
			}
			if !ok {
				return Errorf(EConflict, "A request with this Idempotency-Key is still being processed.")
			}
			rec, err := tx.IdempotencyRecord(ctx, c.Team.ID, k.Key, s.now().Add(-IdempotencyWindow))
			if err != nil {
				return err
			}
			if rec != nil {
				if rec.UserID != c.User.ID || rec.Fingerprint != k.Fingerprint {
					return Invalid(idempotencyField, "The Idempotency-Key was already used for a different request.")
				}
				return &Replay{Status: rec.Status, Body: rec.Body}
			}
		}
		res, err := fn(tx)
		if err != nil {
			return err
		}
		if keyed && k.Render != nil {
			status, body, err := k.Render(res)
			if err != nil {
				return err
			}
			if status >= 200 && status < 300 {
				err := tx.SaveIdempotencyRecord(ctx, IdempotencyRecord{
					TeamID: c.Team.ID, Key: k.Key, UserID: c.User.ID, Fingerprint: k.Fingerprint,
					Status: status, Body: body, CreatedAt: s.now(),
				})
				if err != nil {
					return err
				}
			}
		}
		out = res
		return nil
	})
	if err != nil {
		return zero, err
	}
	return out, nil
}

// PurgeIdempotency deletes stored responses older than the replay window.
// Servers call it periodically so the table stays bounded.
func (s *Service) PurgeIdempotency(ctx context.Context) (int64, error) {
	return s.store.PurgeIdempotency(ctx, s.now().Add(-IdempotencyWindow))
}
