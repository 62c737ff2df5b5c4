package pipelinehttp

import (
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
