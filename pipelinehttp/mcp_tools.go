package pipelinehttp

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// mcpTool is an operation of the Service as an MCP tool.
type mcpTool struct {
	tool    *mcp.Tool
	handler mcp.ToolHandler
}

// toolInfo is what tools/list says of a tool besides its name and schemas.
type toolInfo struct {
	title, description string
	// idempotent writes change nothing when repeated with the same
	// arguments.
	idempotent bool
}

// newTool makes op a tool whose arguments are In and whose result is the
// API's body Out. run reads the arguments (toolCall.read or write), calls
// the op's Service method and renders its result as the API does; it
// returns whether the result replays an idempotency key's.
func newTool[In, Out any](a *api, op pipeline.Op, path func(pipeline.Ref) string, info toolInfo,
	run func(ctx context.Context, x *toolCall, in *In) (Out, bool, error)) mcpTool {
	hints := &mcp.ToolAnnotations{Title: info.title, ReadOnlyHint: true, OpenWorldHint: new(false)}
	if op.Writes() {
		// No operation deletes anything.
		hints = &mcp.ToolAnnotations{Title: info.title, DestructiveHint: new(false),
			IdempotentHint: info.idempotent, OpenWorldHint: new(false)}
	}
	description := info.description
	if scope := op.Scope(); scope != "" {
		description += " Needs the scope " + string(scope) + "."
	}
	tool := &mcp.Tool{
		Name:         string(op),
		Title:        info.title,
		Description:  description,
		Annotations:  hints,
		InputSchema:  schemaFor[In](true),
		OutputSchema: schemaFor[Out](false),
	}
	handler := func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
		defer a.recoverTool(ctx, op, &res)
		ctx, cancel := exchangeFrom(ctx).bound(ctx)
		defer cancel()
		x := newToolCall(a, op, req.Params.Arguments)
		x.path = path(x.ref)
		var in In
		out, replayed, err := run(ctx, x, &in)
		if err != nil {
			return a.toolFailure(ctx, op, err), nil
		}
		res = toolResult(out, false)
		if replayed {
			// The API's Idempotent-Replay header.
			res.Meta = mcp.Meta{"idempotent_replay": true}
		}
		return res, nil
	}
	return mcpTool{tool: tool, handler: handler}
}

// API paths of the tools' requests, from /api/v1.
func jobsAPIPath(pipeline.Ref) string     { return "/jobs" }
func meAPIPath(pipeline.Ref) string       { return "/me" }
func jobAPIPath(r pipeline.Ref) string    { return "/jobs/" + strconv.FormatInt(r.Job, 10) }
func stagesAPIPath(r pipeline.Ref) string { return jobAPIPath(r) + "/stages" }
func candidatesAPIPath(r pipeline.Ref) string {
	return jobAPIPath(r) + "/candidates"
}
func candidateAPIPath(r pipeline.Ref) string {
	return candidatesAPIPath(r) + "/" + strconv.FormatInt(r.Candidate, 10)
}

// mcpLinks is where the links of a list tool's result point: the API's
// URL of the same request, from Config.BaseURL or else the scheme and host
// the MCP request came to, so that the result equals the API's body.
func (x *toolCall) mcpLinks(ctx context.Context) string {
	return exchangeFrom(ctx).origin + x.a.prefix + "/api/v1" + x.path
}

// mcpTools are the tools, one per operation, in the order of the API's
// endpoint table.
func (a *api) mcpTools() []mcpTool {
	return []mcpTool{
		newTool(a, pipeline.OpGetMe, meAPIPath, toolInfo{title: "Who am I",
			description: "The token's user, current team and scopes: the cheapest check that the token is alive (GET /api/v1/me)."}, a.mcpGetMe),
		newTool(a, pipeline.OpListJobs, jobsAPIPath, toolInfo{title: "List jobs",
			description: "A page of 15 of the jobs the token can reach, newest first, with links and meta (GET /api/v1/jobs). status defaults to open; search matches the title."}, a.mcpListJobs),
		newTool(a, pipeline.OpGetJob, jobAPIPath, toolInfo{title: "Get a job",
			description: "One job in full (GET /api/v1/jobs/{job})."}, a.mcpGetJob),
		newTool(a, pipeline.OpCreateJob, jobsAPIPath, toolInfo{title: "Create a job",
			description: "Creates an open job on the token's team with the default pipeline (Applied, Screening, Interview, Offer, Hired) and returns it (POST /api/v1/jobs). forbidden when the plan's job limit is reached."}, a.mcpCreateJob),
		newTool(a, pipeline.OpUpdateJob, jobAPIPath, toolInfo{title: "Update a job",
			description: "Changes any of title, description, status and returns the job (PATCH /api/v1/jobs/{job}); send at least one. Reopening a closed job needs a free slot of the plan's job limit."}, a.mcpUpdateJob),
		newTool(a, pipeline.OpListStages, stagesAPIPath, toolInfo{title: "List a job's stages",
			description: "The stages of a job in pipeline order, with the ids move_candidate and list_candidates take (GET /api/v1/jobs/{job}/stages)."}, a.mcpListStages),
		newTool(a, pipeline.OpListCandidates, candidatesAPIPath, toolInfo{title: "List candidates",
			description: "A page of 15 of a job's candidates, newest applicant first, with links and meta (GET /api/v1/jobs/{job}/candidates). search matches name or email; stage takes a stage id."}, a.mcpListCandidates),
		newTool(a, pipeline.OpGetCandidate, candidateAPIPath, toolInfo{title: "Get a candidate",
			description: "One candidate of a job with resume_url and notes_count; empty fields are left out (GET /api/v1/jobs/{job}/candidates/{candidate})."}, a.mcpGetCandidate),
		newTool(a, pipeline.OpMoveCandidate, func(r pipeline.Ref) string { return candidateAPIPath(r) + "/stage" },
			toolInfo{title: "Move a candidate", idempotent: true,
				description: "Moves a candidate to a stage of the same job and returns the candidate, unchanged when already there (POST .../candidates/{candidate}/stage). A stage of another job is validation_failed on stage."}, a.mcpMoveCandidate),
		newTool(a, pipeline.OpAddNote, func(r pipeline.Ref) string { return candidateAPIPath(r) + "/notes" },
			toolInfo{title: "Add a note",
				description: "Adds a note by the token's user to a candidate and returns it (POST .../candidates/{candidate}/notes). Each call adds one: send an idempotency_key to retry safely."}, a.mcpAddNote),
		newTool(a, pipeline.OpRateCandidate, func(r pipeline.Ref) string { return candidateAPIPath(r) + "/rating" },
			toolInfo{title: "Rate a candidate", idempotent: true,
				description: "Sets the token's user's rating of a candidate, replacing an earlier one, and returns it (POST .../candidates/{candidate}/rating)."}, a.mcpRateCandidate),
		newTool(a, pipeline.OpListActivity, func(pipeline.Ref) string { return "/activity" }, toolInfo{title: "Read the activity feed",
			description: "The activity entries of what the token's user reaches, oldest first, in commit order (GET /api/v1/activity). " +
				"Pass meta.next_cursor back as after to read on: no entry is missed or seen twice, and from the last page it returns what was written since."}, a.mcpListActivity),
	}
}

type listActivityArgs struct {
	After  *feedCursor      `json:"after,omitempty" jsonschema:"The cursor of the last entry seen (meta.next_cursor); absent: from the beginning."`
	Since  *string          `json:"since,omitempty" jsonschema:"RFC 3339 date and time: start at the first entry at or after it. Ignored with after."`
	Limit  *feedLimit       `json:"limit,omitempty" jsonschema:"Entries per page, 1 to 100; 50 when absent."`
	Action []activityAction `json:"action,omitempty" jsonschema:"Only entries of these actions."`
}

// filter is the feed filter of the arguments, with what cannot be read
// in bad, under the API's messages.
func (in *listActivityArgs) filter(bad pipeline.FieldErrors) pipeline.FeedFilter {
	f := pipeline.FeedFilter{After: string(deref(in.After)), Limit: int(deref(in.Limit))}
	for _, act := range in.Action {
		f.Actions = append(f.Actions, string(act))
	}
	if in.After != nil && *in.After == "" {
		bad.Add("after", msgQueryAfter)
	}
	if in.Since != nil && f.After == "" { // ignored after a cursor, as in the API
		if t, err := time.Parse(time.RFC3339, *in.Since); err != nil {
			bad.Add("since", msgQuerySince)
		} else {
			f.Since = &t
		}
	}
	if in.Limit != nil && (*in.Limit < 1 || *in.Limit > pipeline.MaxFeedLimit) {
		bad.Add("limit", msgQueryLimit)
	}
	return f
}

func (a *api) mcpListActivity(ctx context.Context, x *toolCall, in *listActivityArgs) (feed, bool, error) {
	err := x.read(ctx, in, func() error { return in.filter(pipeline.FieldErrors{}).Validate() })
	bad := pipeline.FieldErrors{}
	f := in.filter(bad)
	if err == nil && len(bad) > 0 {
		err = a.svc.Reject(ctx, x.op, x.ref, nil, merged(bad, f.Validate()))
	}
	if err != nil {
		return feed{}, false, err
	}
	page, err := a.svc.ListActivity(ctx, f)
	return newFeed(x.mcpLinks(ctx), f, page), false, err
}

func (a *api) mcpGetMe(ctx context.Context, x *toolCall, in *struct{}) (data[identity], bool, error) {
	if err := x.read(ctx, in, func() error { return nil }); err != nil {
		return data[identity]{}, false, err
	}
	id, err := a.svc.Me(ctx)
	return data[identity]{Data: newIdentity(id)}, false, err
}

type listJobsArgs struct {
	Status *pipeline.JobStatus `json:"status,omitempty" jsonschema:"Jobs of this status; open when absent."`
	Search *string             `json:"search,omitempty" jsonschema:"Case-insensitive substring of the title; empty does not filter."`
	Page   *pageNumber         `json:"page,omitempty" jsonschema:"Page number, from 1; 1 when absent."`
}

func (a *api) mcpListJobs(ctx context.Context, x *toolCall, in *listJobsArgs) (list[jobItem], bool, error) {
	filter := func() pipeline.JobFilter {
		return pipeline.JobFilter{Status: deref(in.Status), Search: deref(in.Search), Page: int(deref(in.Page))}
	}
	err := x.read(ctx, in, func() error { return filter().Validate() })
	if err == nil {
		err = x.checkQuery(ctx, in.Status != nil && *in.Status == "", in.Page != nil && *in.Page < 1, false, filter().Validate)
	}
	f := filter()
	if err != nil {
		return list[jobItem]{}, false, err
	}
	l, err := a.svc.ListJobs(ctx, f)
	filters := url.Values{}
	setFilter(filters, "status", string(f.Status))
	setFilter(filters, "search", f.Search)
	return listOf(x.mcpLinks(ctx), filters, l, newJobItem), false, err
}

func (a *api) mcpGetJob(ctx context.Context, x *toolCall, in *jobArgs) (data[jobFull], bool, error) {
	if err := x.read(ctx, in, func() error { return nil }); err != nil {
		return data[jobFull]{}, false, err
	}
	j, err := a.svc.Job(ctx, x.ref.Job)
	return data[jobFull]{Data: newJobFull(j)}, false, err
}

type createJobArgs struct {
	Title       titleText        `json:"title" jsonschema:"Up to 255 characters, not blank."`
	Description *descriptionText `json:"description,omitempty" jsonschema:"HTML, up to 65,535 characters."`
	keyArgs
}

func (a *api) mcpCreateJob(ctx context.Context, x *toolCall, in *createJobArgs) (data[jobFull], bool, error) {
	job := func() pipeline.NewJob {
		return pipeline.NewJob{Title: string(in.Title), Description: string(deref(in.Description))}
	}
	idem, err := x.write(ctx, http.MethodPost, in, func() error { return job().Validate() })
	if err != nil {
		return data[jobFull]{}, false, err
	}
	nj := job()
	nj.Idempotency = idem
	res, err := a.svc.CreateJob(ctx, nj)
	return data[jobFull]{Data: newJobFull(res.Value)}, res.Replayed, err
}

type updateJobArgs struct {
	jobArgs
	Title       *titleText          `json:"title,omitempty" jsonschema:"Up to 255 characters, not blank."`
	Description *descriptionText    `json:"description,omitempty" jsonschema:"HTML, up to 65,535 characters."`
	Status      *pipeline.JobStatus `json:"status,omitempty" jsonschema:"Any status may follow any; reopening a closed job counts against the plan's job limit."`
	keyArgs
}

func (a *api) mcpUpdateJob(ctx context.Context, x *toolCall, in *updateJobArgs) (data[jobFull], bool, error) {
	patch := func() pipeline.JobPatch {
		return pipeline.JobPatch{Title: (*string)(in.Title), Description: (*string)(in.Description), Status: in.Status}
	}
	idem, err := x.write(ctx, http.MethodPatch, in, func() error { return patch().Validate() })
	if err != nil {
		return data[jobFull]{}, false, err
	}
	p := patch()
	p.Idempotency = idem
	res, err := a.svc.UpdateJob(ctx, x.ref.Job, p)
	return data[jobFull]{Data: newJobFull(res.Value)}, res.Replayed, err
}

func (a *api) mcpListStages(ctx context.Context, x *toolCall, in *jobArgs) (data[[]stageItem], bool, error) {
	if err := x.read(ctx, in, func() error { return nil }); err != nil {
		return data[[]stageItem]{}, false, err
	}
	st, err := a.svc.Stages(ctx, x.ref.Job)
	return data[[]stageItem]{Data: newStageItems(st)}, false, err
}

type listCandidatesArgs struct {
	jobArgs
	Search *string     `json:"search,omitempty" jsonschema:"Case-insensitive substring of name or email; empty does not filter."`
	Stage  *recordID   `json:"stage,omitempty" jsonschema:"Only candidates in this stage: an id from list_stages."`
	Page   *pageNumber `json:"page,omitempty" jsonschema:"Page number, from 1; 1 when absent."`
}

func (a *api) mcpListCandidates(ctx context.Context, x *toolCall, in *listCandidatesArgs) (list[candidateItem], bool, error) {
	filter := func() pipeline.CandidateFilter {
		return pipeline.CandidateFilter{Search: deref(in.Search), StageID: int64(deref(in.Stage)), Page: int(deref(in.Page))}
	}
	err := x.read(ctx, in, func() error { return filter().Validate() })
	if err == nil {
		err = x.checkQuery(ctx, false, in.Page != nil && *in.Page < 1, in.Stage != nil && *in.Stage < 1, filter().Validate)
	}
	f := filter()
	if err != nil {
		return list[candidateItem]{}, false, err
	}
	l, err := a.svc.ListCandidates(ctx, x.ref.Job, f)
	filters := url.Values{}
	setFilter(filters, "search", f.Search)
	if f.StageID > 0 {
		filters.Set("stage", strconv.FormatInt(f.StageID, 10))
	}
	return listOf(x.mcpLinks(ctx), filters, l, newCandidateItem), false, err
}

func (a *api) mcpGetCandidate(ctx context.Context, x *toolCall, in *candidateArgs) (data[candidateFull], bool, error) {
	if err := x.read(ctx, in, func() error { return nil }); err != nil {
		return data[candidateFull]{}, false, err
	}
	k, err := a.svc.Candidate(ctx, x.ref.Job, x.ref.Candidate)
	return data[candidateFull]{Data: newCandidateFull(k)}, false, err
}

type moveCandidateArgs struct {
	candidateArgs
	Stage recordID `json:"stage" jsonschema:"Id of a stage of the same job, from list_stages."`
	keyArgs
}

func (a *api) mcpMoveCandidate(ctx context.Context, x *toolCall, in *moveCandidateArgs) (data[candidateFull], bool, error) {
	idem, err := x.write(ctx, http.MethodPost, in, func() error { return pipeline.StageMove{StageID: int64(in.Stage)}.Validate() })
	if err != nil {
		return data[candidateFull]{}, false, err
	}
	res, err := a.svc.MoveCandidate(ctx, x.ref.Job, x.ref.Candidate, pipeline.StageMove{StageID: int64(in.Stage), Idempotency: idem})
	return data[candidateFull]{Data: newCandidateFull(res.Value)}, res.Replayed, err
}

type addNoteArgs struct {
	candidateArgs
	Content noteText `json:"content" jsonschema:"The note: up to 5,000 characters, not blank."`
	keyArgs
}

func (a *api) mcpAddNote(ctx context.Context, x *toolCall, in *addNoteArgs) (data[noteItem], bool, error) {
	idem, err := x.write(ctx, http.MethodPost, in, func() error { return pipeline.NewNote{Content: string(in.Content)}.Validate() })
	if err != nil {
		return data[noteItem]{}, false, err
	}
	res, err := a.svc.AddNote(ctx, x.ref.Job, x.ref.Candidate, pipeline.NewNote{Content: string(in.Content), Idempotency: idem})
	return data[noteItem]{Data: newNoteItem(res.Value)}, res.Replayed, err
}

type rateCandidateArgs struct {
	candidateArgs
	Rating pipeline.RatingValue `json:"rating" jsonschema:"The verdict."`
	keyArgs
}

func (a *api) mcpRateCandidate(ctx context.Context, x *toolCall, in *rateCandidateArgs) (data[ratingItem], bool, error) {
	idem, err := x.write(ctx, http.MethodPost, in, func() error { return pipeline.NewRating{Value: in.Rating}.Validate() })
	if err != nil {
		return data[ratingItem]{}, false, err
	}
	res, err := a.svc.RateCandidate(ctx, x.ref.Job, x.ref.Candidate, pipeline.NewRating{Value: in.Rating, Idempotency: idem})
	return data[ratingItem]{Data: newRatingItem(res.Value)}, res.Replayed, err
}

// checkQuery refuses what a read's arguments may hold but a query cannot:
// an empty status, a page or stage below 1, each 422 naming it as the API
// does, after the Service's own checks (Reject).
func (x *toolCall) checkQuery(ctx context.Context, emptyStatus, lowPage, lowStage bool, validate func() error) error {
	bad := pipeline.FieldErrors{}
	if emptyStatus {
		bad.Add("status", msgQueryStatus)
	}
	if lowPage {
		bad.Add("page", msgQueryPage)
	}
	if lowStage {
		bad.Add("stage", msgQueryStage)
	}
	if len(bad) == 0 {
		return nil
	}
	return x.a.svc.Reject(ctx, x.op, x.ref, nil, merged(bad, validate()))
}

func setFilter(q url.Values, name, value string) {
	if value != "" {
		q.Set(name, value)
	}
}

// deref is *p, or the zero value for nil.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
