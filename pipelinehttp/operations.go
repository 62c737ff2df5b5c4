package pipelinehttp

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Schemas of the parameters: the API's limits, which the document
// declares alike (a test compares them).
var (
	titleSchema       = textSchema(1, pipeline.MaxTitleLength, `\S`)
	descriptionSchema = textSchema(0, pipeline.MaxDescriptionLength, "")
	statusSchema      = enumSchema(string(pipeline.JobOpen), string(pipeline.JobDraft), string(pipeline.JobClosed))
	ratingSchema      = enumSchema(string(pipeline.GoodFit), string(pipeline.Maybe), string(pipeline.NotAFit))
	candidateStatus   = enumSchema(pipeline.CandidateStatuses...)
	nameSchema        = textSchema(1, pipeline.MaxCandidateNameLength, `\S`)
	emailSchema       = textSchema(3, pipeline.MaxEmailLength, `^[^@\s]+@[^@\s]+$`)
	resumeURLSchema   = textSchema(0, pipeline.MaxResumeURLLength, "")
	pageSchema        = described(idSchema(), "Page number, from 1; 1 when absent.")
)

// Paths of the operations on one record, below /api/v1.
const (
	jobRoute       = "/jobs/{job}"
	candidateRoute = jobRoute + "/candidates/{candidate}"
	webhookRoute   = "/webhooks/{webhook}"
)

// operations is the API: every operation, in the order of the document's
// endpoint table. Both faces are registered from it (routes, mcpTools).
var operations = append([]operation{
	newOperation(opSpec[struct{}, data[identity]]{
		op: pipeline.OpGetMe, method: http.MethodGet, path: "/me", status: http.StatusOK,
		tool: &toolInfo{title: "Who am I", description: "The token's user, current team and scopes: the cheapest check that the token is alive (GET /api/v1/me)."},
		call: func(ctx context.Context, svc *pipeline.Service, _ *input[struct{}]) (data[identity], bool, error) {
			id, err := svc.Me(ctx)
			return data[identity]{Data: newIdentity(id)}, false, err
		},
	}),
	listJobsOperation,
	newOperation(opSpec[pipeline.NewJob, data[jobFull]]{
		op: pipeline.OpCreateJob, method: http.MethodPost, path: "/jobs", status: http.StatusCreated,
		tool: &toolInfo{title: "Create a job", description: "Creates an open job on the token's team with the default pipeline (Applied, Screening, Interview, Offer, Hired) and returns it (POST /api/v1/jobs). forbidden when the plan's job limit is reached."},
		params: []param[pipeline.NewJob]{
			textField("title", true, described(titleSchema, "Up to 255 characters, not blank."), func(in *pipeline.NewJob) *string { return &in.Title }),
			textField("description", false, described(descriptionSchema, "HTML, up to 65,535 characters."), func(in *pipeline.NewJob) *string { return &in.Description }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.NewJob]) (data[jobFull], bool, error) {
			res, err := svc.CreateJob(ctx, in.domain())
			return data[jobFull]{Data: newJobFull(res.Value)}, res.Replayed, err
		},
		created: func(out data[jobFull]) int64 { return out.Data.ID },
	}),
	newOperation(opSpec[struct{}, data[jobFull]]{
		op: pipeline.OpGetJob, method: http.MethodGet, path: jobRoute, status: http.StatusOK,
		tool:   &toolInfo{title: "Get a job", description: "One job in full (GET /api/v1/jobs/{job})."},
		params: []param[struct{}]{jobID[struct{}]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{}]) (data[jobFull], bool, error) {
			j, err := svc.Job(ctx, in.ref.Job)
			return data[jobFull]{Data: newJobFull(j)}, false, err
		},
	}),
	updateJobOperation,
	newOperation(opSpec[struct{}, data[[]stageItem]]{
		op: pipeline.OpListStages, method: http.MethodGet, path: jobRoute + "/stages", status: http.StatusOK,
		tool:   &toolInfo{title: "List a job's stages", description: "The stages of a job in pipeline order, with the ids move_candidate and list_candidates take (GET /api/v1/jobs/{job}/stages)."},
		params: []param[struct{}]{jobID[struct{}]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{}]) (data[[]stageItem], bool, error) {
			st, err := svc.Stages(ctx, in.ref.Job)
			return data[[]stageItem]{Data: newStageItems(st)}, false, err
		},
	}),
	listCandidatesOperation,
	addCandidateOperation,
	newOperation(opSpec[struct{}, data[candidateFull]]{
		op: pipeline.OpGetCandidate, method: http.MethodGet, path: candidateRoute, status: http.StatusOK,
		tool:   &toolInfo{title: "Get a candidate", description: "One candidate of a job with resume_url and notes_count; empty fields are left out (GET /api/v1/jobs/{job}/candidates/{candidate})."},
		params: []param[struct{}]{jobID[struct{}](), candidateID[struct{}]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{}]) (data[candidateFull], bool, error) {
			k, err := svc.Candidate(ctx, in.ref.Job, in.ref.Candidate)
			return data[candidateFull]{Data: newCandidateFull(k)}, false, err
		},
	}),
	newOperation(opSpec[pipeline.CandidatePatch, data[candidateFull]]{
		op: pipeline.OpUpdateCandidate, method: http.MethodPatch, path: candidateRoute, status: http.StatusOK,
		tool: &toolInfo{title: "Update a candidate", idempotent: true,
			description: "Changes any of name, email, resume_url (null clears it) and status of a candidate and returns it (PATCH /api/v1/jobs/{job}/candidates/{candidate}); send at least one. Any status may follow any. An email another candidate of the job has, in any letter case, is validation_failed on email."},
		params: []param[pipeline.CandidatePatch]{
			jobID[pipeline.CandidatePatch](), candidateID[pipeline.CandidatePatch](),
			optionalField("name", described(nameSchema, "Up to 255 characters once trimmed, not blank; stored trimmed."), func(in *pipeline.CandidatePatch) **string { return &in.Name }),
			optionalField("email", described(emailSchema, "Up to 254 characters, one @ with something on each side, no white space; stored as sent."), func(in *pipeline.CandidatePatch) **string { return &in.Email }),
			nullableField("resume_url", described(resumeURLSchema, "An absolute http or https URL, up to 2,048 characters; null clears it."), func(in *pipeline.CandidatePatch) **string { return &in.ResumeURL }),
			optionalField("status", described(candidateStatus, "Any status may follow any."), func(in *pipeline.CandidatePatch) **string { return &in.Status }),
		},
		call: onCandidate((*pipeline.Service).UpdateCandidate, newCandidateFull),
	}),
	newOperation(opSpec[pipeline.StageMove, data[candidateFull]]{
		op: pipeline.OpMoveCandidate, method: http.MethodPost, path: candidateRoute + "/stage", status: http.StatusOK,
		tool: &toolInfo{title: "Move a candidate", idempotent: true,
			description: "Moves a candidate to a stage of the same job and returns the candidate, unchanged when already there (POST .../candidates/{candidate}/stage). A stage of another job is validation_failed on stage."},
		params: []param[pipeline.StageMove]{
			jobID[pipeline.StageMove](), candidateID[pipeline.StageMove](),
			integerField("stage", true, described(idSchema(), "Id of a stage of the same job, from list_stages."), func(in *pipeline.StageMove) *int64 { return &in.StageID }),
		},
		call: onCandidate((*pipeline.Service).MoveCandidate, newCandidateFull),
	}),
	newOperation(opSpec[pipeline.NewNote, data[noteItem]]{
		op: pipeline.OpAddNote, method: http.MethodPost, path: candidateRoute + "/notes", status: http.StatusCreated,
		tool: &toolInfo{title: "Add a note",
			description: "Adds a note by the token's user to a candidate and returns it (POST .../candidates/{candidate}/notes). Each call adds one: send an idempotency_key to retry safely."},
		params: []param[pipeline.NewNote]{
			jobID[pipeline.NewNote](), candidateID[pipeline.NewNote](),
			textField("content", true, described(textSchema(1, pipeline.MaxNoteLength, `\S`), "The note: up to 5,000 characters, not blank."), func(in *pipeline.NewNote) *string { return &in.Content }),
		},
		call: onCandidate((*pipeline.Service).AddNote, newNoteItem),
	}),
	newOperation(opSpec[pipeline.NoteFilter, list[noteItem]]{
		op: pipeline.OpListNotes, method: http.MethodGet, path: candidateRoute + "/notes", status: http.StatusOK,
		tool: &toolInfo{title: "List a candidate's notes", description: "A page of 15 of a candidate's notes, newest first, each as add_note returned it, with links and meta (GET .../candidates/{candidate}/notes)."},
		params: []param[pipeline.NoteFilter]{
			jobID[pipeline.NoteFilter](), candidateID[pipeline.NoteFilter](),
			pageParam(pageSchema, func(in *pipeline.NoteFilter) *int { return &in.Page }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.NoteFilter]) (list[noteItem], bool, error) {
			l, err := svc.ListNotes(ctx, in.ref.Job, in.ref.Candidate, in.domain())
			return listOf(in.self, url.Values{}, l, newNoteItem), false, err
		},
	}),
	newOperation(opSpec[pipeline.NewRating, data[ratingItem]]{
		op: pipeline.OpRateCandidate, method: http.MethodPost, path: candidateRoute + "/rating", status: http.StatusOK,
		tool: &toolInfo{title: "Rate a candidate", idempotent: true,
			description: "Sets the token's user's rating of a candidate, replacing an earlier one, and returns it (POST .../candidates/{candidate}/rating)."},
		params: []param[pipeline.NewRating]{
			jobID[pipeline.NewRating](), candidateID[pipeline.NewRating](),
			textField("rating", true, described(ratingSchema, "The verdict."), func(in *pipeline.NewRating) *pipeline.RatingValue { return &in.Value }),
		},
		call: onCandidate((*pipeline.Service).RateCandidate, newRatingItem),
	}),
	listActivityOperation,
	createWebhookOperation,
	newOperation(opSpec[struct{ page int }, list[webhookItem]]{
		op: pipeline.OpListWebhooks, method: http.MethodGet, path: "/webhooks", status: http.StatusOK,
		params: []param[struct{ page int }]{pageParam(pageSchema, func(in *struct{ page int }) *int { return &in.page })},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{ page int }]) (list[webhookItem], bool, error) {
			l, err := svc.ListWebhooks(ctx, in.value.page)
			return listOf(in.self, nil, l, newWebhookItem), false, err
		},
	}),
	newOperation(opSpec[struct{}, data[webhookItem]]{
		op: pipeline.OpGetWebhook, method: http.MethodGet, path: webhookRoute, status: http.StatusOK,
		params: []param[struct{}]{webhookID[struct{}]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{}]) (data[webhookItem], bool, error) {
			w, err := svc.Webhook(ctx, in.ref.Webhook)
			return data[webhookItem]{Data: newWebhookItem(w)}, false, err
		},
	}),
	newOperation(opSpec[pipeline.WebhookDeletion, struct{}]{
		op: pipeline.OpDeleteWebhook, method: http.MethodDelete, path: webhookRoute, status: http.StatusNoContent,
		params: []param[pipeline.WebhookDeletion]{webhookID[pipeline.WebhookDeletion]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.WebhookDeletion]) (struct{}, bool, error) {
			res, err := svc.DeleteWebhook(ctx, in.ref.Webhook, in.domain())
			return struct{}{}, res.Replayed, err
		},
	}),
	newOperation(opSpec[struct{ page int }, list[deliveryItem]]{
		op: pipeline.OpListWebhookDeliveries, method: http.MethodGet, path: webhookRoute + "/deliveries", status: http.StatusOK,
		params: []param[struct{ page int }]{webhookID[struct{ page int }](), pageParam(pageSchema, func(in *struct{ page int }) *int { return &in.page })},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{ page int }]) (list[deliveryItem], bool, error) {
			l, err := svc.WebhookDeliveries(ctx, in.ref.Webhook, in.value.page)
			return listOf(in.self, nil, l, newDeliveryItem), false, err
		},
	}),
	scheduleInterviewOperation,
	listInterviewsOperation,
	getInterviewOperation,
	rescheduleInterviewOperation,
	cancelInterviewOperation,
	getInterviewInviteOperation,
	getAvailabilityOperation,
	exportPersonOperation,
	erasePersonOperation,
}, messageOperations...)

// onCandidate is the call of a write on a candidate: method, given the
// path's ids and the input, its value rendered by render.
func onCandidate[In, T, U any](method func(*pipeline.Service, context.Context, int64, int64, In) (pipeline.Result[T], error),
	render func(T) U) func(context.Context, *pipeline.Service, *input[In]) (data[U], bool, error) {
	return func(ctx context.Context, svc *pipeline.Service, in *input[In]) (data[U], bool, error) {
		res, err := method(svc, ctx, in.ref.Job, in.ref.Candidate, in.domain())
		return data[U]{Data: render(res.Value)}, res.Replayed, err
	}
}

// The path ids.
func jobID[In any]() param[In] { return pathID[In]("job", "Id of a job the token can reach.") }
func candidateID[In any]() param[In] {
	return pathID[In]("candidate", "Id of a candidate of that job.")
}
func webhookID[In any]() param[In] {
	return pathID[In]("webhook", "Id of a webhook of the token's current team.")
}

var listJobsOperation = newOperation(opSpec[pipeline.JobFilter, list[jobItem]]{
	op: pipeline.OpListJobs, method: http.MethodGet, path: "/jobs", status: http.StatusOK,
	tool: &toolInfo{title: "List jobs", description: "A page of 15 of the jobs the token can reach, newest first, with links and meta (GET /api/v1/jobs). status defaults to open; search matches the title."},
	params: []param[pipeline.JobFilter]{
		statusParam(described(statusSchema, "Jobs of this status; open when absent."), func(in *pipeline.JobFilter) *pipeline.JobStatus { return &in.Status }),
		searchParam(described(&jsonschema.Schema{Type: "string"}, "Case-insensitive substring of the title; empty does not filter."), func(in *pipeline.JobFilter) *string { return &in.Search }),
		pageParam(pageSchema, func(in *pipeline.JobFilter) *int { return &in.Page }),
	},
	call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.JobFilter]) (list[jobItem], bool, error) {
		f := in.domain()
		l, err := svc.ListJobs(ctx, f)
		filters := url.Values{}
		setFilter(filters, "status", string(f.Status))
		setFilter(filters, "search", f.Search)
		return listOf(in.self, filters, l, newJobItem), false, err
	},
})

var updateJobOperation = newOperation(opSpec[pipeline.JobPatch, data[jobFull]]{
	op: pipeline.OpUpdateJob, method: http.MethodPatch, path: jobRoute, status: http.StatusOK,
	tool: &toolInfo{title: "Update a job", description: "Changes any of title, description, status and returns the job (PATCH /api/v1/jobs/{job}); send at least one. Reopening a closed job needs a free slot of the plan's job limit."},
	params: []param[pipeline.JobPatch]{
		jobID[pipeline.JobPatch](),
		optionalField("title", described(titleSchema, "Up to 255 characters, not blank."), func(in *pipeline.JobPatch) **string { return &in.Title }),
		optionalField("description", described(descriptionSchema, "HTML, up to 65,535 characters."), func(in *pipeline.JobPatch) **string { return &in.Description }),
		optionalField("status", described(statusSchema, "Any status may follow any; reopening a closed job counts against the plan's job limit."), func(in *pipeline.JobPatch) **pipeline.JobStatus { return &in.Status }),
	},
	call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.JobPatch]) (data[jobFull], bool, error) {
		res, err := svc.UpdateJob(ctx, in.ref.Job, in.domain())
		return data[jobFull]{Data: newJobFull(res.Value)}, res.Replayed, err
	},
})

var listCandidatesOperation = newOperation(opSpec[pipeline.CandidateFilter, list[candidateItem]]{
	op: pipeline.OpListCandidates, method: http.MethodGet, path: jobRoute + "/candidates", status: http.StatusOK,
	tool: &toolInfo{title: "List candidates", description: "A page of 15 of a job's candidates, newest applicant first, with links and meta (GET /api/v1/jobs/{job}/candidates). search matches name or email; stage takes a stage id."},
	params: []param[pipeline.CandidateFilter]{
		jobID[pipeline.CandidateFilter](),
		searchParam(described(&jsonschema.Schema{Type: "string"}, "Case-insensitive substring of name or email; empty does not filter."), func(in *pipeline.CandidateFilter) *string { return &in.Search }),
		stageParam(described(idSchema(), "Only candidates in this stage: an id from list_stages."), func(in *pipeline.CandidateFilter) *int64 { return &in.StageID }),
		statusParam(described(candidateStatus, "Only candidates of this status; any status when absent."), func(in *pipeline.CandidateFilter) *string { return &in.Status }),
		pageParam(pageSchema, func(in *pipeline.CandidateFilter) *int { return &in.Page }),
	},
	call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.CandidateFilter]) (list[candidateItem], bool, error) {
		f := in.domain()
		l, err := svc.ListCandidates(ctx, in.ref.Job, f)
		filters := url.Values{}
		setFilter(filters, "search", f.Search)
		if f.StageID > 0 {
			filters.Set("stage", strconv.FormatInt(f.StageID, 10))
		}
		setFilter(filters, "status", f.Status)
		return listOf(in.self, filters, l, newCandidateItem), false, err
	},
})

var addCandidateOperation = newOperation(opSpec[pipeline.NewCandidate, data[candidateFull]]{
	op: pipeline.OpAddCandidate, method: http.MethodPost, path: jobRoute + "/candidates", status: http.StatusCreated,
	tool: &toolInfo{title: "Add a candidate",
		description: "Adds an active candidate to a job, in the stage given or the job's first, and returns it (POST /api/v1/jobs/{job}/candidates). " +
			"An email another candidate of the job has, in any letter case, is validation_failed on email; a closed job is forbidden. Each call adds one: send an idempotency_key to retry safely."},
	params: []param[pipeline.NewCandidate]{
		jobID[pipeline.NewCandidate](),
		textField("name", true, described(nameSchema, "Up to 255 characters once trimmed, not blank; stored trimmed."), func(in *pipeline.NewCandidate) *string { return &in.Name }),
		textField("email", true, described(emailSchema, "Up to 254 characters, one @ with something on each side, no white space; stored as sent."), func(in *pipeline.NewCandidate) *string { return &in.Email }),
		textField("applied", false, described(&jsonschema.Schema{Type: "string", Format: "date"}, "The date of application, YYYY-MM-DD, not after today; today (UTC) when absent."), func(in *pipeline.NewCandidate) *string { return &in.Applied }),
		integerField("stage", false, described(idSchema(), "Id of a stage of the job, from list_stages; its first stage when absent."), func(in *pipeline.NewCandidate) *int64 { return &in.StageID }),
		textField("resume_url", false, described(resumeURLSchema, "An absolute http or https URL, up to 2,048 characters."), func(in *pipeline.NewCandidate) *string { return &in.ResumeURL }),
	},
	call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.NewCandidate]) (data[candidateFull], bool, error) {
		res, err := svc.AddCandidate(ctx, in.ref.Job, in.domain())
		return data[candidateFull]{Data: newCandidateFull(res.Value)}, res.Replayed, err
	},
	created: func(out data[candidateFull]) int64 { return out.Data.ID },
})

var listActivityOperation = newOperation(opSpec[pipeline.FeedFilter, feed]{
	op: pipeline.OpListActivity, method: http.MethodGet, path: "/activity", status: http.StatusOK,
	tool: &toolInfo{title: "Read the activity feed",
		description: "The activity entries of what the token's user reaches, oldest first, in commit order (GET /api/v1/activity). " +
			"Pass meta.next_cursor back as after to read on: no entry is missed or seen twice, and from the last page it returns what was written since."},
	params: feedParams(
		described(textSchema(1, 0, ""), "The cursor of the last entry seen (meta.next_cursor); absent: from the beginning."),
		described(&jsonschema.Schema{Type: "string"}, "RFC 3339 date and time: start at the first entry at or after it. Ignored with after."),
		described(&jsonschema.Schema{Type: "integer", Minimum: jsonschema.Ptr(1.0), Maximum: jsonschema.Ptr(float64(pipeline.MaxFeedLimit))}, "Entries per page, 1 to 100; 50 when absent."),
		described(&jsonschema.Schema{Type: "array", Items: enumSchema(pipeline.Actions...)}, "Only entries of these actions."),
	),
	settle: ignoreSinceAfterCursor,
	call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.FeedFilter]) (feed, bool, error) {
		f := in.domain()
		page, err := svc.ListActivity(ctx, f)
		return newFeed(in.self, f, page), false, err
	},
})

var createWebhookOperation = newOperation(opSpec[pipeline.NewWebhook, data[createdWebhook]]{
	op: pipeline.OpCreateWebhook, method: http.MethodPost, path: "/webhooks", status: http.StatusCreated,
	params: []param[pipeline.NewWebhook]{
		textField("url", true, textSchema(1, 2048, ""), func(in *pipeline.NewWebhook) *string { return &in.URL }),
		listField("events", inBody, &jsonschema.Schema{Type: "array", Items: enumSchema(pipeline.Actions...)}, func(in *pipeline.NewWebhook) *[]string { return &in.Events }),
		textField("description", false, textSchema(0, pipeline.MaxWebhookDescriptionLength, ""), func(in *pipeline.NewWebhook) *string { return &in.Description }),
	},
	call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.NewWebhook]) (data[createdWebhook], bool, error) {
		res, err := svc.CreateWebhook(ctx, in.domain())
		return data[createdWebhook]{Data: createdWebhook{webhookItem: newWebhookItem(res.Value.Webhook), Secret: res.Value.Secret}}, res.Replayed, err
	},
	created: func(out data[createdWebhook]) int64 { return out.Data.ID },
})

func setFilter(q url.Values, name, value string) {
	if value != "" {
		q.Set(name, value)
	}
}

// idSchema is a positive integer's.
func idSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "integer", Minimum: jsonschema.Ptr(1.0)}
}

// textSchema is a string's of minLen to maxLen characters (0: no bound)
// matching pattern.
func textSchema(minLen, maxLen int, pattern string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string", Pattern: pattern}
	if maxLen > 0 {
		s.MaxLength = jsonschema.Ptr(maxLen)
	}
	if minLen > 0 {
		s.MinLength = jsonschema.Ptr(minLen)
	}
	return s
}

// enumSchema is a string's of one of values.
func enumSchema(values ...string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string"}
	for _, v := range values {
		s.Enum = append(s.Enum, v)
	}
	return s
}

// described is s with a description, for a tool's argument.
func described(s *jsonschema.Schema, doc string) *jsonschema.Schema {
	c := *s
	c.Description = doc
	return &c
}
