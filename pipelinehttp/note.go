package pipelinehttp

import (
	"context"
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
	raw, err := readBody(c)
	if err != nil {
		fail(c, err)
		return
	}
	var in pipeline.NewNote
	in.Malformed = decodeBody(raw, stringField("content", &in.Content, nil))
	jobID, id := pathID(c, "job"), pathID(c, "candidate")
	write(c, raw, renderNote, nil, func(ctx context.Context) (pipeline.Note, error) {
		return a.svc.AddNote(ctx, jobID, id, in)
	})
}

func renderNote(n pipeline.Note) (int, any) {
	return http.StatusCreated, data[noteItem]{Data: newNoteItem(n)}
}
