package main

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// visibleSQL is the API's visibility rule on the job aliased j for the
// viewer $1: a member of the job's team who is its owner or admin, or owns
// the job, or is assigned to it.
const visibleSQL = `EXISTS (SELECT 1 FROM memberships AS vm
	WHERE vm.team_id = j.team_id AND vm.user_id = $1
	AND (vm.role IN ('owner', 'admin') OR j.owner_id = $1
		OR EXISTS (SELECT 1 FROM job_assignees AS va WHERE va.job_id = j.id AND va.user_id = $1)))`

// me serves GET /api/v1/me from what the guard read.
func me(c *gin.Context) {
	cl, _ := scoped(c, "")
	respond(c, http.StatusOK, envelope[identity]{Data: identity{
		ID: cl.userID, Name: cl.userName, Email: cl.userEmail,
		Team: named{ID: cl.teamID, Name: cl.teamName}, Scopes: cl.scopes, ApprovalRequired: cl.approval,
	}})
}

// job serves GET /api/v1/jobs/:job: one query.
func (b *baseline) job(c *gin.Context) {
	cl, ok := scoped(c, pipeline.ScopeJobsRead)
	if !ok {
		return
	}
	var j jobBody
	var created, updated, deadline time.Time
	err := b.pool.QueryRow(c.Request.Context(), `SELECT j.id, j.title, j.status, j.description, j.created_at,
	j.work_mode, j.employment_type, j.application_deadline, j.updated_at
FROM jobs AS j WHERE j.id = $2 AND `+visibleSQL, cl.userID, pathID(c, "job")).Scan(
		&j.ID, &j.Title, &j.Status, &j.Description, &created, &j.WorkMode, &j.EmploymentType, &deadline, &updated)
	if errors.Is(err, pgx.ErrNoRows) {
		notFound(c, "Job")
		return
	}
	if err != nil {
		serverError(c, b, err)
		return
	}
	j.CreatedAt, j.UpdatedAt, j.ApplicationDeadline = stamp(created), stamp(updated), day(deadline)
	respond(c, http.StatusOK, envelope[jobBody]{Data: j})
}

// listSQL is the pair of statements of a candidate page: the rows, and the
// exact total with the checks that only matter when there are no rows (the
// job is reachable: a row at all; the stage filter names a stage of it).
type listSQL struct{ page, total string }

// candidateLists holds the statements for each combination of filters,
// [stage][search], so that each is one cached prepared statement.
var candidateLists = func() (out [2][2]listSQL) {
	for st := range 2 {
		for se := range 2 {
			cond, n, stageOK := "", 3, "true"
			if st == 1 {
				cond, n, stageOK = " AND c.stage_id = $3", 4, "EXISTS (SELECT 1 FROM stages AS s WHERE s.id = $3 AND s.job_id = j.id)"
			}
			if se == 1 {
				cond += fmt.Sprintf(` AND (c.name_fold LIKE $%d ESCAPE '\' OR c.email_fold LIKE $%[1]d ESCAPE '\')`, n)
				n++
			}
			out[st][se] = listSQL{
				page: `SELECT c.id, c.name, c.email, c.applied, s.name, c.status
FROM jobs AS j JOIN candidates AS c ON c.job_id = j.id JOIN stages AS s ON s.id = c.stage_id
WHERE j.id = $2 AND ` + visibleSQL + cond + `
ORDER BY c.applied DESC, c.id DESC LIMIT 15 OFFSET $` + strconv.Itoa(n),
				total: `SELECT (SELECT count(*) FROM candidates AS c WHERE c.job_id = j.id` + cond + `), ` + stageOK + `
FROM jobs AS j WHERE j.id = $2 AND ` + visibleSQL,
			}
		}
	}
	return out
}()

// Messages of the API's 422s on list parameters.
const (
	msgStage = "The stage must be the id of a stage of this job."
	msgPage  = "The page must be an integer greater than or equal to 1."
)

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// candidates serves GET /api/v1/jobs/:job/candidates: both statements in
// one round trip.
func (b *baseline) candidates(c *gin.Context) {
	cl, ok := scoped(c, pipeline.ScopeCandidatesRead)
	if !ok {
		return
	}
	jobID := pathID(c, "job")
	page, stage, bad := listParams(c)
	if len(bad) > 0 {
		b.jobThenInvalid(c, cl, jobID, bad)
		return
	}
	search := c.Query("search")
	args := []any{cl.userID, jobID}
	if stage != 0 {
		args = append(args, stage)
	}
	if search != "" {
		args = append(args, "%"+likeEscaper.Replace(pipeline.Fold(search))+"%")
	}
	q := candidateLists[btoi(stage != 0)][btoi(search != "")]
	var (
		items          = []candidateItem{}
		total          int
		found, stageOK bool
		batch          pgx.Batch
		offset         = int64(pipeline.Offset(page))
		pageArgs       = append(args[:len(args):len(args)], offset)
	)
	batch.Queue(q.page, pageArgs...).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var it candidateItem
			var applied time.Time
			if err := rows.Scan(&it.ID, &it.Name, &it.Email, &applied, &it.Stage, &it.Status); err != nil {
				return err
			}
			it.Applied = day(applied)
			items = append(items, it)
		}
		return rows.Err()
	})
	batch.Queue(q.total, args...).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&total, &stageOK)
		found = err == nil
		return ignoreNoRows(err)
	})
	if err := b.pool.SendBatch(c.Request.Context(), &batch).Close(); err != nil {
		serverError(c, b, err)
		return
	}
	switch {
	case !found:
		notFound(c, "Job")
	case !stageOK:
		invalid(c, map[string][]string{"stage": {msgStage}})
	default:
		last := max(1, (total+pipeline.PageSize-1)/pipeline.PageSize)
		respond(c, http.StatusOK, listBody[candidateItem]{
			Data: items, Links: newLinks(c, page, last, "search", "stage"),
			Meta: listMeta{CurrentPage: page, LastPage: last, PerPage: pipeline.PageSize, Total: total},
		})
	}
}

// listParams reads page and stage; a value sent that cannot be read is a
// field message, reported once the job is found.
func listParams(c *gin.Context) (page int, stage int64, bad map[string][]string) {
	page, bad = 1, map[string][]string{}
	if raw, ok := c.GetQuery("page"); ok {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 {
			bad["page"] = []string{msgPage}
		}
		page = n
	}
	if raw, ok := c.GetQuery("stage"); ok {
		if stage = parseID(raw); stage == 0 {
			bad["stage"] = []string{msgStage}
		}
	}
	return page, stage, bad
}

// jobThenInvalid answers 404 when the job is out of reach, else 422 with
// the bad parameters: not found comes before invalid.
func (b *baseline) jobThenInvalid(c *gin.Context, cl *caller, jobID int64, bad map[string][]string) {
	var one int
	err := b.pool.QueryRow(c.Request.Context(), `SELECT 1 FROM jobs AS j WHERE j.id = $2 AND `+visibleSQL,
		cl.userID, jobID).Scan(&one)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		notFound(c, "Job")
	case err != nil:
		serverError(c, b, err)
	default:
		invalid(c, bad)
	}
}

func ignoreNoRows(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	return err
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
