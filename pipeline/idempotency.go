package pipeline

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
	"time"
)

// IdempotencyWindow is how long the result of a keyed write is replayed for
// its key.
const IdempotencyWindow = 24 * time.Hour

// Idempotency makes one write call replayable. The first successful call
// with a key stores its result under the key, in the write's own
// transaction; a later call of the same user with the same key and the same
// request gets that result back, marked replayed, instead of acting again.
// Keys are scoped to the team of the caller's user. The request a key is
// bound to is the operation, its record ids and its input as a value, so
// that a key is one key whichever face sends it, and inputs that read the
// same (a body's key order, 3 or 3.0) are one request.
type Idempotency struct {
	// Key is 1–255 printable ASCII characters.
	Key string
}

// Result is what a write returns: its value, and whether that value is the
// stored result of an earlier call with the same idempotency key, in which
// case nothing was done.
type Result[T any] struct {
	Value    T
	Replayed bool
}

// IdempotencyRecord is a stored result of a keyed write.
type IdempotencyRecord struct {
	TeamID    int64
	Key       string
	UserID    int64
	Request   string
	Result    []byte // the write's value, encoded by the Service
	CreatedAt time.Time
	// CandidateID is the candidate the write was about, and Op its
	// operation, so that an erasure finds the record by the candidate's
	// id whatever the person's name was; 0 and "": a write about no
	// candidate, or a record stored before records named them.
	CandidateID int64
	Op          Op
}

// erasedResult is the stored result of a keyed write whose record an
// erasure deleted (a note, a rating, a document): its key answers
// not_found, as the record reads now, and writes nothing again.
const erasedResult = `{"$erased":"not_found"}`

// errErasedRecord answers a key whose record an erasure deleted.
func errErasedRecord() error { return Errorf(ENotFound, "Not found: the record was erased.") }

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

// IdempotencyField names the idempotency key in validation details.
const IdempotencyField = "idempotency_key"

// boundKey is the idempotency of one write call, its request resolved.
type boundKey struct {
	key, request string
}

// writeCall is what the write helpers need of a write's input besides its
// own fields: its key bound to the request (nil: no key), and its reason.
type writeCall struct {
	key    *boundKey
	reason *string
	// op, ref and digest are the request, for a proposal when the caller
	// may only propose op (see Caller.Held).
	op     Op
	ref    Ref
	digest string
	// input points to the write's input, which a proposal keeps.
	input any
}

// takeKey takes the idempotency out of a write's input (input points to the
// input, idem to its Idempotency field), binds its key to the request
// (see RequestDigest), and reads the input's reason.
func takeKey(op Op, r Ref, input any, idem **Idempotency) (writeCall, error) {
	w := writeCall{reason: reasonOf(input), op: op, ref: r, input: input}
	i := *idem
	*idem = nil
	w.digest = RequestDigest(op, r, input)
	if i != nil {
		w.key = &boundKey{key: i.Key, request: w.digest}
	}
	return w, nil
}

// RequestDigest is the request an idempotency key is bound to: a digest
// of the operation, the records it is about and its input (a pointer to
// the input, its Idempotency nil). Inputs that are the same value have the
// same digest, whichever face read them and however their text was
// spelled.
func RequestDigest(op Op, r Ref, input any) string {
	h := sha256.New()
	// The job and the candidate are written always, the other records when
	// named: digests stored before those kinds existed stay valid.
	fmt.Fprintf(h, "%s\n%d\n%d\n", op, r.Job, r.Candidate)
	for _, id := range r.IDs()[2:] {
		if *id.ID != 0 {
			fmt.Fprintf(h, "%s %d\n", id.Name, *id.ID)
		}
	}
	writeValue(h, reflect.ValueOf(input))
	return hex.EncodeToString(h.Sum(nil))
}

// writeValue writes v to w in one spelling per value: strings byte for
// byte (text that is not UTF-8 stays apart from its replacement), no
// pointer and an empty list as themselves, an error (an input's Unread)
// by its code and details.
func writeValue(w io.Writer, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			io.WriteString(w, "nil;")
			return
		}
		io.WriteString(w, "&")
		writeValue(w, v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			io.WriteString(w, "nil;")
			return
		}
		if err, ok := v.Interface().(error); ok {
			details, _ := json.Marshal(Fields(err))
			fmt.Fprintf(w, "error %q %s;", ErrorCode(err), details)
			return
		}
		writeValue(w, v.Elem())
	case reflect.Struct:
		// An input without a reason is written as it was before inputs
		// had one, so that keys stored then still match their requests.
		var fields []int
		for i := range v.NumField() {
			if f := v.Field(i); f.Type() != reflect.TypeFor[Reasoned]() || !f.Field(0).IsNil() {
				fields = append(fields, i)
			}
		}
		fmt.Fprintf(w, "{%d:", len(fields))
		for _, i := range fields {
			fmt.Fprintf(w, "%s=", v.Type().Field(i).Name)
			writeValue(w, v.Field(i))
		}
		io.WriteString(w, "}")
	case reflect.Slice:
		fmt.Fprintf(w, "[%d:", v.Len())
		for i := range v.Len() {
			writeValue(w, v.Index(i))
		}
		io.WriteString(w, "]")
	case reflect.String:
		fmt.Fprintf(w, "%q;", v.String())
	default:
		fmt.Fprintf(w, "%v;", v.Interface())
	}
}

// write runs a write in one transaction, in the API's check order: load
// finds the record the write is about (not_found), making the key's claim
// when it is given one (see LockCandidateParams.Claim), then the idempotency key
// is judged (validation_failed, conflict) or replays its stored result,
// then act validates the input and acts, the write's reason judged with
// the input (see withReason) and kept on every activity entry act logs. A
// record not found still replays
// the stored result of the same request under the key: a retried delete
// answers as the delete did. The value act returns is stored
// under the key in the same transaction. A nil load finds nothing.
//
// A write the caller may only propose (Caller.Held) runs the same checks,
// rolls back once act succeeded, and returns *Proposed (see propose). The
// approved run of a proposal (see ApproveProposal) is not held; it claims
// its proposal in its own transaction, after act, so that it runs once.
func write[R, T any](s *Service, ctx context.Context, c Caller, w writeCall, load func(Tx, KeyClaim) (R, error), act func(Tx, R) (T, error)) (Result[T], error) {
	var out Result[T]
	k, badReason := w.key, checkReason(w.reason)
	busy, release := s.reserveKey(c, k)
	defer release()
	run, approved := approvalFrom(ctx)
	held := !approved && c.Held(w.op)
	var replayedProposal int64
	err := s.store.Write(ctx, func(tx Tx) error {
		// The key is claimed before load locks the record, so that a
		// request whose key another holds answers conflict instead of
		// waiting for the record; it is judged once the record is read.
		var cl claimedKey
		if k != nil {
			cl = s.claim(ctx, tx, c, k.key, busy)
		}
		var rec R
		if load != nil {
			var err error
			if rec, err = load(tx, cl.kc); err != nil {
				// A retried delete finds its record gone; the first
				// request's answer is still the answer to its key.
				if k != nil && ErrorCode(err) == ENotFound {
					if stored, rerr := cl.replay(ctx, c, k); rerr == nil && stored != nil {
						if id, ok := storedProposal(stored); ok {
							replayedProposal = id
							return nil
						}
						out.Replayed = true
						return json.Unmarshal(stored, &out.Value)
					}
				}
				return err
			}
		}
		if k != nil {
			stored, err := cl.replay(ctx, c, k)
			if err != nil {
				return err
			}
			if stored != nil {
				if id, ok := storedProposal(stored); ok {
					replayedProposal = id
					return nil
				}
				out.Replayed = true
				return json.Unmarshal(stored, &out.Value)
			}
		}
		var actTx Tx = reasonTx{Tx: tx, reason: w.reason}
		if approved {
			actTx = reasonTx{Tx: approvedTx{Tx: tx, by: run.approvedBy()}, reason: w.reason}
		}
		v, err := act(actTx, rec)
		if err := withReason(err, badReason); err != nil {
			return err
		}
		if held {
			return errPropose
		}
		if approved {
			if err := s.decide(ctx, tx, run, ProposalApplied, nil); err != nil {
				return err
			}
		}
		out.Value = v
		if k != nil {
			return s.rememberWrite(ctx, tx, c, k, w, v)
		}
		return nil
	})
	if errors.Is(err, errPropose) {
		p, replayed, err := s.propose(ctx, c, w, busy)
		if err != nil {
			return Result[T]{}, err
		}
		return Result[T]{}, &Proposed{Proposal: p, Replayed: replayed}
	}
	if err != nil {
		return Result[T]{}, err
	}
	if replayedProposal != 0 {
		return Result[T]{}, s.proposedReplay(ctx, replayedProposal)
	}
	return out, nil
}

// writeCandidate is the keyed write op on a candidate of
// a job the caller reaches: act runs once in, a pointer to the input whose
// Idempotency idem is, is valid.
func writeCandidate[T any](s *Service, ctx context.Context, op Op, jobID, candidateID int64,
	in interface{ Validate() error }, idem **Idempotency, act func(Tx, Caller, Candidate) (T, error)) (Result[T], error) {
	c, err := authorize(ctx, op)
	if err != nil {
		return Result[T]{}, err
	}
	k, err := takeKey(op, Ref{Job: jobID, Candidate: candidateID}, in, idem)
	if err != nil {
		return Result[T]{}, err
	}
	return write(s, ctx, c, k, s.loadCandidate(ctx, c, jobID, candidateID), func(tx Tx, cand Candidate) (T, error) {
		var zero T
		if err := in.Validate(); err != nil {
			return zero, err
		}
		if cand.ErasedAt != nil {
			return zero, errErased()
		}
		return act(tx, c, cand)
	})
}

// reserveKey counts the request as holding k's key in this Service until
// release (see inflightKeys); busy reports that another request held it
// first. A missing or invalid key is not held.
func (s *Service) reserveKey(c Caller, k *boundKey) (busy bool, release func()) {
	if k == nil || !ValidIdempotencyKey(k.key) {
		return false, func() {}
	}
	held := teamKey{team: c.team.ID, key: k.key}
	return s.inflight.enter(held), func() { s.inflight.leave(held) }
}

// claimedKey is a key's claim, judged by replay once the record is read.
type claimedKey struct {
	kc   KeyClaim // nil for a key that is not valid, or busy
	busy bool     // held by another request of this Service (see reserveKey)
}

// claim takes a valid key for this transaction and reads its record; a
// key that is not valid is left for replay to refuse. A key busy here is
// not claimed: claiming it would only take its lock from the request that
// holds it, which another replica's request must meet.
func (s *Service) claim(ctx context.Context, tx Tx, c Caller, key string, busy bool) claimedKey {
	if busy || !ValidIdempotencyKey(key) {
		return claimedKey{busy: busy}
	}
	return claimedKey{kc: tx.Idempotency().Claim(ctx, ClaimKeyParams{TeamID: c.team.ID, Key: key, Since: s.now().Add(-IdempotencyWindow)})}
}

// replay judges a key by its claim: a key that is not valid is invalid; one
// held by a request still in flight is a conflict; one that holds a result
// of this user's same request returns that result; one of another request
// is invalid.
func (cl claimedKey) replay(ctx context.Context, c Caller, k *boundKey) ([]byte, error) {
	if !ValidIdempotencyKey(k.key) {
		return nil, Invalid(IdempotencyField, "The idempotency key must be 1 to 255 printable ASCII characters.")
	}
	if cl.busy {
		return nil, errKeyInFlight()
	}
	free, rec, err := cl.kc.Outcome(ctx)
	if err != nil {
		return nil, err
	}
	if !free {
		return nil, errKeyInFlight()
	}
	if rec == nil {
		return nil, nil
	}
	if rec.UserID != c.user.ID || rec.Request != k.request {
		return nil, Invalid(IdempotencyField, "The idempotency key was already used for a different request.")
	}
	if string(rec.Result) == erasedResult {
		return nil, errErasedRecord()
	}
	return rec.Result, nil
}

// errKeyInFlight answers a request whose key another request holds.
func errKeyInFlight() error {
	return Errorf(EConflict, "A request with this idempotency key is still being processed.")
}

// remember stores the result of a successful write under its key.
func (s *Service) remember(ctx context.Context, tx Tx, c Caller, k *boundKey, v any) error {
	return s.rememberAbout(ctx, tx, c, k, "", 0, v)
}

// rememberWrite stores the result of the successful write w under its
// key, with the candidate it was about: the one it names, the one it
// added, or the one of the proposal it decided.
func (s *Service) rememberWrite(ctx context.Context, tx Tx, c Caller, k *boundKey, w writeCall, v any) error {
	candidate := w.ref.Candidate
	switch x := v.(type) {
	case Candidate:
		candidate = cmp.Or(candidate, x.ID)
	case Proposal:
		candidate = cmp.Or(candidate, x.CandidateID)
	}
	return s.rememberAbout(ctx, tx, c, k, w.op, candidate, v)
}

func (s *Service) rememberAbout(ctx context.Context, tx Tx, c Caller, k *boundKey, op Op, candidateID int64, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return tx.Idempotency().Save(ctx, IdempotencyRecord{
		TeamID: c.team.ID, Key: k.key, UserID: c.user.ID, Request: k.request,
		Result: b, CreatedAt: s.now(), CandidateID: candidateID, Op: op,
	})
}

// inflightKeys are the idempotency keys of the writes a Service is running.
// A store may make a second request with a held key wait for the first
// (SQLite has one writer) instead of telling it the key is held; counted
// here when it arrives, it still answers conflict, as on any store.
type inflightKeys struct {
	mu   sync.Mutex
	held map[teamKey]int
}

type teamKey struct {
	team int64
	key  string
}

// enter counts one more request holding k and reports whether another
// held it already.
func (f *inflightKeys) enter(k teamKey) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.held == nil {
		f.held = map[teamKey]int{}
	}
	f.held[k]++
	return f.held[k] > 1
}

// leave counts one request fewer holding k.
func (f *inflightKeys) leave(k teamKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.held[k]--; f.held[k] == 0 {
		delete(f.held, k)
	}
}

// IdempotencyStore is the housekeeping of idempotency records outside a
// write.
type IdempotencyStore interface {
	// Purge deletes idempotency records created before a time.
	Purge(ctx context.Context, before time.Time) (int64, error)
}

// IdempotencyTx is what a write transaction does with idempotency keys
// and their records.
type IdempotencyTx interface {
	// Claim claims a team's key for the rest of the transaction, without
	// waiting for another transaction that holds it, and reads the record
	// stored under the key and created at or after Since. The key is
	// claimed before any row the transaction locks after this call, so
	// that a write whose key another transaction holds does not wait for
	// that row; the outcome may be asked for later, once those rows are
	// read. A read given the claim (LockCandidateParams.Claim) may make it
	// in its own statement.
	Claim(ctx context.Context, p ClaimKeyParams) KeyClaim
	// Save stores a record, replacing an expired one under the same team
	// and key.
	Save(ctx context.Context, r IdempotencyRecord) error
	// Records returns the records of a team's keys.
	Records(ctx context.Context, p IdempotencyRecordsParams) ([]IdempotencyRecord, error)
	// SetResult replaces the stored result of a team's key.
	SetResult(ctx context.Context, p KeyResultParams) error
}

// KeyClaim is a team's idempotency key claimed by a write transaction
// (see IdempotencyTx.Claim).
type KeyClaim interface {
	// Outcome reports whether the key was free (false: another
	// transaction holds it) and the record stored under it, or nil. The
	// claim's error, if any, is returned here.
	Outcome(ctx context.Context) (free bool, rec *IdempotencyRecord, err error)
}

// ClaimKeyParams is a team's key to claim, with the oldest record that
// still answers for it.
type ClaimKeyParams struct {
	TeamID int64
	Key    string
	Since  time.Time
}

// IdempotencyRecordsParams names the team whose records are read.
type IdempotencyRecordsParams struct {
	TeamID int64
}

// KeyResultParams is the new stored result of a team's key.
type KeyResultParams struct {
	TeamID int64
	Key    string
	Result []byte
}
