package pipelinehttp

import (
	"encoding/json"
	"log/slog"
	netmail "net/mail"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/ical"
	"github.com/pipeline-dev/pipeline/pipeline/mail"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestPages_EveryOperationInWords walks every write an approval policy may
// hold: each proposal's card says in words what it would do, read from
// the records it names, never its method and path.
func TestPages_EveryOperationInWords(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		m, err := mail.New("log:", mail.WithLogger(slog.New(slog.DiscardHandler)))
		require.NoError(t, err)
		f := storetest.Seeded(t, db, pipeline.WithSecretKey(testSecretKey), pipeline.WithWebhookPolicy(localWebhooks),
			pipeline.WithMail(&netmail.Address{Name: "Acme Hiring", Address: "jobs@acme.example"}, m), pipeline.WithInvitations(ical.Render))
		ctx := f.As(t, "olivia")
		job, ada := f.Job("backend"), f.Res.Candidates["ada"]
		stages := f.Res.Stages["backend"]
		start := time.Now().UTC().Add(72 * time.Hour).Truncate(time.Hour)

		// The records the proposals name.
		iv, err := f.Svc.ScheduleInterview(ctx, job, ada, pipeline.NewInterview{Start: start.Format(time.RFC3339),
			End: start.Add(time.Hour).Format(time.RFC3339), InterviewerIDs: []int64{f.User("adam")}})
		require.NoError(t, err)
		msg, err := f.Svc.SendMessage(ctx, job, ada, pipeline.NewMessage{Subject: "Next steps", Body: "Dear Ada,\n\nSoon.",
			SendAt: start.Format(time.RFC3339)})
		require.NoError(t, err)
		doc, err := f.Svc.AddDocument(ctx, job, ada, pipeline.NewDocument{Filename: "cv.txt", Content: []byte("Ada's CV: engines.")})
		require.NoError(t, err)
		hook, err := f.Svc.CreateWebhook(ctx, pipeline.NewWebhook{URL: "https://hooks.example.test/old", Description: "Board sync"})
		require.NoError(t, err)
		tag, err := f.Svc.CreateTag(ctx, pipeline.NewTag{Name: "Visa"})
		require.NoError(t, err)

		str := func(s string) *string { return &s }
		open := pipeline.JobClosed
		location := "Room 2"
		ref := pipeline.Ref{Job: job, Candidate: ada, Interview: iv.Value.ID, Message: msg.Value.ID, Document: doc.Value.ID, Webhook: hook.Value.Webhook.ID, Tag: tag.Value.ID}
		inputs := map[pipeline.Op]any{
			pipeline.OpCreateJob:           pipeline.NewJob{Title: "Staff Engineer", Description: "<script>alert(1)</script><p>Go.</p>"},
			pipeline.OpUpdateJob:           pipeline.JobPatch{Title: str("Senior Backend Engineer"), Description: str("<p>Go, <b>PostgreSQL</b>.</p>"), Status: &open},
			pipeline.OpAddCandidate:        pipeline.NewCandidate{Name: "Mary Somerville", Email: "mary@example.test", StageID: stages["Screening"]},
			pipeline.OpUpdateCandidate:     pipeline.CandidatePatch{Status: str(pipeline.CandidateRejected)},
			pipeline.OpMoveCandidate:       pipeline.CandidateMove{StageID: stages["Interview"]},
			pipeline.OpAddNote:             pipeline.NewNote{Content: "Knows engines."},
			pipeline.OpRateCandidate:       pipeline.NewRating{Value: pipeline.GoodFit},
			pipeline.OpCreateWebhook:       pipeline.NewWebhook{URL: "https://hooks.example.test/new", Events: []string{"candidate.created"}},
			pipeline.OpDeleteWebhook:       pipeline.WebhookDeletion{},
			pipeline.OpScheduleInterview:   pipeline.NewInterview{Start: start.Add(24 * time.Hour).Format(time.RFC3339), End: start.Add(25 * time.Hour).Format(time.RFC3339), InterviewerIDs: []int64{f.User("mia")}},
			pipeline.OpRescheduleInterview: pipeline.InterviewPatch{Location: &location},
			pipeline.OpCancelInterview:     pipeline.InterviewCancellation{},
			pipeline.OpSendMessage:         pipeline.NewMessage{Subject: "Hello", Body: "Hello Ada."},
			pipeline.OpCancelMessage:       pipeline.MessageCancellation{},
			pipeline.OpRetryMessage:        pipeline.MessageRetry{},
			pipeline.OpRemoveDocument:      pipeline.DocumentRemoval{},
			pipeline.OpErasePerson:         pipeline.PersonErasure{Email: "ada@example.test", Reasoned: pipeline.Because("She asked.")},
			pipeline.OpCreateTag:           pipeline.NewTag{Name: "Remote"},
			pipeline.OpRenameTag:           pipeline.TagRename{Name: "Work permit"},
			pipeline.OpDeleteTag:           pipeline.TagDeletion{},
			pipeline.OpTagCandidate:        pipeline.CandidateTagging{TagID: tag.Value.ID},
			pipeline.OpUntagCandidate:      pipeline.CandidateUntagging{},
		}

		d := newDescriber(ctx, f.Svc)
		pg := newPages(f.Svc, Config{}, "")
		var items []approvalItem
		for i, op := range proposableOps() {
			in, ok := inputs[op]
			require.True(t, ok, "the test proposes %s", op)
			raw, err := json.Marshal(in)
			require.NoError(t, err)
			p := pipeline.Proposal{ID: int64(i + 1), Operation: op, Method: op.Method(), Path: filled(op, ref), Input: raw,
				Status: pipeline.ProposalPending, CreatedAt: time.Now(), ExpiresAt: time.Now().Add(pipeline.ProposalLifetime)}
			if records := op.Records(); slices.Contains(records, "candidate") {
				p.JobID, p.CandidateID = job, ada
			} else if slices.Contains(records, "job") {
				p.JobID = job
			}
			desc := d.describe(p)
			assert.False(t, desc.Generic, "%s has a describer", op)
			assert.Empty(t, desc.Problem, "%s reads its records", op)
			items = append(items, pg.approvalItem(d, p))
		}

		var b strings.Builder
		require.NoError(t, pg.tmpl["approvals"].ExecuteTemplate(&b, "layout", view{Title: "Approvals", Tab: "pending", Proposals: items}))
		titles := regexp.MustCompile(`<h2 id="proposal-\d+-h">([^<]*)</h2>`).FindAllStringSubmatch(b.String(), -1)
		require.Len(t, titles, len(items))
		for i, m := range titles {
			assert.False(t, strings.HasPrefix(m[1], "Run "), "%s: %s", items[i].P.Operation, m[1])
			assert.NotContains(t, m[1], "/api/v1", "%s: %s", items[i].P.Operation, m[1])
		}
		page := b.String()
		assert.Contains(t, page, `<a href="/app/jobs/`+strconv.FormatInt(job, 10)+`">See the job’s candidates</a>`, "an intake links to its job")
		assert.Contains(t, page, "Create the job “Staff Engineer”")
		assert.Contains(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;&lt;p&gt;Go.&lt;/p&gt;", "a description's markup is shown")
		assert.NotContains(t, page, "<script>", "and never run")
		assert.Regexp(t, `Description \(HTML\)</th><td data-label="Now">&lt;p&gt;Go and PostgreSQL.&lt;/p&gt;</td><td data-label="Proposed">&lt;p&gt;Go, &lt;b&gt;PostgreSQL&lt;/b&gt;.&lt;/p&gt;</td>`, page)
		assert.Regexp(t, `Status</th><td data-label="Now">open</td><td data-label="Proposed">closed</td>`, page)
		assert.Contains(t, page, "Add Mary Somerville &lt;mary@example.test&gt; to “Backend Engineer” in Screening")
		assert.Contains(t, page, "Erase the person with the email ada@example.test: 1 application")
		assert.Contains(t, page, "Cancel the email to Ada Lovelace: “Next steps”")
		assert.Contains(t, page, "Send the failed email to Ada Lovelace again: “Next steps”")
		assert.Contains(t, page, "Remove Ada Lovelace’s document “cv.txt”")
		assert.Contains(t, page, "Send the team’s activity to https://hooks.example.test/new")
		assert.Contains(t, page, "Delete the webhook to https://hooks.example.test/old")
		assert.Contains(t, page, "Create the tag “Remote”")
		assert.Contains(t, page, "Rename the tag “Visa” to “Work permit”")
		assert.Contains(t, page, "Delete the tag “Visa”")
		assert.Contains(t, page, "Tag Ada Lovelace “Visa”")
		assert.Contains(t, page, "Untag Ada Lovelace “Visa”")

		// A member cannot count an erasure: the page says so, as words.
		erasure := slices.IndexFunc(items, func(it approvalItem) bool { return it.P.Operation == pipeline.OpErasePerson })
		require.GreaterOrEqual(t, erasure, 0)
		desc := newDescriber(f.As(t, "mia"), f.Svc).describe(items[erasure].P)
		assert.Equal(t, "Erase the person with the email ada@example.test", desc.Title)
		assert.Contains(t, desc.Details, detail{"Applications it would erase now", "only the team’s owners and admins may count them"})
	})
}

// filled is op's path with r's ids.
func filled(op pipeline.Op, r pipeline.Ref) string {
	path := op.Path()
	for _, id := range r.IDs() {
		path = strings.ReplaceAll(path, "{"+id.Name+"}", strconv.FormatInt(*id.ID, 10))
	}
	return path
}
