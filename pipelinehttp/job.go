package pipelinehttp

import (
	"context"
	"encoding/json"
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
	q := newQuery(c)
	l, err := a.svc.ListJobs(c.Request.Context(), pipeline.JobFilter{
		Status:    q.status(),
		Search:    c.Query("search"),
		Page:      q.page(),
		Malformed: q.bad,
	})
	if err != nil {
		fail(c, err)
		return
	}
	respond(c, http.StatusOK, newList(a, c, l, newJobItem, "status", "search"))
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
	raw, err := readBody(c)
	if err != nil {
		fail(c, err)
		return
	}
	var in pipeline.NewJob
	in.Malformed = decodeBody(raw,
		stringField("title", &in.Title, nil),
		stringField("description", &in.Description, nil),
	)
	write(c, raw, renderCreatedJob, setJobLocation, func(ctx context.Context) (pipeline.Job, error) {
		return a.svc.CreateJob(ctx, in)
	})
}

func renderCreatedJob(j pipeline.Job) (int, any) {
	return http.StatusCreated, data[jobFull]{Data: newJobFull(j)}
}

// setJobLocation points Location at the created job. It reads the id from
// the rendered body rather than from the result, so that a replay, which
// keeps only the stored body, gets the same header.
func setJobLocation(c *gin.Context, body []byte) {
	var created struct {
		Data struct {
			ID int64 `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &created) != nil || created.Data.ID <= 0 {
		return
	}
	// FullPath is this route's pattern, /api/v1/jobs below wherever the API
	// is mounted.
	c.Header("Location", c.FullPath()+"/"+strconv.FormatInt(created.Data.ID, 10))
}

// updateJob serves PATCH /jobs/{job}.
func (a *api) updateJob(c *gin.Context) {
	raw, err := readBody(c)
	if err != nil {
		fail(c, err)
		return
	}
	var (
		title, description       string
		status                   pipeline.JobStatus
		hasTitle, hasDesc, hasSt bool
		p                        pipeline.JobPatch
	)
	p.Malformed = decodeBody(raw,
		stringField("title", &title, &hasTitle),
		stringField("description", &description, &hasDesc),
		stringField("status", &status, &hasSt),
	)
	if hasTitle {
		p.Title = &title
	}
	if hasDesc {
		p.Description = &description
	}
	if hasSt {
		p.Status = &status
	}
	id := pathID(c, "job")
	write(c, raw, renderUpdatedJob, nil, func(ctx context.Context) (pipeline.Job, error) {
		return a.svc.UpdateJob(ctx, id, p)
	})
}

func renderUpdatedJob(j pipeline.Job) (int, any) {
	return http.StatusOK, data[jobFull]{Data: newJobFull(j)}
}
