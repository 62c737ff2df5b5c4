package pipelinehttp

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// jobItem is a job as a list element.
type jobItem struct {
	ID          int64              `json:"id"`
	Title       string             `json:"title"`
	Status      pipeline.JobStatus `json:"status"`
	Description string             `json:"description"`
	CreatedAt   string             `json:"created_at"`
}

// jobFull is a single job: the list element and its other public fields.
type jobFull struct {
	jobItem
	WorkMode            string `json:"work_mode"`
	EmploymentType      string `json:"employment_type"`
	ApplicationDeadline string `json:"application_deadline"`
	UpdatedAt           string `json:"updated_at"`
}

func newJobItem(j pipeline.Job) jobItem {
	return jobItem{
		ID:          j.ID,
		Title:       j.Title,
		Status:      j.Status,
		Description: j.Description,
		CreatedAt:   timestamp(j.CreatedAt),
	}
}

func newJobFull(j pipeline.Job) jobFull {
	return jobFull{
		jobItem:             newJobItem(j),
		WorkMode:            j.WorkMode,
		EmploymentType:      j.EmploymentType,
		ApplicationDeadline: date(j.ApplicationDeadline),
		UpdatedAt:           timestamp(j.UpdatedAt),
	}
}

// listJobs serves GET /jobs?status=&search=&page=.
func (a *api) listJobs(c *gin.Context) {
	q := newQuery(c, "status", "search", "page")
	f := pipeline.JobFilter{Status: q.status(), Search: q.text("search"), Page: q.page()}
	if len(q.bad) > 0 {
		fail(c, a.svc.Reject(c.Request.Context(), pipeline.OpListJobs, pipeline.Ref{}, nil, merged(q.bad, f.Validate())))
		return
	}
	l, err := a.svc.ListJobs(c.Request.Context(), f)
	if err != nil {
		fail(c, err)
		return
	}
	respond(c, http.StatusOK, newList(a, c, l, newJobItem, q.filters("status", "search")))
}

// job serves GET /jobs/{job}.
func (a *api) job(c *gin.Context) {
	j, err := a.svc.Job(c.Request.Context(), pathID(c, "job"))
	if err != nil {
		fail(c, err)
		return
	}
	respond(c, http.StatusOK, data[jobFull]{Data: newJobFull(j)})
}

// createJob serves POST /jobs.
func (a *api) createJob(c *gin.Context) {
	var in pipeline.NewJob
	idem, ok := a.bind(c, pipeline.OpCreateJob, pipeline.Ref{}, func() error { return in.Validate() },
		stringField("title", &in.Title),
		stringField("description", &in.Description),
	)
	if !ok {
		return
	}
	in.Idempotency = idem
	res, err := a.svc.CreateJob(c.Request.Context(), in)
	if err == nil {
		// FullPath is this route's pattern: /api/v1/jobs below wherever the
		// API is mounted.
		c.Header("Location", a.basePath+c.FullPath()+"/"+strconv.FormatInt(res.Value.ID, 10))
	}
	answer(c, res, err, func(j pipeline.Job) (int, any) {
		return http.StatusCreated, data[jobFull]{Data: newJobFull(j)}
	})
}

// updateJob serves PATCH /jobs/{job}. A field that is sent is decoded into
// a fresh value, so the patch's nil fields are exactly those not sent.
func (a *api) updateJob(c *gin.Context) {
	var p pipeline.JobPatch
	ref := jobRef(c)
	idem, ok := a.bind(c, pipeline.OpUpdateJob, ref, func() error { return p.Validate() },
		patchField("title", &p.Title),
		patchField("description", &p.Description),
		patchField("status", &p.Status),
	)
	if !ok {
		return
	}
	p.Idempotency = idem
	res, err := a.svc.UpdateJob(c.Request.Context(), ref.Job, p)
	answer(c, res, err, func(j pipeline.Job) (int, any) {
		return http.StatusOK, data[jobFull]{Data: newJobFull(j)}
	})
}
