package pipelinehttp

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// noteItem is a note as created.
type noteItem struct {
	ID        int64  `json:"id"`
	Content   string `json:"content"`
	Author    named  `json:"author"`
	CreatedAt string `json:"created_at"`
}

// named is a record shown by id and name: a note's author, a user's team.
type named struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

func newNoteItem(n pipeline.Note) noteItem {
	return noteItem{
		ID:        n.ID,
		Content:   n.Content,
		Author:    named{ID: n.Author.ID, Name: n.Author.Name},
		CreatedAt: timestamp(n.CreatedAt),
	}
}

// addNote serves POST /jobs/{job}/candidates/{candidate}/notes.
func (a *api) addNote(c *gin.Context) {
	ref := candidateRef(c)
	var in pipeline.NewNote
	idem, ok := a.bind(c, pipeline.OpAddNote, ref, func() error { return in.Validate() },
		stringField("content", &in.Content))
	if !ok {
		return
	}
	in.Idempotency = idem
	res, err := a.svc.AddNote(c.Request.Context(), ref.Job, ref.Candidate, in)
	answer(c, res, err, func(n pipeline.Note) (int, any) {
		return http.StatusCreated, data[noteItem]{Data: newNoteItem(n)}
	})
}
