package pipelinestore

import (
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// visibleJobSQL is the visibility rule as a condition on the job aliased j:
// the viewer (?0) is a member of the job's team and is its owner or admin,
// or owns the job, or is assigned to it. Every query made for a viewer uses
// it, so the rule lives in one place.
const visibleJobSQL = `EXISTS (SELECT 1 FROM memberships AS vm
	WHERE vm.team_id = j.team_id AND vm.user_id = ?0
	AND (vm.role IN ('owner', 'admin') OR j.owner_id = ?0
		OR EXISTS (SELECT 1 FROM job_assignees AS va WHERE va.job_id = j.id AND va.user_id = ?0)))`

// visibleJob returns the visibility rule for viewer, to be placed as an
// argument of a query that aliases jobs as j.
func visibleJob(viewer int64) schema.QueryWithArgs {
	return bun.SafeQuery(visibleJobSQL, viewer)
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// searchCond is a case-insensitive substring match of search on the folded
// columns, joined by OR, preceded by AND; empty when search is empty. The
// search text is folded in Go like the stored copies, so matching is
// Unicode-aware and identical on both databases, and its %, _ and \ are
// escaped so that they match themselves.
func searchCond(search string, foldedColumns ...string) schema.QueryWithArgs {
	if search == "" {
		return bun.SafeQuery("")
	}
	pattern := "%" + likeEscaper.Replace(pipeline.Fold(search)) + "%"
	var b strings.Builder
	args := make([]any, 0, len(foldedColumns))
	b.WriteString("AND (")
	for i, col := range foldedColumns {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(col)
		b.WriteString(` LIKE ? ESCAPE '\'`)
		args = append(args, pattern)
	}
	b.WriteString(")")
	return bun.SafeQuery(b.String(), args...)
}
