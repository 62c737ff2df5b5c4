package pipeline

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxNoteLength is the longest note, in characters (code points).
const MaxNoteLength = 5000

// Note is a remark a user adds to a candidate.
type Note struct {
	ID          int64
	CandidateID int64
	Content     string
	Author      User // ID and Name
	CreatedAt   time.Time
}

// NewNote is the input of AddNote.
type NewNote struct {
	Content     string       `json:"content"`
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *NewNote) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *NewNote) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the input.
func (in NewNote) Validate() error { return inputVerdict(in.Unread, in.check()) }

func (in NewNote) check() error {
	bad := FieldErrors{}
	switch {
	case !checkText(bad, "content", in.Content):
		return bad.Err()
	case strings.TrimSpace(in.Content) == "":
		return Invalid("content", "The content field is required.")
	case utf8.RuneCountInString(in.Content) > MaxNoteLength:
		return Invalid("content", "The content may not be greater than 5000 characters.")
	}
	return nil
}

// AddNote adds a note by the caller to a candidate. Scope: candidates:write.
// Errors: unauthenticated, insufficient_scope, not_found,
// validation_failed, conflict (idempotency key in flight).
func (s *Service) AddNote(ctx context.Context, jobID, candidateID int64, in NewNote) (Result[Note], error) {
	return writeCandidate(s, ctx, OpAddNote, jobID, candidateID, &in, &in.Idempotency, func(tx Tx, c Caller, cand Candidate) (Note, error) {
		n, err := tx.Notes().Insert(ctx, Note{
			CandidateID: cand.ID,
			Content:     in.Content,
			Author:      User{ID: c.user.ID, Name: c.user.Name},
			CreatedAt:   s.now(),
		})
		if err != nil {
			return Note{}, err
		}
		changes := map[string]any{"note_id": n.ID}
		return n, s.log(ctx, tx, c, cand.TeamID, cand.JobID, ActionCandidateNoteAdded, SubjectCandidate, cand.ID, changes)
	})
}

// NoteFilter selects a page of a candidate's notes. The zero value selects
// the first page.
type NoteFilter struct {
	Page int // from 1; 0: the first page
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error
}

// SetUnread sets what a face could not read of the request.
func (in *NoteFilter) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the filter.
func (f NoteFilter) Validate() error {
	bad := FieldErrors{}
	if f.Page < 0 {
		bad.Add("page", msgPage)
	}
	return inputVerdict(f.Unread, bad.Err())
}

// ListNotes returns a page of the notes of a candidate of a job, newest
// first (created_at, then id), each as AddNote returned it. Scope:
// candidates:read. Errors: unauthenticated, insufficient_scope, not_found
// (a candidate the caller cannot reach, or of another job),
// validation_failed (page).
func (s *Service) ListNotes(ctx context.Context, jobID, candidateID int64, f NoteFilter) (List[Note], error) {
	c, err := authorize(ctx, OpListNotes)
	if err != nil {
		return List[Note]{}, err
	}
	if bad := f.Validate(); bad != nil {
		// Not found comes before invalid.
		if _, err := s.store.Candidates().Get(ctx, CandidateParams{Viewer: c.user.ID, JobID: jobID, ID: candidateID}); err != nil {
			return List[Note]{}, err
		}
		return List[Note]{}, bad
	}
	return s.store.Notes().List(ctx, ListNotesParams{Viewer: c.user.ID, JobID: jobID, CandidateID: candidateID, Page: max(f.Page, 1)})
}

// The operations on notes.
const (
	OpAddNote   Op = "add_note"
	OpListNotes Op = "list_notes"
)

// noteOps are the rows of opTable for these operations, in the order of
// the API's document.
var noteOps = []opRow{
	{OpAddNote, opTraits{ScopeCandidatesWrite, mPost, candidatePath + "/notes", creates}, runs(onCandidate((*Service).AddNote), Note.Record), &Words{Title: "Add a note",
		Description: "Adds a note by the token's user to a candidate and returns it (POST .../candidates/{candidate}/notes). Each call adds one: send an idempotency_key to retry safely."}, Doc{
		Tag: "Candidates", Summary: "Add a note to a candidate",
		Description: "Scope: `candidates:write`. Adds a note written by the token's user.",
		Success:     "The note was added (or this is the replay of its addition).",
		Invalid: "`validation_failed`: `content` is missing, blank, longer than 5,000 characters or not valid " +
			"text, or the body or `Idempotency-Key` is invalid.",
	}},
	{OpListNotes, opTraits{ScopeCandidatesRead, mGet, candidatePath + "/notes", 0}, nil, &Words{Title: "List a candidate's notes", Description: "A page of 15 of a candidate's notes, newest first, each as add_note returned it, with links and meta (GET .../candidates/{candidate}/notes)."}, Doc{
		Tag: "Candidates", Summary: "List the notes of a candidate",
		Description: "Scope: `candidates:read`. Newest first (`created_at`, then `id`, descending), 15 a page, " +
			"each note exactly as its creation answered it.",
		Success: "A page of notes.",
		Invalid: invalidPageOrQuery,
	}},
}

// NoteStore is what the Service reads of notes outside a write.
type NoteStore interface {
	// List returns a page of the notes of a candidate of a job the viewer
	// can reach, newest first (created_at, then id, descending); its
	// Total equals the candidate's notes count.
	List(ctx context.Context, p ListNotesParams) (List[Note], error)
}

// ListNotesParams selects a page of the notes of a candidate of a job,
// read for a viewer.
type ListNotesParams struct {
	Viewer, JobID, CandidateID int64
	Page                       int
}

// NoteTx is what a write transaction does to notes.
type NoteTx interface {
	// Insert stores a note and returns it with its id; the candidate's
	// notes count follows in the same transaction, exact however many
	// notes commit at once.
	Insert(ctx context.Context, n Note) (Note, error)
}
