package pipelinehttp

import (
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
