package pipeline

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Privacy (privacy.md): a person is every candidate of the caller's
// current team whose email equals one given, in any letter case. Their
// data can be exported, erased, and is not kept beyond the team's
// retention period.

// Privacy activity actions and the subject of a team's own entries.
const (
	ActionCandidateErased = "candidate.erased"
	ActionPrivacyExported = "privacy.exported"
	ActionPrivacyErased   = "privacy.erased"
	SubjectTeam           = "team"
)

// ErasedName is an erased candidate's name.
const ErasedName = "Erased candidate"

// ErasedValue replaces the person's data in the activity log.
const ErasedValue = "[erased]"

// ErasedEmail is the email an erased candidate keeps: unique, and never
// delivered (.invalid is reserved, RFC 2606).
func ErasedEmail(candidateID int64) string {
	return "erased-" + strconv.FormatInt(candidateID, 10) + "@erased.invalid"
}

const (
	msgPrivacyAdmin = "Only owners and admins of the team can do this."
	msgErased       = "The candidate was erased."
)

// errErased answers a write to an erased candidate.
func errErased() error { return Errorf(EForbidden, msgErased) }

// PersonQuery is the input of ExportPerson.
type PersonQuery struct {
	Email string
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error
}

// SetUnread sets what a face could not read of the request.
func (in *PersonQuery) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the input.
func (in PersonQuery) Validate() error {
	bad := FieldErrors{}
	checkPersonEmail(bad, in.Email)
	return inputVerdict(in.Unread, bad.Err())
}

func checkPersonEmail(bad FieldErrors, email string) {
	if !checkText(bad, "email", email) {
		return
	}
	if strings.TrimSpace(email) == "" {
		bad.Add("email", "The email field is required.")
	} else if utf8.RuneCountInString(email) > MaxEmailLength {
		bad.Add("email", "The email may not be greater than 254 characters.")
	}
}

// PersonErasure is the input of ErasePerson.
type PersonErasure struct {
	Email string `json:"email"`
	// Reasoned is why, required here: 1–1,000 characters once trimmed.
	// Every entry the erasure logs carries it (oversight.md §1):
	// candidate.erased, privacy.erased and the interviews it cancels.
	Reasoned
	// Idempotency is the key of the call; nil: none.
	Idempotency *Idempotency `json:"-"`
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *PersonErasure) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *PersonErasure) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the input.
func (in PersonErasure) Validate() error {
	bad := FieldErrors{}
	checkPersonEmail(bad, in.Email)
	if in.Reason == nil {
		bad.Add(ReasonField, "The reason field is required.")
	} else {
		for _, msg := range Fields(checkReason(in.Reason))[ReasonField] {
			bad.Add(ReasonField, msg)
		}
	}
	return inputVerdict(in.Unread, bad.Err())
}

// Erasure is what ErasePerson did: the candidates it erased (none when
// the person was erased before, or never was a candidate) and when.
type Erasure struct {
	CandidateIDs []int64
	ErasedAt     time.Time
}

// PersonExport is everything stored about a person.
type PersonExport struct {
	Email      string
	Candidates []CandidateExport
	// Activity are the entries whose subject is one of the candidates, in
	// commit order.
	Activity []FeedEntry
}

// CandidateExport is one candidate of a person with what is stored about
// it.
type CandidateExport struct {
	Job        Job // ID and Title
	Candidate  Candidate
	Notes      []Note
	Ratings    []UserRating
	Messages   []Message
	Interviews []Interview
	Documents  []DocumentWithText // newest first
	Proposals  []Proposal         // those whose path names it, oldest first, as they read now
}

// UserRating is a rating with its user.
type UserRating struct {
	User  User // ID and Name
	Value RatingValue
}

// privacyAdmin returns the caller of the privacy operation op: one whose
// token carries its scope and whose user owns or administers the current
// team, else insufficient_scope or forbidden.
func (s *Service) privacyAdmin(ctx context.Context, op Op) (Caller, error) {
	return s.teamAdmin(ctx, op, msgPrivacyAdmin)
}

// ExportPerson returns everything stored about the person with an email
// on the caller's current team, each part as the API shows it; a person
// with no candidate has empty lists. It is logged as privacy.exported with
// the count of candidates, never the email. Scope: privacy:manage; the
// caller's user must own or administer the team. Errors:
// unauthenticated, insufficient_scope, forbidden, validation_failed
// (email).
func (s *Service) ExportPerson(ctx context.Context, in PersonQuery) (PersonExport, error) {
	c, err := s.privacyAdmin(ctx, OpExportPerson)
	if err != nil {
		return PersonExport{}, err
	}
	if err := in.Validate(); err != nil {
		return PersonExport{}, err
	}
	out := PersonExport{Email: in.Email, Candidates: []CandidateExport{}, Activity: []FeedEntry{}}
	cands, err := s.store.Privacy().Person(ctx, PersonParams{TeamID: c.team.ID, Email: in.Email})
	if err != nil {
		return PersonExport{}, err
	}
	ids := make([]int64, len(cands))
	for i, k := range cands {
		ids[i] = k.ID
		x, err := s.exportCandidate(ctx, c, k)
		if err != nil {
			return PersonExport{}, err
		}
		out.Candidates = append(out.Candidates, x)
	}
	if len(ids) > 0 {
		if out.Activity, err = s.store.Activity().AboutCandidates(ctx, CandidateActivityParams{CandidateIDs: ids}); err != nil {
			return PersonExport{}, err
		}
	}
	err = s.store.Write(ctx, func(tx Tx) error {
		return s.log(ctx, tx, c, c.team.ID, 0, ActionPrivacyExported, SubjectTeam, c.team.ID, map[string]int{"count": len(cands)})
	})
	return out, err
}

// ErasureCount is how many candidates an erasure of the person with an
// email would erase now on the caller's current team (those not erased
// before), for a person judging a proposed erasure. Nothing is logged: it
// reads no data of the person. Scope: privacy:manage; the caller's user
// must own or administer the team. Errors: unauthenticated,
// insufficient_scope, forbidden, validation_failed (email).
func (s *Service) ErasureCount(ctx context.Context, in PersonQuery) (int, error) {
	c, err := s.privacyAdmin(ctx, OpErasePerson)
	if err != nil {
		return 0, err
	}
	if err := in.Validate(); err != nil {
		return 0, err
	}
	cands, err := s.store.Privacy().Person(ctx, PersonParams{TeamID: c.team.ID, Email: in.Email})
	n := 0
	for _, k := range cands {
		if k.ErasedAt == nil {
			n++
		}
	}
	return n, err
}

// exportCandidate reads what is stored about one candidate, every page
// of each part, as the caller (who reaches every job of the team).
func (s *Service) exportCandidate(ctx context.Context, c Caller, k Candidate) (CandidateExport, error) {
	x := CandidateExport{Candidate: k}
	job, err := s.store.Jobs().Get(ctx, JobParams{Viewer: c.user.ID, ID: k.JobID})
	if err != nil {
		return x, err
	}
	x.Job = job
	if x.Notes, err = allPages(func(p int) (List[Note], error) {
		return s.store.Notes().List(ctx, ListNotesParams{Viewer: c.user.ID, JobID: k.JobID, CandidateID: k.ID, Page: p})
	}); err != nil {
		return x, err
	}
	if x.Messages, err = allPages(func(p int) (List[Message], error) {
		return s.store.Messages().List(ctx, ListMessagesParams{Viewer: c.user.ID, JobID: k.JobID, CandidateID: k.ID, Page: p})
	}); err != nil {
		return x, err
	}
	if x.Interviews, err = allPages(func(p int) (List[Interview], error) {
		return s.store.Interviews().List(ctx, ListInterviewsParams{Viewer: c.user.ID, JobID: k.JobID, CandidateID: k.ID, Page: p})
	}); err != nil {
		return x, err
	}
	if x.Documents, err = s.store.Documents().AllWithText(ctx, CandidateDocumentsParams{Viewer: c.user.ID, JobID: k.JobID, CandidateID: k.ID}); err != nil {
		return x, err
	}
	if x.Proposals, err = s.store.Proposals().AboutCandidate(ctx, CandidateProposalsParams{CandidateID: k.ID}); err != nil {
		return x, err
	}
	for i, p := range x.Proposals {
		x.Proposals[i] = p.readAt(s.now())
	}
	x.Ratings, err = s.store.Ratings().List(ctx, ListRatingsParams{CandidateID: k.ID})
	return x, err
}

// allPages reads every page of a list.
func allPages[T any](page func(int) (List[T], error)) ([]T, error) {
	out := []T{}
	for p := 1; ; p++ {
		l, err := page(p)
		if err != nil {
			return nil, err
		}
		out = append(out, l.Items...)
		if len(l.Items) < PageSize || len(out) >= l.Total {
			return out, nil
		}
	}
}

// ErasePerson erases the person with an email from the caller's current
// team, in one transaction: each of their candidates not erased before is
// renamed, its email and resume URL replaced, its notes and ratings
// deleted, its messages emptied (queued ones cancelled), its future
// interviews cancelled (interviewers told, the person not), its
// invitations deleted, the activity log's values of its data erased, and
// the stored result of each key of a write about it made the record as
// it reads after (one the erasure deleted answers not_found);
// candidate.erased is logged for each and privacy.erased with the count,
// each with the erasure's reason. A closed job does not stop it; a person
// erased before, or unknown, is an erasure of none. Scope:
// privacy:manage; the caller's user must own or administer the team.
// Errors: unauthenticated, insufficient_scope, forbidden,
// validation_failed (email, reason, the key), conflict (idempotency key
// in flight).
func (s *Service) ErasePerson(ctx context.Context, in PersonErasure) (Result[Erasure], error) {
	c, err := s.privacyAdmin(ctx, OpErasePerson)
	if err != nil {
		return Result[Erasure]{}, err
	}
	k, err := takeKey(OpErasePerson, Ref{}, &in, &in.Idempotency)
	if err != nil {
		return Result[Erasure]{}, err
	}

	res, err := write(s, ctx, c, k, nil, func(tx Tx, _ struct{}) (Erasure, error) {
		if err := in.Validate(); err != nil {
			return Erasure{}, err
		}
		cands, err := tx.Privacy().LockPerson(ctx, PersonParams{TeamID: c.team.ID, Email: in.Email})
		if err != nil {
			return Erasure{}, err
		}
		return s.erase(ctx, tx, c, c.team.ID, cands)
	})
	if err == nil && !res.Replayed && len(res.Value.CandidateIDs) > 0 {
		s.store.Scrub(ctx)
	}
	return res, err
}

// erase erases cands, candidates of a team locked in tx, on behalf of c,
// and logs it.
func (s *Service) erase(ctx context.Context, tx Tx, c Caller, teamID int64, cands []Candidate) (Erasure, error) {
	now := s.now()
	out := Erasure{CandidateIDs: []int64{}, ErasedAt: now}
	var people []erasedPerson
	for _, k := range cands {
		if k.ErasedAt != nil {
			continue
		}
		people = append(people, erasedPerson{cand: k})
		out.CandidateIDs = append(out.CandidateIDs, k.ID)
	}
	if len(people) == 0 {
		return out, nil
	}
	for _, p := range people {
		if err := s.eraseCandidate(ctx, tx, c, p, now); err != nil {
			return Erasure{}, err
		}
	}
	if err := s.eraseProposals(ctx, tx, teamID, people, now); err != nil {
		return Erasure{}, err
	}
	if err := s.eraseIdempotency(ctx, tx, teamID, people, now); err != nil {
		return Erasure{}, err
	}
	for _, p := range people {
		changes := map[string]Change{"erased_at": {After: now.Format(time.RFC3339)}}
		if err := s.log(ctx, tx, c, teamID, p.cand.JobID, ActionCandidateErased, SubjectCandidate, p.cand.ID, changes); err != nil {
			return Erasure{}, err
		}
	}
	return out, s.log(ctx, tx, c, teamID, 0, ActionPrivacyErased, SubjectTeam, teamID, map[string]int{"count": len(people)})
}

// eraseCandidate erases one candidate: its row, notes, ratings, messages
// and invitations (PrivacyTx.Erase), then cancels its future interviews
// with the name already erased, so that the cancellations the
// interviewers get do not name the person, then erases its activity.
func (s *Service) eraseCandidate(ctx context.Context, tx Tx, c Caller, p erasedPerson, now time.Time) error {
	k := p.cand
	if err := tx.Privacy().Erase(ctx, EraseCandidateParams{CandidateID: k.ID, At: now}); err != nil {
		return err
	}
	ivs, err := tx.Interviews().LockScheduled(ctx, LockScheduledParams{CandidateID: k.ID, EndsAfter: now, Held: true})
	if err != nil {
		return err
	}
	for _, iv := range ivs {
		iv.CandidateName, iv.CandidateEmail, iv.CandidateErased = ErasedName, ErasedEmail(k.ID), true
		iv.Status, iv.Sequence, iv.UpdatedAt = InterviewCancelled, iv.Sequence+1, now
		if err := tx.Interviews().Update(ctx, iv); err != nil {
			return err
		}
		changes := map[string]Change{"status": {Before: InterviewScheduled, After: InterviewCancelled}}
		if err := s.log(ctx, tx, c, iv.TeamID, iv.JobID, ActionInterviewCancelled, SubjectInterview, iv.ID, changes); err != nil {
			return err
		}
		if err := s.mailInvitation(ctx, tx, invitation(iv), iv.Interviewers); err != nil {
			return err
		}
	}
	entries, err := tx.Activity().AboutCandidate(ctx, CandidateEntriesParams{CandidateID: k.ID})
	if err != nil {
		return err
	}
	for _, a := range entries {
		if changed, ok := p.scrubEntry(a.Changes); ok {
			if err := tx.Activity().SetChanges(ctx, ActivityChangesParams{ID: a.ID, Changes: changed}); err != nil {
				return err
			}
		}
	}
	return nil
}

// erasedPerson is a candidate as it was before its erasure, whose data
// is to be found and erased elsewhere.
type erasedPerson struct {
	cand Candidate
}

// personalKeys are the fields of activity changes, and of stored results,
// that hold a person's data whatever their value.
var personalKeys = []string{"name", "email", "resume_url", "content", "to", "subject", "body", "error", "last_error", "reason", "note", "rating",
	"Name", "Email", "ResumeURL", "Content", "To", "Subject", "Body", "LastError", "CandidateName", "CandidateEmail"}

// holds reports whether s holds the person's name, email or resume URL,
// in any letter case.
func (p erasedPerson) holds(s string) bool {
	f := Fold(s)
	for _, v := range []string{p.cand.Name, p.cand.Email, p.cand.ResumeURL} {
		if v = strings.TrimSpace(v); v != "" && strings.Contains(f, Fold(v)) {
			return true
		}
	}
	return false
}

// scrubEntry is the changes of an entry about the person with every
// value of their data "[erased]", and whether that changed them.
func (p erasedPerson) scrubEntry(raw json.RawMessage) (json.RawMessage, bool) {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw, false
	}
	changed := false
	v = p.walk(v, &changed)
	if !changed {
		return raw, false
	}
	return mustJSON(v), true
}

// walk returns v with each value under a personal key (each side of a
// {before, after}), and each string that holds the person's data,
// replaced by "[erased]".
func (p erasedPerson) walk(v any, changed *bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !slices.Contains(personalKeys, k) {
				x[k] = p.walk(e, changed)
				continue
			}
			if m, ok := e.(map[string]any); ok {
				for side, sv := range m {
					if sv != nil && !isErased(sv) {
						m[side], *changed = ErasedValue, true
					}
				}
			} else if e != nil && !isErased(e) {
				x[k], *changed = ErasedValue, true
			}
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = p.walk(e, changed)
		}
		return x
	case string:
		if p.holds(x) {
			*changed = true
			return ErasedValue
		}
	}
	return v
}

func isErased(v any) bool {
	s, ok := v.(string)
	return ok && (s == ErasedValue || s == ErasedName || strings.HasSuffix(s, "@erased.invalid"))
}

// eraseIdempotency makes each stored result of the team's keys hold
// nothing of people (privacy.md): a record about one of their candidates,
// found by the candidate's id whatever their name was, reads as the
// record does after the erasure (see erasedRecord); in any other record
// (one stored before records named their candidate, a proposal's) the
// values that hold their data are erased. The request a key is bound to
// is already only a digest.
func (s *Service) eraseIdempotency(ctx context.Context, tx Tx, teamID int64, people []erasedPerson, now time.Time) error {
	recs, err := tx.Idempotency().Records(ctx, IdempotencyRecordsParams{TeamID: teamID})
	if err != nil {
		return err
	}
	for _, r := range recs {
		if i := slices.IndexFunc(people, func(p erasedPerson) bool { return p.cand.ID == r.CandidateID }); i >= 0 {
			result, err := people[i].erasedRecord(ctx, tx, r, now)
			if err != nil {
				return err
			}
			if string(result) != string(r.Result) {
				if err := tx.Idempotency().SetResult(ctx, KeyResultParams{TeamID: teamID, Key: r.Key, Result: result}); err != nil {
					return err
				}
			}
			continue
		}
		var v any
		if json.Unmarshal(r.Result, &v) != nil {
			continue
		}
		changed := false
		// Each record about a candidate reads as after the erasure first;
		// then any other value of the people's data is emptied.
		for _, about := range []bool{true, false} {
			for _, p := range people {
				v = p.walkResult(v, about, &changed)
			}
		}
		if changed {
			if err := tx.Idempotency().SetResult(ctx, KeyResultParams{TeamID: teamID, Key: r.Key, Result: mustJSON(v)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// erasedRecord is the stored result of r, a keyed write about the
// person's candidate, as the record reads after the erasure at now: the
// candidate erased; its message as it is kept, emptied; a decided
// proposal as the erasure left it; its interview with the name erased;
// anything the erasure deleted (a note, a rating, a document) and any
// operation not named here, erasedResult, which answers not_found.
func (p erasedPerson) erasedRecord(ctx context.Context, tx Tx, r IdempotencyRecord, now time.Time) ([]byte, error) {
	switch r.Op {
	case OpAddCandidate, OpUpdateCandidate, OpMoveCandidate:
		k := p.cand
		k.Name, k.Email, k.ResumeURL, k.NotesCount, k.ErasedAt = ErasedName, ErasedEmail(k.ID), "", 0, &now
		return json.Marshal(k)
	case OpSendMessage, OpCancelMessage, OpRetryMessage:
		var m struct{ ID int64 }
		if json.Unmarshal(r.Result, &m) != nil || m.ID == 0 {
			break
		}
		msg, err := tx.Messages().Lock(ctx, LockMessageParams{CandidateID: p.cand.ID, ID: m.ID})
		if ErrorCode(err) == ENotFound {
			break
		} else if err != nil {
			return nil, err
		}
		return json.Marshal(msg)
	case OpRejectProposal, OpApproveProposal:
		// The proposal as eraseProposals left it.
		var d struct{ ID int64 }
		if json.Unmarshal(r.Result, &d) != nil || d.ID == 0 {
			break
		}
		prop, err := tx.Proposals().Get(ctx, ProposalParams{ID: d.ID})
		if ErrorCode(err) == ENotFound {
			break
		} else if err != nil {
			return nil, err
		}
		return json.Marshal(prop)
	case OpScheduleInterview, OpRescheduleInterview, OpCancelInterview:
		var v any
		if json.Unmarshal(r.Result, &v) != nil {
			break
		}
		changed := false
		return mustJSON(p.walkResult(v, true, &changed)), nil
	}
	return []byte(erasedResult), nil
}

// walkResult erases the person from a stored result: with about, a
// record about the candidate (its own, or one with its CandidateID) reads
// as after the erasure; without, any other value holding their data
// becomes empty.
func (p erasedPerson) walkResult(v any, about bool, changed *bool) any {
	id := float64(p.cand.ID)
	repl := func(key string) any {
		switch key {
		case "Name", "CandidateName":
			return ErasedName
		case "Email", "CandidateEmail", "To":
			if key == "To" {
				return ""
			}
			return ErasedEmail(p.cand.ID)
		}
		return ""
	}
	var visit func(v any) any
	visit = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			_, isCand := x["StageID"]
			its := (isCand && x["ID"] == id) || x["CandidateID"] == id
			for k, e := range x {
				if its && slices.Contains(personalKeys, k) {
					if !about {
						continue
					}
					if s, ok := e.(string); ok && s != "" && !isErased(s) {
						x[k], *changed = repl(k), true
					}
					continue
				}
				x[k] = visit(e)
			}
			return x
		case []any:
			for i, e := range x {
				x[i] = visit(e)
			}
			return x
		case string:
			if !about && p.holds(x) {
				*changed = true
				return ""
			}
		}
		return v
	}
	return visit(v)
}

// eraseProposals erases the proposals about people: those on their
// candidates, and those on no candidate whose input names one of them (an
// intake). Each keeps its operation, status and times; its input, reason,
// note and result body go; a pending one is withdrawn (oversight.md: an
// erasure closes it).
func (s *Service) eraseProposals(ctx context.Context, tx Tx, teamID int64, people []erasedPerson, now time.Time) error {
	ids := make([]int64, len(people))
	for i, p := range people {
		ids[i] = p.cand.ID
	}
	ps, err := tx.Proposals().About(ctx, ProposalsAboutParams{TeamID: teamID, CandidateIDs: ids})
	if err != nil {
		return err
	}
	for _, p := range ps {
		if p.CandidateID == 0 && !slices.ContainsFunc(people, func(e erasedPerson) bool { return e.holds(string(p.Input)) }) {
			continue
		}
		if p.readAt(now).Status == ProposalPending {
			if _, err := s.closeProposal(ctx, tx, p, ProposalWithdrawn, now); err != nil {
				return err
			}
		}
		var result *ProposalResult
		if p.Result != nil {
			result = &ProposalResult{Status: p.Result.Status}
		}
		if err := tx.Proposals().Erase(ctx, EraseProposalParams{ID: p.ID, Result: result}); err != nil {
			return err
		}
	}
	return nil
}

// The operations on a person's data.
const (
	OpExportPerson Op = "export_person"
	OpErasePerson  Op = "erase_person"
)

// privacyOps are the rows of opTable for these operations, in the order of
// the API's document.
var privacyOps = []opRow{
	{OpExportPerson, opTraits{ScopePrivacyManage, mPost, "/privacy/exports", forbids | readsByPost}, nil, &Words{Title: "Export a person's data",
		Description: "Everything stored about a person: every candidate of the token's current team with the email, in any letter case, with its notes, ratings, messages, interviews, documents with their text and activity (POST /api/v1/privacy/exports). Owners and admins only. A read: it takes no key."}, Doc{
		Tag: "Privacy", Summary: "Export everything stored about a person",
		Description: "Scope: `privacy:manage`, and an owner or admin of the token's current team. Every candidate " +
			"of the token's current team whose email is the one sent, in any letter case, with its job, notes, " +
			"ratings, messages, interviews and documents, each document with its whole `text` (null unless its " +
			"`text_status` is `ready`) and `truncated`, the proposals about the candidate, and the activity " +
			"entries about them. The email travels in the body, never in a URL. A read: it takes no " +
			"`Idempotency-Key`, is never stored, and is logged as `privacy.exported` with the count.",
		Success: "What is stored about the person; empty lists for none.",
	}},
	{OpErasePerson, opTraits{ScopePrivacyManage, mPost, "/privacy/erasures", forbids}, runs(onTeam((*Service).ErasePerson), Erasure.Record), &Words{Title: "Erase a person", Destructive: true,
		Description: "Erases a person from the token's current team for good: every candidate with the email, in any letter case, is renamed, its notes, ratings, messages' text and invitations deleted, its future interviews cancelled, and its data erased from the activity log; candidate.erased is logged for each (POST /api/v1/privacy/erasures). Owners and admins only. Erasing again erases none."}, Doc{
		Tag: "Privacy", Summary: "Erase a person",
		Description: "Scope: `privacy:manage`, and an owner or admin of the token's current team. In one " +
			"transaction, each candidate of the person is renamed `Erased candidate` with the email " +
			"`erased-{id}@erased.invalid` and no résumé URL, keeps its stage and status, and shows `erased_at`; " +
			"its notes and ratings are deleted; its messages keep their status and times without their text " +
			"(queued ones are cancelled); its future interviews are cancelled (the interviewers are told, the " +
			"person is not) and its invitations deleted; the activity log's values of the person's data become " +
			"`\"[erased]\"`. `candidate.erased` is logged for each candidate and `privacy.erased` with the " +
			"count. Erasing again answers `candidate_ids: []`. A closed job does not stop it.",
		Success: "The candidates erased.",
	}},
}

// PrivacyStore is what the Service reads of a person outside a write.
type PrivacyStore interface {
	// Person returns the candidates of a team's jobs whose email equals
	// Email in any letter case, by id.
	Person(ctx context.Context, p PersonParams) ([]Candidate, error)
}

// PersonParams names a person: an email on a team.
type PersonParams struct {
	TeamID int64
	Email  string
}

// PrivacyTx is what an erasure and the retention pass do in a write
// transaction. A candidate Erase erases is one LockPerson or Expired
// returned.
type PrivacyTx interface {
	// LockPerson returns, locked, the candidates of a team's jobs whose
	// email equals Email in any letter case and that are not erased.
	// Before it locks them it takes the locks the writers of each of
	// their interviews take first, as LockCandidateParams.Interviews: the
	// erasure cancels those to come, after any change of one under way.
	LockPerson(ctx context.Context, p PersonParams) ([]Candidate, error)
	// Erase erases a locked candidate's row (name, email, resume URL,
	// erased_at), deletes its notes, ratings and invitation mails,
	// empties its messages (cancelling queued ones), deletes the queued
	// jobs of those messages and mails, and deletes its documents as
	// DocumentTx.Delete does. It locks the candidate's interviews first: a
	// change of one that committed before has its mails deleted with the
	// others, and one that waits for the lock reads the candidate erased
	// (InterviewTx.Lock).
	Erase(ctx context.Context, p EraseCandidateParams) error
	// Expired returns, locked and by id, up to Limit candidates of a team
	// with ids above AfterID that are not erased and that the retention
	// pass erases at Cutoff (see Service.SweepRetention): not hired, and
	// on a job closed at or before Cutoff, or rejected or withdrawn with
	// no activity entry about them after it.
	Expired(ctx context.Context, p ExpiredParams) ([]Expired, error)
}

// EraseCandidateParams is a candidate to erase at a time.
type EraseCandidateParams struct {
	CandidateID int64
	At          time.Time
}

// ExpiredParams selects a batch of a team's candidates whose retention
// expired at a cutoff.
type ExpiredParams struct {
	TeamID  int64
	Cutoff  time.Time
	AfterID int64
	Limit   int
}
