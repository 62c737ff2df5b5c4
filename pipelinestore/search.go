package pipelinestore

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// candidateSearchQueryPG is the SQL of a searched candidate list on
// PostgreSQL, with the parameters of candidateListQuery. A search costs
// its count and its page, and which plan serves each depends on the term
// and the job, so the statement chooses, each branch running only when
// chosen (a search stays one round trip):
//
//   - The matches (m), found once and counted. The trigram indexes find
//     the term's matches in every job; a job that holds a large part of
//     the table (an eighth or more of its rows, by the table's
//     statistics) takes them from the trigram indexes alone, which reads
//     about as many rows as the job has matches, where joining them to
//     the job's index entries would read all of those. A smaller job
//     leaves the plan to PostgreSQL, which joins the two, or walks the
//     job.
//   - The page. A term that matches many of the job's candidates walks
//     the list's order index, the match a filter, until the page is full:
//     about (offset + PageSize) × size / matches rows. A term that
//     matches few sorts the matches already found. The walk is chosen
//     when it reads fewer rows than there are matches to sort: matches² ≥
//     (offset + PageSize) × size, the size being what the stage counts
//     say of the candidates the walk goes through.
//
// Where a branch must take one path whatever the parameters, the
// conditions that could lead elsewhere are not indexable (IS TRUE): the
// walk's match, and the job's conditions of the matches taken from the
// trigram indexes alone. A term the trigram indexes cannot serve (indexed
// false, see indexedTerm) is counted and paged by walking the job.
func candidateSearchQueryPG(stage, status, indexed bool) searchQueryPG {
	q := candidateListQuery(stage, status, true)
	search := 3 + btoi(stage) + btoi(status)
	match := matches(search, "c.name_fold", "c.email_fold")
	filters := strings.TrimSuffix(q.cond, ` AND `+match)
	offset := "$" + strconv.Itoa(search+1)
	size := `(SELECT sum(st.candidate_count) FROM stages AS st WHERE st.job_id = $1)`
	walked := size
	if stage {
		walked = `(SELECT sum(st.candidate_count) FROM stages AS st WHERE st.id = ` + q.stage + ` AND st.job_id = $1)`
	}
	trigrams := match + ` AND (` + filters + `) IS TRUE`
	walk := filters + ` AND ` + match + ` IS TRUE`
	limit := ` LIMIT ` + strconv.Itoa(pipeline.PageSize) + ` OFFSET ` + offset
	found := `SELECT c.id, c.applied FROM candidates AS c WHERE ` + trigrams + ` AND (SELECT n.wide FROM n)
	UNION ALL SELECT c.id, c.applied FROM candidates AS c WHERE ` + q.cond + ` AND NOT (SELECT n.wide FROM n)`
	how := `CASE WHEN t.total * t.total >= (` + offset + ` + ` + strconv.Itoa(pipeline.PageSize) + `) * n.walked THEN 'walk' ELSE 'sort' END`
	if !indexed {
		found, how = `SELECT c.id, c.applied FROM candidates AS c WHERE `+walk, `'walk'`
	}
	counted := `WITH n AS MATERIALIZED (SELECT COALESCE(` + walked + `, 0) AS walked,
	COALESCE(` + size + `, 0) * 8 >= (SELECT r.reltuples FROM pg_class AS r WHERE r.oid = 'candidates'::regclass) AS wide),
m AS MATERIALIZED (` + found + `),
t AS MATERIALIZED (SELECT count(*) AS total FROM m)`
	choice := counted + `,
w AS MATERIALIZED (SELECT ` + how + ` AS how FROM t, n)`
	q.page = choice + `
SELECT ` + candidateColumns + `, t.total
FROM ((SELECT c.id FROM candidates AS c WHERE ` + walk + ` AND (SELECT w.how FROM w) = 'walk'
	ORDER BY c.applied DESC, c.id DESC` + limit + `)
	UNION ALL (SELECT m.id FROM m WHERE (SELECT w.how FROM w) = 'sort' ORDER BY m.applied DESC, m.id DESC` + limit + `)) AS p
JOIN candidates AS c ON c.id = p.id
JOIN jobs AS j ON j.id = c.job_id
CROSS JOIN t
WHERE ` + visible(2) + `
ORDER BY c.applied DESC, c.id DESC`
	q.empty = counted + `
SELECT (SELECT t.total FROM t) AS total, ` + q.stageOK() + ` AS stage_ok
FROM jobs AS j WHERE j.id = $1 AND ` + visible(2)
	return searchQueryPG{candidateQuery: q, choice: choice}
}

// searchQueryPG is a searched candidate list of PostgreSQL; choice is its
// WITH clause: n.wide tells where the matches come from, and w is the
// page's plan, walk or sort.
type searchQueryPG struct {
	candidateQuery
	choice string
}

// The searched candidate lists of PostgreSQL, by [stage][status][indexed].
var qCandidateSearchesPG = func() (qs [2][2][2]searchQueryPG) {
	for _, stage := range []int{0, 1} {
		for _, status := range []int{0, 1} {
			for _, indexed := range []int{0, 1} {
				qs[stage][status][indexed] = candidateSearchQueryPG(stage == 1, status == 1, indexed == 1)
			}
		}
	}
	return qs
}()

// indexedTerm reports whether the trigram indexes can serve a search for
// term: whether it holds three letters or digits in a row, from which
// pg_trgm takes a trigram to look up. For a term without one (a letter or
// two, punctuation) the indexes would yield every row; such a search walks
// the job's candidates instead.
func indexedTerm(term string) bool {
	run := 0
	for _, r := range pipeline.Fold(term) {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			run = 0
			continue
		}
		if run++; run == 3 {
			return true
		}
	}
	return false
}
