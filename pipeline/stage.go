package pipeline

import "context"

// Stage is a step of a job's pipeline. A job's stages are ordered by
// Position; a new applicant starts in the first.
type Stage struct {
	ID       int64
	JobID    int64
	Name     string
	Position int
}

// ListStages returns the stages of a job in pipeline order. Scope: jobs:read.
// Errors: unauthenticated, insufficient_scope, not_found.
func (s *Service) ListStages(ctx context.Context, jobID int64) ([]Stage, error) {
	c, err := authorize(ctx, OpListStages)
	if err != nil {
		return nil, err
	}
	return s.store.Jobs().Stages(ctx, JobParams{Viewer: c.user.ID, ID: jobID})
}

// The operation on a job's stages.
const (
	OpListStages Op = "list_stages"
)

// stageOps are the rows of opTable for these operations, in the order of
// the API's document.
var stageOps = []opRow{
	{OpListStages, opTraits{ScopeJobsRead, mGet, jobPath + "/stages", 0}, nil, &Words{Title: "List a job's stages", Description: "The stages of a job in pipeline order, with the ids move_candidate and list_candidates take (GET /api/v1/jobs/{job}/stages)."}, Doc{
		Tag: "Jobs", Summary: "List the stages of a job",
		Description: "Scope: `jobs:read`. The job's pipeline stages in order, not paginated. Their ids are what " +
			"`POST .../stage` takes.",
		Success: "The stages, in pipeline order.",
	}},
}
