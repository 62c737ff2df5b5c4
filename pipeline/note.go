package pipeline

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxNoteLength is the longest note, in characters.
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
	Content   string
	Malformed FieldErrors
}

// AddNote adds a note by the caller to a candidate. Scope: candidates:write.
// Errors: unauthenticated, insufficient_scope, not_found,
// validation_failed, conflict (idempotency key in flight).
func (s *Service) AddNote(ctx context.Context, jobID, candidateID int64, in NewNote) (Note, error) {
	c, err := authorize(ctx, ScopeCandidatesWrite)
	if err != nil {
		return Note{}, err
	}
	load := func(tx Tx) (Candidate, error) { return tx.CandidateForUpdate(ctx, c.User.ID, jobID, candidateID) }
	return write(s, ctx, c, load, func(tx Tx, cand Candidate) (Note, error) {
		f := in.Malformed.clone()
		if f.decoded("content") {
			switch {
			case strings.TrimSpace(in.Content) == "":
				f.Add("content", "The content field is required.")
			case utf8.RuneCountInString(in.Content) > MaxNoteLength:
				f.Add("content", "The content may not be greater than 5000 characters.")
			}
		}
		if err := f.Err(); err != nil {
			return Note{}, err
		}
		n, err := tx.InsertNote(ctx, Note{
			CandidateID: cand.ID,
			Content:     in.Content,
			Author:      User{ID: c.User.ID, Name: c.User.Name},
			CreatedAt:   s.now(),
		})
		if err != nil {
			return Note{}, err
		}
		changes := map[string]any{"note_id": n.ID}
		return n, s.log(ctx, tx, c, cand.TeamID, ActionCandidateNoteAdded, SubjectCandidate, cand.ID, changes)
	})
}
