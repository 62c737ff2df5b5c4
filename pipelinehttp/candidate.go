package pipelinehttp

import (
	"net/http"

	"github.com/gin-gonic/gin"

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
	ID         int64  `json:"id"`
	Name       string `json:"name,omitempty"`
	Email      string `json:"email,omitempty"`
	Applied    string `json:"applied,omitempty"`
	Stage      string `json:"stage,omitempty"`
	Status     string `json:"status,omitempty"`
	ResumeURL  string `json:"resume_url,omitempty"`
	NotesCount int    `json:"notes_count"`
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
	return candidateFull{
		ID:         k.ID,
		Name:       k.Name,
		Email:      k.Email,
		Applied:    date(k.Applied),
		Stage:      k.Stage,
		Status:     k.Status,
		ResumeURL:  k.ResumeURL,
		NotesCount: k.NotesCount,
	}
}

// listCandidates serves GET /jobs/{job}/candidates?search=&stage=&page=.
func (a *api) listCandidates(c *gin.Context) {
	q := newQuery(c, "search", "stage", "page")
	ref := jobRef(c)
	f := pipeline.CandidateFilter{Search: q.text("search"), StageID: q.stage(), Page: q.page()}
	if len(q.bad) > 0 {
		fail(c, a.svc.Reject(c.Request.Context(), pipeline.OpListCandidates, ref, nil, merged(q.bad, f.Validate())))
		return
	}
	l, err := a.svc.ListCandidates(c.Request.Context(), ref.Job, f)
	if err != nil {
		fail(c, err)
		return
	}
	respond(c, http.StatusOK, newList(a, c, l, newCandidateItem, q.filters("search", "stage")))
}

// candidate serves GET /jobs/{job}/candidates/{candidate}.
func (a *api) candidate(c *gin.Context) {
	ref := candidateRef(c)
	k, err := a.svc.Candidate(c.Request.Context(), ref.Job, ref.Candidate)
	if err != nil {
		fail(c, err)
		return
	}
	respond(c, http.StatusOK, data[candidateFull]{Data: newCandidateFull(k)})
}

// moveCandidate serves POST /jobs/{job}/candidates/{candidate}/stage.
func (a *api) moveCandidate(c *gin.Context) {
	ref := candidateRef(c)
	var in pipeline.StageMove
	idem, ok := a.bind(c, pipeline.OpMoveCandidate, ref, func() error { return in.Validate() },
		integerField("stage", &in.StageID))
	if !ok {
		return
	}
	in.Idempotency = idem
	res, err := a.svc.MoveCandidate(c.Request.Context(), ref.Job, ref.Candidate, in)
	answer(c, res, err, func(k pipeline.Candidate) (int, any) {
		return http.StatusOK, data[candidateFull]{Data: newCandidateFull(k)}
	})
}
