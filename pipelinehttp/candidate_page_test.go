package pipelinehttp_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/doctext"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestPages_CandidatePage: an approval card links to its candidate's page,
// where a reviewer reads what the agent read (the document's text, shown
// as text), the notes, messages, interviews and activity about them, and
// decides the proposals about them; a member reaches only the jobs their
// user reaches.
func TestPages_CandidatePage(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f, base := servePages(t, db, pipelinehttp.Config{}, approvalOptions(t)...)
		ctx := f.As(t, "olivia")
		job, ada := f.Job("backend"), f.Res.Candidates["ada"]
		cv := []byte("Ada Lovelace, CV\n<script>alert(1)</script> Notes on the Analytical Engine.")
		doc, err := f.Svc.AddDocument(ctx, job, ada, pipeline.NewDocument{Filename: "ada-cv.txt", Content: cv})
		require.NoError(t, err)
		require.NoError(t, pipeline.NewTexts(f.DB, doctext.Process{}).Extract(context.Background(), doc.Value.ID))
		_, err = f.Svc.AddNote(ctx, job, ada, pipeline.NewNote{Content: "Met her at the conference."})
		require.NoError(t, err)
		_, err = f.Svc.SendMessage(ctx, job, ada, pipeline.NewMessage{Subject: "Thank you for applying", Body: "Dear Ada,\n\nWe got it."})
		require.NoError(t, err)
		start := time.Now().UTC().Add(72 * time.Hour).Truncate(24 * time.Hour).Add(10 * time.Hour)
		_, err = f.Svc.ScheduleInterview(ctx, job, ada, pipeline.NewInterview{Start: start.Format(time.RFC3339),
			End: start.Add(time.Hour).Format(time.RFC3339), InterviewerIDs: []int64{f.User("adam")}})
		require.NoError(t, err)
		held := agent(t, f, "olivia", "sourcing agent", pipeline.EveryWrite)
		id := propose(t, base, held, "POST", candidatePath(f, "backend", "ada")+"/stage",
			map[string]any{"stage": f.Res.Stages["backend"]["Interview"], "reason": "Her CV matches."})
		other := propose(t, base, held, "POST", candidatePath(f, "backend", "grace")+"/notes", map[string]any{"content": "Not about Ada."})

		mia := signIn(t, f, base, "mia@acme.test")
		adaPage := "/app/jobs/" + strconv.FormatInt(job, 10) + "/candidates/" + strconv.FormatInt(ada, 10)
		assert.Contains(t, mia.get("/app/approvals").body, `<a href="`+adaPage+`">See the candidate`, "the card links to the candidate")

		// The feed shows an entry once it is final (on PostgreSQL, once no
		// transaction begun before it is open): the page's activity may lag
		// a moment behind the newest write.
		var res page
		require.Eventually(t, func() bool {
			res = mia.get(adaPage)
			return res.StatusCode == http.StatusOK && strings.Contains(res.body, "proposal.created")
		}, 10*time.Second, 50*time.Millisecond, "the candidate's page, with the latest activity")
		body := html.UnescapeString(res.body)
		assert.Contains(t, body, "<h1>Ada Lovelace</h1>")
		assert.Contains(t, body, "<dt>Stage</dt><dd>Applied</dd>")
		assert.Contains(t, body, "<dt>Status</dt><dd>active</dd>")
		assert.Contains(t, body, "ada-cv.txt")
		assert.Contains(t, res.body, "&lt;script&gt;alert(1)&lt;/script&gt; Notes on the Analytical Engine.", "the text the agent read, as text")
		assert.NotContains(t, res.body, "<script>")
		assert.Contains(t, body, "Met her at the conference.")
		assert.Contains(t, body, "“Thank you for applying”")
		assert.Contains(t, body, "with Adam Admin <adam@acme.test>")
		assert.Contains(t, body, "candidate.document_added")
		assert.Contains(t, body, "proposal.created")
		assert.Regexp(t, `<h3 id="proposal-\d+-h">Move Ada Lovelace from Applied to Interview</h3>`, body, "a card under the section's heading")
		assert.Contains(t, body, "Her CV matches.")
		assert.NotContains(t, body, "Not about Ada.", "only the proposals about her")
		assert.Contains(t, body, `action="/app/approvals/`+strconv.FormatInt(id, 10)+`"`)

		link := regexp.MustCompile(`href="(` + regexp.QuoteMeta(adaPage) + `/documents/\d+)" download`).FindStringSubmatch(res.body)
		require.NotNil(t, link, "a download link")
		dl := mia.get(link[1])
		require.Equal(t, http.StatusOK, dl.StatusCode)
		assert.Equal(t, string(cv), dl.body)
		assert.Equal(t, "attachment; filename*=UTF-8''ada-cv.txt", dl.Header.Get("Content-Disposition"))
		assert.Equal(t, "sandbox; default-src 'none'", dl.Header.Get("Content-Security-Policy"))

		// Deciding from the candidate's page returns there, with the outcome;
		// a return to anywhere else is not followed.
		assert.Contains(t, res.body, `<input type="hidden" name="back" value="`+adaPage+`">`)
		done := mia.post("/app/approvals/"+strconv.FormatInt(id, 10), url.Values{"decision": {"approve"}, "csrf": {res.field(t, "csrf")}, "back": {adaPage}})
		require.Equal(t, http.StatusSeeOther, done.StatusCode, done.body)
		assert.Equal(t, adaPage+"?done="+strconv.FormatInt(id, 10)+"#done", done.Header.Get("Location"))
		assert.Equal(t, "Interview", candidateStage(t, f, "backend", "ada"))
		after := html.UnescapeString(mia.get(done.Header.Get("Location")).body)
		assert.Contains(t, after, "Done: Ada Lovelace is in Interview.")
		assert.Contains(t, after, "<dt>Stage</dt><dd>Interview</dd>")
		assert.Contains(t, after, "No proposal about Ada Lovelace is waiting for you.")
		rejected := mia.post("/app/approvals/"+strconv.FormatInt(other, 10), url.Values{"decision": {"reject"}, "csrf": {res.field(t, "csrf")}, "back": {"//evil.example/app/jobs/1/candidates/1"}})
		require.Equal(t, http.StatusSeeOther, rejected.StatusCode, rejected.body)
		assert.Equal(t, "/app/approvals?done="+strconv.FormatInt(other, 10)+"#done", rejected.Header.Get("Location"))

		// The job's page lists its candidates by stage.
		jobPage := mia.get("/app/jobs/" + strconv.FormatInt(job, 10))
		require.Equal(t, http.StatusOK, jobPage.StatusCode, jobPage.body)
		assert.Regexp(t, `(?s)>Interview <span class="count-plain">\(1\)</span></h2>\s*<ul class="records"><li><a href="`+regexp.QuoteMeta(adaPage)+`">Ada Lovelace</a>`, jobPage.body)
		assert.Contains(t, mia.get("/app/jobs/"+strconv.FormatInt(job, 10)+"?search=grace").body, "Grace Hopper")
		assert.NotContains(t, mia.get("/app/jobs/"+strconv.FormatInt(job, 10)+"?search=grace").body, "Ada Lovelace</a>")

		// Out of a member's reach: the not-found page, for the candidate,
		// the job and the document alike.
		nina := signIn(t, f, base, "nina@acme.test")
		for _, path := range []string{adaPage, link[1], "/app/jobs/" + strconv.FormatInt(job, 10),
			"/app/jobs/" + strconv.FormatInt(f.Job("frontend"), 10) + "/candidates/" + strconv.FormatInt(ada, 10)} {
			r := nina.get(path)
			assert.Equal(t, http.StatusNotFound, r.StatusCode, path)
			assert.Contains(t, r.Header.Get("Content-Type"), "text/html", path)
			assert.NotContains(t, r.body, "Ada Lovelace", path)
		}
		assert.Equal(t, http.StatusNotFound, mia.get("/app/jobs/"+strconv.FormatInt(f.Job("frontend"), 10)).StatusCode)
		assert.Equal(t, http.StatusSeeOther, newBrowser(t, base).get(adaPage).StatusCode, "signed out: to the sign-in page")
	})
}
