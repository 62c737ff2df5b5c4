package pipelinehttp

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The reviewer's candidate page (web.md): what a person needs to judge an
// agent's proposal about a candidate, read-only, each part read through
// the Service as the signed-in person, who sees what their user reaches:
// the candidate, their documents with the text an agent reads, notes,
// messages, interviews, the activity about them, and the proposals about
// them waiting for a decision. A job's page lists its candidates by stage.

// candidatePage is what the candidate page shows.
type candidatePage struct {
	Job        pipeline.Job
	C          pipeline.Candidate
	Documents  []documentView
	Notes      []pipeline.Note
	Messages   []pipeline.Message
	Interviews []pipeline.Interview
	Activity   []pipeline.FeedEntry
	// ActivityCut: not all of the team's log since they applied was read
	// (longer than the page reads, or a read failed): their newest
	// entries may be missing.
	ActivityCut bool
	Proposals   []approvalItem
	More        []string // the parts shown in part
}

// documentView is a document with its text as an agent reads it
// (get_document_text), or why there is none.
type documentView struct {
	D       pipeline.Document
	Text    string
	NoText  string
	Partial bool
}

// pageItems is how many records of each part the page shows at most.
const pageItems = 100

// allOf reads the pages of a list until it has max records; whether some
// were left.
func allOf[T any](read func(page int) (pipeline.List[T], error), max int) ([]T, bool, error) {
	var out []T
	for page := 1; ; page++ {
		l, err := read(page)
		if err != nil {
			return nil, false, err
		}
		out = append(out, l.Items...)
		if page >= l.LastPage() || len(l.Items) == 0 {
			return out, false, nil
		}
		if len(out) >= max {
			return out, true, nil
		}
	}
}

// ids are the path's ids named, else false after a not-found page.
func (p *pages) ids(c *gin.Context, names ...string) ([]int64, bool) {
	out := make([]int64, len(names))
	for i, name := range names {
		id, err := strconv.ParseInt(c.Param(name), 10, 64)
		if err != nil || id <= 0 {
			p.notFound(c)
			return nil, false
		}
		out[i] = id
	}
	return out, true
}

func (p *pages) candidate(c *gin.Context) {
	ids, ok := p.ids(c, "job", "candidate")
	if !ok {
		return
	}
	s := sessionOf(c)
	ctx := c.Request.Context()
	job, id := ids[0], ids[1]
	var v candidatePage
	var err error
	if v.Job, err = p.svc.GetJob(ctx, job); err == nil {
		v.C, err = p.svc.GetCandidate(ctx, job, id)
	}
	if err != nil {
		p.fail(c, err)
		return
	}
	more := func(part string, left bool) {
		if left {
			v.More = append(v.More, part)
		}
	}
	var left bool
	docs, left, err := allOf(func(n int) (pipeline.List[pipeline.Document], error) {
		return p.svc.ListDocuments(ctx, job, id, pipeline.DocumentFilter{Page: n})
	}, pageItems)
	more("documents", left)
	for _, d := range docs {
		if err != nil {
			break
		}
		dv := documentView{D: d}
		dv.Text, dv.NoText, dv.Partial, err = p.documentText(c, d)
		v.Documents = append(v.Documents, dv)
	}
	if err == nil {
		v.Notes, left, err = allOf(func(n int) (pipeline.List[pipeline.Note], error) {
			return p.svc.ListNotes(ctx, job, id, pipeline.NoteFilter{Page: n})
		}, pageItems)
		more("notes", left)
	}
	if err == nil {
		v.Messages, left, err = allOf(func(n int) (pipeline.List[pipeline.Message], error) {
			return p.svc.ListMessages(ctx, job, id, pipeline.MessageFilter{Page: n})
		}, pageItems)
		more("messages", left)
	}
	if err == nil {
		v.Interviews, left, err = allOf(func(n int) (pipeline.List[pipeline.Interview], error) {
			return p.svc.ListInterviews(ctx, job, id, pipeline.InterviewFilter{Page: n})
		}, pageItems)
		more("interviews", left)
	}
	if err == nil {
		err = p.candidateProposals(c, &v)
	}
	if err != nil {
		p.fail(c, err)
		return
	}
	v.Activity, v.ActivityCut = p.candidateActivity(c, v)
	out := view{Title: v.C.Name, CSRF: csrfOf(s.value), Me: s.me, Candidate: &v,
		Back: "/app/jobs/" + strconv.FormatInt(job, 10) + "/candidates/" + strconv.FormatInt(id, 10)}
	if done, err := strconv.ParseInt(c.Query("done"), 10, 64); err == nil {
		if pr, err := p.svc.GetProposal(ctx, done); err == nil {
			it := p.approvalItem(newDescriber(ctx, p.svc), pr)
			out.Done = &it
		}
	}
	p.render(c, http.StatusOK, "candidate", out)
}

// documentText is the text of d an agent reads, or why there is none.
func (p *pages) documentText(c *gin.Context, d pipeline.Document) (text, none string, partial bool, err error) {
	switch d.TextStatus {
	case pipeline.TextPending:
		return "", "Its text is still being read from the file.", false, nil
	case pipeline.TextNone:
		return "", "The file holds no text an agent can read (an image, or an empty file).", false, nil
	case pipeline.TextFailed:
		return "", "Its text could not be read from the file.", false, nil
	}
	t, err := p.svc.GetDocumentText(c.Request.Context(), d.JobID, d.CandidateID, d.ID, pipeline.TextRange{})
	if errors.Is(err, pipeline.ErrTextPending) {
		return "", "Its text is still being read from the file.", false, nil
	}
	return t.Text, "", t.Truncated, err
}

// candidateProposals are the pending proposals about the candidate the
// person may decide, in words.
func (p *pages) candidateProposals(c *gin.Context, v *candidatePage) error {
	ctx := c.Request.Context()
	ps, _, err := allOf(func(n int) (pipeline.List[pipeline.Proposal], error) {
		return p.svc.ListProposals(ctx, pipeline.ProposalFilter{Status: pipeline.ProposalPending, JobID: v.Job.ID, Page: n})
	}, 500)
	if err != nil {
		return err
	}
	ps = slices.DeleteFunc(ps, func(pr pipeline.Proposal) bool {
		return pr.CandidateID != v.C.ID || pr.Status != pipeline.ProposalPending
	})
	d := newDescriber(ctx, p.svc)
	d.loadChanges(ps)
	for _, pr := range ps {
		v.Proposals = append(v.Proposals, p.approvalItem(d, pr))
	}
	return nil
}

// candidateActivity is the feed's entries about the candidate, their
// interviews and the proposals about them, newest first: read from the
// day they applied (no entry about them is older), at most 5,000 entries.
func (p *pages) candidateActivity(c *gin.Context, v candidatePage) ([]pipeline.FeedEntry, bool) {
	ivs := map[int64]bool{}
	for _, iv := range v.Interviews {
		ivs[iv.ID] = true
	}
	about := func(e pipeline.FeedEntry) bool {
		switch e.SubjectType {
		case pipeline.SubjectCandidate:
			return e.SubjectID == v.C.ID
		case pipeline.SubjectInterview:
			return ivs[e.SubjectID]
		case pipeline.SubjectProposal:
			var ch struct {
				CandidateID int64 `json:"candidate_id"`
			}
			return json.Unmarshal(e.Changes, &ch) == nil && ch.CandidateID == v.C.ID
		}
		return false
	}
	since := v.C.Applied.Add(-24 * time.Hour)
	f := pipeline.FeedFilter{Since: &since, Limit: 100}
	var out []pipeline.FeedEntry
	cut := true
	for range 50 {
		page, err := p.svc.ListActivity(c.Request.Context(), f)
		if err != nil {
			break
		}
		for _, e := range page.Entries {
			if about(e) && e.JobID == v.Job.ID {
				out = append(out, e)
			}
		}
		if !page.HasMore {
			cut = false
			break
		}
		f = pipeline.FeedFilter{After: page.Next, Limit: 100}
	}
	slices.Reverse(out)
	return out, cut
}

// download serves a document's bytes through the pages, as the API does:
// an attachment, its type not guessed, sandboxed.
func (p *pages) download(c *gin.Context) {
	ids, ok := p.ids(c, "job", "candidate", "document")
	if !ok {
		return
	}
	d, content, err := p.svc.GetDocumentContent(c.Request.Context(), ids[0], ids[1], ids[2])
	if err != nil {
		p.fail(c, err)
		return
	}
	documentContent{doc: d, content: content}.serve(c.Writer, c.Request)
}

// jobPage is what a job's page shows: its candidates by stage.
type jobPage struct {
	Job    pipeline.Job
	Stages []stageGroup
	Search string
	Status string
	More   bool
}

type stageGroup struct {
	Stage      pipeline.Stage
	Candidates []pipeline.Candidate
}

func (p *pages) job(c *gin.Context) {
	ids, ok := p.ids(c, "job")
	if !ok {
		return
	}
	s := sessionOf(c)
	ctx := c.Request.Context()
	v := jobPage{Search: c.Query("search"), Status: c.Query("status")}
	var err error
	if v.Job, err = p.svc.GetJob(ctx, ids[0]); err != nil {
		p.fail(c, err)
		return
	}
	stages, err := p.svc.ListStages(ctx, v.Job.ID)
	if err != nil {
		p.fail(c, err)
		return
	}
	cands, more, err := allOf(func(n int) (pipeline.List[pipeline.Candidate], error) {
		return p.svc.ListCandidates(ctx, v.Job.ID, pipeline.CandidateFilter{Search: v.Search, Status: v.Status, Page: n})
	}, 500)
	if err != nil {
		p.fail(c, err)
		return
	}
	v.More = more
	for _, st := range stages {
		g := stageGroup{Stage: st}
		for _, k := range cands {
			if k.StageID == st.ID {
				g.Candidates = append(g.Candidates, k)
			}
		}
		v.Stages = append(v.Stages, g)
	}
	p.render(c, http.StatusOK, "job", view{Title: v.Job.Title, CSRF: csrfOf(s.value), Me: s.me, JobPage: &v})
}
