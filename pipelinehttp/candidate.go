package pipelinehttp

import (
	"github.com/pipeline-dev/pipeline/pipeline"
)

// candidateItem is a candidate as a list element.
type candidateItem struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Email   string `json:"email"`
	Applied string `json:"applied"`
	Stage   string `json:"stage"`
	Status  string `json:"status"`
}

// candidateFull is a single candidate: fields that are empty are left out,
// except id and notes_count.
type candidateFull struct {
	candidateSparse
	ResumeURL  string `json:"resume_url,omitempty"`
	NotesCount int    `json:"notes_count"`
	// ErasedAt is shown on an erased candidate only.
	ErasedAt string `json:"erased_at,omitempty"`
}

// candidateSparse is candidateItem with its empty fields but id left out.
type candidateSparse struct {
	ID      int64  `json:"id"`
	Name    string `json:"name,omitempty"`
	Email   string `json:"email,omitempty"`
	Applied string `json:"applied,omitempty"`
	Stage   string `json:"stage,omitempty"`
	Status  string `json:"status,omitempty"`
}

func newCandidateItem(k pipeline.Candidate) candidateItem {
	return candidateItem{
		ID:      k.ID,
		Name:    k.Name,
		Email:   k.Email,
		Applied: date(k.Applied),
		Stage:   k.Stage,
		Status:  k.Status,
	}
}

func newCandidateFull(k pipeline.Candidate) candidateFull {
	c := candidateFull{
		candidateSparse: candidateSparse(newCandidateItem(k)),
		ResumeURL:       k.ResumeURL,
		NotesCount:      k.NotesCount,
	}
	if k.ErasedAt != nil {
		c.ErasedAt = timestamp(*k.ErasedAt)
	}
	return c
}
