package pipelinestore

import (
	"context"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// SearchPlan returns, on PostgreSQL, the plan that a searched candidate
// list chooses for its page (walk or sort), followed by " wide" when the
// matches come from the trigram indexes alone, with the arguments
// ListCandidates gives it.
func SearchPlan(ctx context.Context, db *DB, viewer, jobID int64, f pipeline.CandidateFilter) (string, error) {
	filter := args(jobID, viewer)
	if f.StageID != 0 {
		filter = append(filter, f.StageID)
	}
	if f.Status != "" {
		filter = append(filter, f.Status)
	}
	filter = append(filter, likePattern(f.Search), pipeline.Offset(f.Page))
	if !indexedTerm(f.Search) {
		return "walk", nil // the only page of its statement
	}
	q := qCandidateSearchesPG[btoi(f.StageID != 0)][btoi(f.Status != "")][1]
	var how string
	err := db.read().get(ctx, q.choice+"\nSELECT w.how || CASE WHEN n.wide THEN ' wide' ELSE '' END FROM w, n WHERE CAST($2 AS bigint) IS NOT NULL", filter, &how)
	return how, err
}
