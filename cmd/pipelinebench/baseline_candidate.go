package main

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// move serves POST /api/v1/jobs/:job/candidates/:candidate/stage.
func (b *baseline) move(c *gin.Context) {
	var stageID int64
	w, bad, ok := newWrite(c, http.StatusOK, bodyField{name: "stage", kind: "an integer", into: &stageID})
	if !ok {
		return
	}
	defer w.rollback()
	var stage string
	var stageFound bool
	err := b.open(c.Request.Context(), w, func(batch *pgx.Batch) {
		if bad == nil && stageID != 0 {
			batch.Queue(`SELECT name FROM stages WHERE id = $1 AND job_id = $2`, stageID, w.jobID).QueryRow(func(row pgx.Row) error {
				err := row.Scan(&stage)
				stageFound = err == nil
				return ignoreNoRows(err)
			})
		}
	})
	if !w.opened(c, b, err, bad) {
		return
	}
	switch {
	case stageID == 0:
		invalid(c, map[string][]string{"stage": {"The stage field is required."}})
		return
	case !stageFound:
		invalid(c, map[string][]string{"stage": {msgStage}})
		return
	}
	var batch pgx.Batch
	if stageID != w.stageID {
		batch.Queue(`UPDATE candidates SET stage_id = $1, updated_at = $2 WHERE id = $3`, stageID, w.now, w.candID)
		w.logActivity(&batch, pipeline.ActionCandidateStageChanged, map[string]change{"stage": {Before: w.cand.Stage, After: stage}})
		w.cand.Stage = stage
	}
	b.commit(c, w, &batch, http.StatusOK, encode(envelope[candidateBody]{Data: w.cand}))
}

// note serves POST /api/v1/jobs/:job/candidates/:candidate/notes. The
// note's id is drawn from its sequence in the first round trip, so that
// the note, its activity entry (which names it) and the stored response
// (which shows it) go in the second.
func (b *baseline) note(c *gin.Context) {
	var content string
	w, bad, ok := newWrite(c, http.StatusCreated, bodyField{name: "content", kind: "a string", into: &content})
	if !ok {
		return
	}
	defer w.rollback()
	if bad["content"] == nil && bad["body"] == nil {
		msg := ""
		switch {
		case strings.TrimSpace(content) == "":
			msg = "The content field is required."
		case utf8.RuneCountInString(content) > pipeline.MaxNoteLength:
			msg = "The content may not be greater than 5000 characters."
		}
		if msg != "" {
			if bad == nil {
				bad = map[string][]string{}
			}
			bad["content"] = append(bad["content"], msg)
		}
	}
	var noteID int64
	err := b.open(c.Request.Context(), w, func(batch *pgx.Batch) {
		if bad == nil {
			batch.Queue(`SELECT nextval(pg_get_serial_sequence('notes', 'id'))`).QueryRow(func(row pgx.Row) error {
				return row.Scan(&noteID)
			})
		}
	})
	if !w.opened(c, b, err, bad) {
		return
	}
	var batch pgx.Batch
	batch.Queue(`INSERT INTO notes (id, candidate_id, user_id, content, created_at) VALUES ($1, $2, $3, $4, $5)`,
		noteID, w.candID, w.cl.userID, content, w.now)
	w.logActivity(&batch, pipeline.ActionCandidateNoteAdded, map[string]any{"note_id": noteID})
	body := encode(envelope[noteBody]{Data: noteBody{
		ID: noteID, Content: content, Author: named{ID: w.cl.userID, Name: w.cl.userName}, CreatedAt: stamp(w.now),
	}})
	b.commit(c, w, &batch, http.StatusCreated, body)
}
