package pipelinehttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	netmail "net/mail"
	"net/url"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/ical"
	"github.com/pipeline-dev/pipeline/pipeline/mail"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// approvalOptions make a Service that runs approved proposals and sends
// mail (to a log), so that messages and invitations can be proposed.
func approvalOptions(t *testing.T) []pipeline.Option {
	m, err := mail.New("log:", mail.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	return []pipeline.Option{pipeline.WithMail(&netmail.Address{Name: "Acme Hiring", Address: "jobs@acme.example"}, m), pipeline.WithInvitations(ical.Render)}
}

// agent issues a token of the fixture user key under an approval policy.
func agent(t *testing.T, f storetest.Fixture, key, name string, approval ...pipeline.Op) string {
	t.Helper()
	scopes := []pipeline.Scope{pipeline.ScopeJobsRead, pipeline.ScopeJobsWrite, pipeline.ScopeCandidatesRead, pipeline.ScopeCandidatesWrite,
		pipeline.ScopeMessagesSend, pipeline.ScopeSchedulingWrite}
	_, value, err := f.Op.IssueToken(context.Background(), pipeline.TokenRequest{
		UserEmail: key + "@acme.test", Name: name, Scopes: scopes, Approval: approval})
	require.NoError(t, err)
	return value
}

// apiCall makes a REST request with token and returns the status and
// the body's data.
func apiCall(t *testing.T, base, token, method, path string, body any) (int, map[string]any) {
	t.Helper()
	b, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequest(method, base+"/api/v1"+path, bytes.NewReader(b))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var out struct {
		Data map[string]any `json:"data"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out), "%s %s answered %d", method, path, res.StatusCode)
	return res.StatusCode, out.Data
}

// propose makes a write with an agent's token and returns the proposal's id.
func propose(t *testing.T, base, token, method, path string, body any) int64 {
	t.Helper()
	status, data := apiCall(t, base, token, method, path, body)
	require.Equal(t, http.StatusAccepted, status, "%v", data)
	return int64(data["id"].(float64))
}

func candidatePath(f storetest.Fixture, job, cand string) string {
	return fmt.Sprintf("/jobs/%d/candidates/%d", f.Job(job), f.Res.Candidates[cand])
}

// proposalStatus reads a proposal as its team's owner.
func proposalStatus(t *testing.T, f storetest.Fixture, id int64) string {
	t.Helper()
	p, err := f.Svc.GetProposal(f.As(t, "olivia"), id)
	require.NoError(t, err)
	return p.Status
}

func candidateStage(t *testing.T, f storetest.Fixture, job, cand string) string {
	t.Helper()
	c, err := f.Svc.GetCandidate(f.As(t, "olivia"), f.Job(job), f.Res.Candidates[cand])
	require.NoError(t, err)
	return c.Stage
}

// TestPages_Approvals: a member sees and decides only proposals on jobs
// they reach; a forged form decides nothing; an approval runs the write as
// the agent, approved by the person.
func TestPages_Approvals(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f, base := servePages(t, db, pipelinehttp.Config{}, approvalOptions(t)...)
		olivias := agent(t, f, "olivia", "sourcing agent", pipeline.OpMoveCandidate)
		ninas := agent(t, f, "nina", "frontend agent", pipeline.EveryWrite)
		reason := "<script>alert(1)</script> Strong résumé.\nSecond line."
		onBackend := propose(t, base, olivias, "POST", candidatePath(f, "backend", "ada")+"/stage",
			map[string]any{"stage": f.Res.Stages["backend"]["Screening"], "reason": reason})
		onFrontend := propose(t, base, ninas, "POST", candidatePath(f, "frontend", "ken")+"/stage",
			map[string]any{"stage": f.Res.Stages["frontend"]["Screening"]})

		mia := signIn(t, f, base, "mia@acme.test")
		list := mia.get("/app/approvals")
		require.Equal(t, http.StatusOK, list.StatusCode, list.body)
		assert.Contains(t, list.body, "Move Ada Lovelace from Applied to Screening")
		assert.Contains(t, list.body, "the token “sourcing agent” of Olivia Owner")
		assert.Contains(t, list.body, html.EscapeString(reason), "the agent's words, escaped")
		assert.NotContains(t, list.body, "<script>")
		assert.NotContains(t, list.body, "Ken Thompson", "a member sees no proposal on a job they do not reach")

		// A forged form and a proposal out of reach decide nothing.
		csrf := list.field(t, "csrf")
		forged := mia.post("/app/approvals/"+strconv.FormatInt(onBackend, 10), url.Values{"decision": {"approve"}})
		assert.Equal(t, http.StatusForbidden, forged.StatusCode)
		assert.Equal(t, pipeline.ProposalPending, proposalStatus(t, f, onBackend))
		assert.Equal(t, "Applied", candidateStage(t, f, "backend", "ada"))
		hidden := mia.post("/app/approvals/"+strconv.FormatInt(onFrontend, 10), url.Values{"decision": {"approve"}, "csrf": {csrf}})
		assert.Equal(t, http.StatusNotFound, hidden.StatusCode)
		assert.Equal(t, pipeline.ProposalPending, proposalStatus(t, f, onFrontend))
		assert.Equal(t, "Applied", candidateStage(t, f, "frontend", "ken"))

		done := mia.post("/app/approvals/"+strconv.FormatInt(onBackend, 10), url.Values{"decision": {"approve"}, "note": {"Agreed."}, "csrf": {csrf}})
		require.Equal(t, http.StatusSeeOther, done.StatusCode, done.body)
		result := mia.get(done.Header.Get("Location"))
		assert.Contains(t, result.body, "Proposal "+strconv.FormatInt(onBackend, 10)+": applied")
		assert.Contains(t, result.body, "Done: Ada Lovelace is in Screening.")
		assert.Equal(t, "Screening", candidateStage(t, f, "backend", "ada"))
		var moved *pipeline.Activity
		for _, a := range f.Activity(t) {
			if a.Action == pipeline.ActionCandidateStageChanged {
				moved = &a
			}
		}
		require.NotNil(t, moved)
		assert.Equal(t, f.User("olivia"), moved.UserID, "the requester acts")
		assert.NotZero(t, moved.TokenID, "through the agent's token")
		require.NotNil(t, moved.ApprovedBy)
		assert.Equal(t, f.User("mia"), moved.ApprovedBy.User.ID, "approved by the signed-in person")
		assert.Nil(t, moved.ApprovedBy.TokenID, "on a page, with no token")

		again := mia.post("/app/approvals/"+strconv.FormatInt(onBackend, 10), url.Values{"decision": {"reject"}, "csrf": {csrf}})
		assert.Equal(t, http.StatusConflict, again.StatusCode)
		assert.Contains(t, again.body, "already been decided")

		decided := mia.get("/app/approvals?tab=decided")
		assert.Contains(t, decided.body, "Move Ada Lovelace")
		assert.Contains(t, decided.body, "Note: Agreed.")
		assert.NotContains(t, mia.get("/app/approvals").body, "Move Ada Lovelace", "no longer waiting")

		// The owner reaches the frontend job; rejecting changes nothing.
		owner := signIn(t, f, base, "olivia@acme.test")
		list = owner.get("/app/approvals")
		assert.Contains(t, list.body, "Move Ken Thompson from Applied to Screening")
		rejected := owner.post("/app/approvals/"+strconv.FormatInt(onFrontend, 10), url.Values{"decision": {"reject"}, "csrf": {list.field(t, "csrf")}})
		require.Equal(t, http.StatusSeeOther, rejected.StatusCode, rejected.body)
		assert.Equal(t, pipeline.ProposalRejected, proposalStatus(t, f, onFrontend))
		assert.Equal(t, "Applied", candidateStage(t, f, "frontend", "ken"))
	})
}

// TestPages_ApprovalsInWords: each family of operations says what it
// would do as the records read now, with its side effects, and warns
// when its subject changed since.
func TestPages_ApprovalsInWords(t *testing.T) {
	f, base := servePages(t, storetest.OpenSQLite(t), pipelinehttp.Config{}, approvalOptions(t)...)
	ada := candidatePath(f, "backend", "ada")
	held := agent(t, f, "mia", "mia's agent", pipeline.EveryWrite)

	// An interview the owner schedules for Ada, which a status change
	// would cancel.
	// 10:00 UTC: neither interview crosses midnight in its own time zone,
	// where the page would name the end's day too.
	start := time.Now().UTC().Add(72 * time.Hour).Truncate(24 * time.Hour).Add(10 * time.Hour)
	status, iv := apiCall(t, base, f.Res.Tokens["olivia"], "POST", ada+"/interviews", map[string]any{
		"start": start.Format(time.RFC3339), "end": start.Add(time.Hour).Format(time.RFC3339), "timezone": "Europe/Paris",
		"interviewer_ids": []int64{f.User("adam")}})
	require.Equal(t, http.StatusCreated, status, "%v", iv)

	propose(t, base, held, "PATCH", ada, map[string]any{"status": "rejected", "email": "ada@lovelace.test"})
	propose(t, base, held, "POST", ada+"/messages", map[string]any{"subject": "Your application",
		"body": "Dear Ada,\n\nThank you.\n\n— Acme", "send_at": start.Add(-time.Hour).Format(time.RFC3339)})
	propose(t, base, held, "POST", ada+"/interviews", map[string]any{
		"start": start.Add(24 * time.Hour).Format(time.RFC3339), "end": start.Add(25 * time.Hour).Format(time.RFC3339),
		"timezone": "America/New_York", "interviewer_ids": []int64{f.User("mia"), f.User("olivia")}})
	propose(t, base, held, "POST", ada+"/notes", map[string]any{"content": "Knows Go."})
	propose(t, base, held, "PATCH", fmt.Sprintf("/jobs/%d", f.Job("backend")), map[string]any{"title": "Senior Backend Engineer"})

	// The subject changes after the proposals: each on Ada warns.
	status, _ = apiCall(t, base, f.Res.Tokens["olivia"], "POST", ada+"/stage", map[string]any{"stage": f.Res.Stages["backend"]["Interview"]})
	require.Equal(t, http.StatusOK, status)

	mia := signIn(t, f, base, "mia@acme.test")
	body := html.UnescapeString(mia.get("/app/approvals").body)
	paris, err := time.LoadLocation("Europe/Paris")
	require.NoError(t, err)
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)

	// A change: each field's current → proposed value, and the interview
	// it would cancel, with the mail that says so.
	assert.Regexp(t, `(?s)<th scope="row" data-label="Field">Email</th><td data-label="Now">ada@example.test</td><td data-label="Proposed">ada@lovelace.test</td>`, body)
	assert.Regexp(t, `(?s)Status</th><td data-label="Now">active</td><td data-label="Proposed">rejected</td>`, body)
	assert.Contains(t, body, "Cancel the interview on "+start.In(paris).Format("Mon 2 Jan 2006, 15:04")+"–"+start.Add(time.Hour).In(paris).Format("15:04")+" (Europe/Paris) with Adam Admin <adam@acme.test>.")
	assert.Contains(t, body, "Email its cancellation to Adam Admin <adam@acme.test> and Ada Lovelace <ada@example.test>.")
	// An email: recipient, subject, whole body, send time.
	assert.Contains(t, body, "Email Ada Lovelace: “Your application”")
	assert.Contains(t, body, "<dt>To</dt><dd>Ada Lovelace <ada@example.test></dd>")
	assert.Contains(t, body, "Dear Ada,\n\nThank you.\n\n— Acme")
	assert.Contains(t, body, "<dt>Send</dt><dd>"+start.Add(-time.Hour).Format("Mon 2 Jan 2006, 15:04 -07:00")+"</dd>")
	// An interview: its times in its time zone and its interviewers.
	s2 := start.Add(24 * time.Hour)
	assert.Contains(t, body, "Schedule an interview with Ada Lovelace on "+s2.In(ny).Format("Mon 2 Jan 2006, 15:04")+"–"+s2.Add(time.Hour).In(ny).Format("15:04")+" (America/New_York)")
	assert.Contains(t, body, "<dt>Interviewers</dt><dd>Mia Member <mia@acme.test> and Olivia Owner <olivia@acme.test></dd>")
	assert.Contains(t, body, "Email invitations to Mia Member <mia@acme.test>, Olivia Owner <olivia@acme.test> and Ada Lovelace <ada@example.test>.")
	assert.Contains(t, body, "Add a note on Ada Lovelace")
	// A job's change: each field's current → proposed value, and the
	// request it stands for below, closed.
	assert.Contains(t, body, "Change the job “Backend Engineer”")
	assert.Regexp(t, `Title</th><td data-label="Now">Backend Engineer</td><td data-label="Proposed">Senior Backend Engineer</td>`, body)
	assert.NotRegexp(t, `Run update_job|<h2[^>]*>[^<]*/api/v1`, body)
	assert.Contains(t, body, `"title": "Senior Backend Engineer"`)
	assert.NotContains(t, body, `<details open>`)

	warnings := regexp.MustCompile(`Ada Lovelace changed since this was proposed \(candidate\.stage_changed, [^)]+ by Olivia Owner\)`).FindAllString(body, -1)
	assert.Len(t, warnings, 4, "each proposal on Ada warns; the job's does not")
}

// TestPages_TokenApproval: the token form sets an approval policy; a
// refused combination answers the form with the domain's message; the
// list shows each token's policy.
func TestPages_TokenApproval(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f, base := servePages(t, db, pipelinehttp.Config{})
		b := signIn(t, f, base, "mia@acme.test")
		form := b.get("/app/tokens")
		assert.Contains(t, form.body, `id="approval-move_candidate"`)
		assert.Contains(t, form.body, `id="approval-all" name="approval" value="*"`)
		assert.NotContains(t, form.body, `id="approval-add_document"`, "an upload is never held")
		assert.NotContains(t, form.body, `id="approval-list_jobs"`, "a read is never held")

		refused := b.post("/app/tokens", url.Values{"name": {"agent"}, "scope": {"candidates:write", "proposals:review"},
			"approval": {"move_candidate"}, "nonce": {form.field(t, "nonce")}, "csrf": {form.field(t, "csrf")}})
		assert.Equal(t, http.StatusUnprocessableEntity, refused.StatusCode)
		assert.Contains(t, html.UnescapeString(refused.body), "A token under an approval policy cannot carry proposals:review.")

		made := b.post("/app/tokens", url.Values{"name": {"agent"}, "scope": {"candidates:write", "messages:send"},
			"approval": {"move_candidate", "send_message"}, "nonce": {form.field(t, "nonce")}, "csrf": {form.field(t, "csrf")}})
		require.Equal(t, http.StatusOK, made.StatusCode, made.body)
		value := regexp.MustCompile(`plt_[0-9A-Za-z]{38}`).FindString(made.body)
		c, err := f.Svc.Authenticate(context.Background(), value)
		require.NoError(t, err)
		assert.Equal(t, []pipeline.Op{pipeline.OpMoveCandidate, pipeline.OpSendMessage}, c.ApprovalRequired())
		assert.Contains(t, b.get("/app/tokens").body, `<td data-label="Approval required">move_candidate, send_message</td>`)
	})
}

// TestPages_ApprovalRefused: an approved run the write refuses shows the
// error that stopped it, and changes nothing.
func TestPages_ApprovalRefused(t *testing.T) {
	f, base := servePages(t, storetest.OpenSQLite(t), pipelinehttp.Config{}, approvalOptions(t)...)
	token := agent(t, f, "olivia", "sourcing agent", pipeline.OpMoveCandidate)
	id := propose(t, base, token, "POST", candidatePath(f, "backend", "ada")+"/stage",
		map[string]any{"stage": f.Res.Stages["backend"]["Offer"]})
	c, err := f.Svc.Authenticate(context.Background(), token)
	require.NoError(t, err)
	require.NoError(t, f.Op.RevokeToken(context.Background(), c.TokenID()))

	b := signIn(t, f, base, "adam@acme.test")
	list := b.get("/app/approvals")
	require.Contains(t, list.body, "Move Ada Lovelace from Applied to Offer")
	done := b.post("/app/approvals/"+strconv.FormatInt(id, 10), url.Values{"decision": {"approve"}, "csrf": {list.field(t, "csrf")}})
	require.Equal(t, http.StatusSeeOther, done.StatusCode, done.body)
	result := b.get(done.Header.Get("Location"))
	assert.Contains(t, result.body, "Proposal "+strconv.FormatInt(id, 10)+": failed")
	assert.Contains(t, html.UnescapeString(result.body), "Not done: the token that asked no longer works (revoked or expired), or its user left the team. Nothing changed.")
	assert.NotContains(t, result.body, "HTTP")
	assert.Equal(t, "Applied", candidateStage(t, f, "backend", "ada"))
}

// TestPages_ApprovalOutcomes: what became of each proposal is told in
// words, read from the record its run answered or the error that stopped
// it, never an HTTP status; a withdrawn one says why.
func TestPages_ApprovalOutcomes(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f, base := servePages(t, db, pipelinehttp.Config{}, approvalOptions(t)...)
		ctx := context.Background()
		held := agent(t, f, "mia", "mia's agent", pipeline.EveryWrite)
		doomed := agent(t, f, "mia", "short-lived agent", pipeline.EveryWrite)
		ada, linus := candidatePath(f, "backend", "ada"), candidatePath(f, "backend", "linus")

		moved := propose(t, base, held, "POST", ada+"/stage", map[string]any{"stage": f.Res.Stages["backend"]["Interview"]})
		start := time.Now().UTC().Add(72 * time.Hour).Truncate(time.Hour)
		slot := map[string]any{"start": start.Format(time.RFC3339), "end": start.Add(time.Hour).Format(time.RFC3339),
			"interviewer_ids": []int64{f.User("adam")}}
		booked := propose(t, base, held, "POST", ada+"/interviews", slot)
		status, _ := apiCall(t, base, f.Res.Tokens["olivia"], "POST", candidatePath(f, "backend", "grace")+"/interviews", slot)
		require.Equal(t, http.StatusCreated, status, "adam is booked meanwhile")

		withdrawn := propose(t, base, held, "POST", ada+"/notes", map[string]any{"content": "On second thought."})
		status, _ = apiCall(t, base, held, "POST", "/proposals/"+strconv.FormatInt(withdrawn, 10)+"/withdraw", map[string]any{})
		require.Equal(t, http.StatusOK, status)
		revoked := propose(t, base, doomed, "POST", ada+"/notes", map[string]any{"content": "Mine."})
		c, err := f.Svc.Authenticate(ctx, doomed)
		require.NoError(t, err)
		require.NoError(t, f.Op.RevokeToken(ctx, c.TokenID()))
		_, err = f.Svc.CloseProposals(ctx)
		require.NoError(t, err)
		erased := propose(t, base, held, "POST", linus+"/notes", map[string]any{"content": "Linus wrote Git."})
		_, err = f.Svc.ErasePerson(f.As(t, "olivia"), pipeline.PersonErasure{Email: "linus@example.test", Reasoned: pipeline.Because("He asked.")})
		require.NoError(t, err)

		b := signIn(t, f, base, "olivia@acme.test")
		list := b.get("/app/approvals")
		for _, id := range []int64{moved, booked} {
			res := b.post("/app/approvals/"+strconv.FormatInt(id, 10), url.Values{"decision": {"approve"}, "csrf": {list.field(t, "csrf")}})
			require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
		}
		done := html.UnescapeString(b.get("/app/approvals?done=" + strconv.FormatInt(moved, 10)).body)
		assert.Contains(t, done, "Done: Ada Lovelace is in Interview.")

		decided := html.UnescapeString(b.get("/app/approvals?tab=decided").body)
		card := func(id int64) string {
			m := regexp.MustCompile(`(?s)<article class="proposal" id="proposal-` + strconv.FormatInt(id, 10) + `".*?</article>`).FindString(decided)
			require.NotEmpty(t, m, "proposal %d is on the decided tab", id)
			return m
		}
		assert.Contains(t, card(moved), "Done: Ada Lovelace is in Interview.")
		assert.Regexp(t, `Not done: [a-z][^.]*booked[^<]*Nothing changed\.`, card(booked))
		assert.Contains(t, card(withdrawn), "Withdrawn: the agent withdrew it; nothing was done.")
		assert.Contains(t, card(revoked), "Withdrawn: the token that asked was revoked; nothing was done.")
		assert.Contains(t, card(erased), "Withdrawn: an erasure of the person it names closed it; nothing was done.")
		assert.NotRegexp(t, `HTTP \d|answered \d{3}`, decided)
	})
}

// TestPages_ApprovalsWaiting: the navigation of every page counts the
// proposals waiting for the signed-in person's decision: those on jobs
// they reach, none once decided.
func TestPages_ApprovalsWaiting(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f, base := servePages(t, db, pipelinehttp.Config{}, approvalOptions(t)...)
		held := agent(t, f, "adam", "adam's agent", pipeline.EveryWrite)
		waiting := func(p page) string {
			m := regexp.MustCompile(`<a href="/app/approvals">Approvals <span class="count" id="waiting">(\d+)<span class="sr"> waiting for you</span></span></a>`).FindStringSubmatch(p.body)
			if m == nil {
				assert.Contains(t, p.body, `<a href="/app/approvals">Approvals</a>`)
				return "none"
			}
			return m[1]
		}
		mia, owner := signIn(t, f, base, "mia@acme.test"), signIn(t, f, base, "olivia@acme.test")
		assert.Equal(t, "none", waiting(mia.get("/app/tokens")))

		onBackend := propose(t, base, held, "POST", candidatePath(f, "backend", "ada")+"/notes", map[string]any{"content": "Strong."})
		propose(t, base, held, "POST", candidatePath(f, "frontend", "ken")+"/notes", map[string]any{"content": "Strong too."})
		propose(t, base, held, "POST", "/jobs", map[string]any{"title": "Staff Engineer"})

		assert.Equal(t, "1", waiting(mia.get("/app/tokens")), "a member: the backend job's only")
		list := owner.get("/app/approvals")
		assert.Equal(t, "3", waiting(list), "the owner: every job's, and the one on no job")
		res := owner.post("/app/approvals/"+strconv.FormatInt(onBackend, 10), url.Values{"decision": {"reject"}, "csrf": {list.field(t, "csrf")}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode, res.body)
		assert.Equal(t, "2", waiting(owner.get(res.Header.Get("Location"))))
		assert.Equal(t, "none", waiting(mia.get("/app/approvals")))
	})
}

// TestPages_ApprovedWebhookSecret: approving a proposed webhook on the
// page answers with its signing secret, once, for the approver to hand
// on; no later page shows it.
func TestPages_ApprovedWebhookSecret(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		key, err := pipeline.ParseSecretKey("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
		require.NoError(t, err)
		f, base := servePages(t, db, pipelinehttp.Config{}, append(approvalOptions(t), pipeline.WithSecretKey(key),
			pipeline.WithWebhookPolicy(pipeline.WebhookPolicy{AllowHTTP: true, AllowPrivate: true}))...)
		_, token, err := f.Op.IssueToken(context.Background(), pipeline.TokenRequest{UserEmail: "olivia@acme.test", Name: "hook agent",
			Scopes: []pipeline.Scope{pipeline.ScopeWebhooksWrite}, Approval: []pipeline.Op{pipeline.OpCreateWebhook}})
		require.NoError(t, err)
		id := propose(t, base, token, "POST", "/webhooks", map[string]any{"url": "https://hooks.example.test/board"})

		adam := signIn(t, f, base, "adam@acme.test")
		list := adam.get("/app/approvals")
		assert.Contains(t, list.body, "Send the team’s activity to https://hooks.example.test/board")
		res := adam.post("/app/approvals/"+strconv.FormatInt(id, 10), url.Values{"decision": {"approve"}, "csrf": {list.field(t, "csrf")}})
		require.Equal(t, http.StatusOK, res.StatusCode, res.body)
		assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
		assert.Contains(t, html.UnescapeString(res.body), "Done: the team’s activity is sent to https://hooks.example.test/board.")
		secret := regexp.MustCompile(`<pre class="body secret" tabindex="0">(whsec_[^<]+)</pre>`).FindStringSubmatch(res.body)
		require.NotNil(t, secret, "the secret, once")
		assert.Regexp(t, `^whsec_[A-Za-z0-9+/]{43}=$`, html.UnescapeString(secret[1]))
		for _, path := range []string{"/app/approvals?tab=decided", "/app/approvals?done=" + strconv.FormatInt(id, 10)} {
			assert.NotContains(t, html.UnescapeString(adam.get(path).body), html.UnescapeString(secret[1]), path)
		}
	})
}
