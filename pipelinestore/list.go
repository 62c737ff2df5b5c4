package pipelinestore

import (
	"strconv"
	"strings"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// visible is the visibility rule as a condition on the job aliased j, for
// the viewer bound to parameter $n: the viewer is a member of the job's
// team and is its owner or admin, or owns the job, or is assigned to it.
// Every query made for a viewer uses it, so the rule lives in one place:
// the statements of sql/ include it as {{visible $n}}, replaced by this
// text when they load (expand), and the candidate lists built in Go call
// it.
func visible(n int) string {
	v := "$" + strconv.Itoa(n)
	return `EXISTS (SELECT 1 FROM memberships AS vm
	WHERE vm.team_id = j.team_id AND vm.user_id = ` + v + `
	AND (vm.role IN ('owner', 'admin') OR j.owner_id = ` + v + `
		OR EXISTS (SELECT 1 FROM job_assignees AS va WHERE va.job_id = j.id AND va.user_id = ` + v + `)))`
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// likePattern is the LIKE pattern of a case-insensitive substring search:
// the search text is folded in Go like the stored copies, so matching is
// Unicode-aware and identical on both databases, and its %, _ and \ are
// escaped so that they match themselves.
func likePattern(search string) string {
	return "%" + likeEscaper.Replace(pipeline.Fold(search)) + "%"
}

// matches is the search condition on the folded columns for the pattern
// bound to parameter $n, joined by OR.
func matches(n int, foldedColumns ...string) string {
	conds := make([]string, len(foldedColumns))
	for i, col := range foldedColumns {
		conds[i] = col + ` LIKE $` + strconv.Itoa(n) + ` ESCAPE '\'`
	}
	return "(" + strings.Join(conds, " OR ") + ")"
}

// windowed is a row of a list query, which carries the window count of
// all the rows the query matches.
type windowed interface{ windowTotal() int }

// pageOf is a list query's page of rows as a page of records, its total
// the count the rows carry. A page past the last carries none: the caller
// counts then.
func pageOf[R windowed, T any](page int, rows []R, record func(R) T) pipeline.List[T] {
	list := pipeline.List[T]{Page: page, PerPage: pipeline.PageSize, Items: make([]T, len(rows))}
	for i, r := range rows {
		list.Items[i] = record(r)
	}
	if len(rows) > 0 {
		list.Total = rows[0].windowTotal()
	}
	return list
}

// records is the rows a query read as records.
func records[R, T any](rows []R, record func(R) T) []T {
	out := make([]T, len(rows))
	for i, r := range rows {
		out[i] = record(r)
	}
	return out
}
