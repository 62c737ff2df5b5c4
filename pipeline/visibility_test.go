package pipeline_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// listedJobs is the titles of every job the caller of token lists, of every
// status, sorted.
func listedJobs(t *testing.T, w world, token string) []string {
	t.Helper()
	var titles []string
	for _, st := range []pipeline.JobStatus{pipeline.JobOpen, pipeline.JobDraft, pipeline.JobClosed} {
		l, err := w.Svc.ListJobs(w.As(t, token), pipeline.JobFilter{Status: st})
		require.NoError(t, err)
		assert.Len(t, l.Items, l.Total, "one page")
		for _, j := range l.Items {
			assert.Equal(t, st, j.Status)
			titles = append(titles, j.Title)
		}
	}
	slices.Sort(titles)
	return titles
}

// TestService_JobVisibility: owners and admins reach every job of their
// team, members only the jobs they own or are assigned to, and nobody a
// job of another team.
func TestService_JobVisibility(t *testing.T) {
	acme := []string{"Backend Engineer", "Frontend Ingénieur", "Old Role", "Product Designer"}
	eachWorld(t, "who lists which jobs", func(t *testing.T, w world) {
		for _, tc := range []struct {
			token string
			jobs  []string
		}{
			{"olivia", acme},
			{"adam", acme},
			{"mia", []string{"Backend Engineer"}},
			{"nina", []string{"Frontend Ingénieur"}},
			{"gary", []string{"Ops Lead"}},
		} {
			assert.Equal(t, tc.jobs, listedJobs(t, w, tc.token), tc.token)
		}
	})
	eachWorld(t, "every job read answers not_found for an unreachable job", func(t *testing.T, w world) {
		for _, tc := range []struct{ token, job string }{
			{"mia", "frontend"}, {"mia", "design"}, {"mia", "archive"}, {"nina", "backend"},
			{"olivia", "ops"}, {"adam", "ops"}, {"gary", "backend"}, {"gary", "archive"},
		} {
			ctx := w.As(t, tc.token)
			_, err := w.Svc.GetJob(ctx, w.Job(tc.job))
			assert.ErrorIs(t, err, pipeline.ErrNotFound, "%s reads %s", tc.token, tc.job)
			_, err = w.Svc.ListStages(ctx, w.Job(tc.job))
			assert.ErrorIs(t, err, pipeline.ErrNotFound, "%s reads the stages of %s", tc.token, tc.job)
			_, err = w.Svc.ListCandidates(ctx, w.Job(tc.job), pipeline.CandidateFilter{})
			assert.ErrorIs(t, err, pipeline.ErrNotFound, "%s lists the candidates of %s", tc.token, tc.job)
			_, err = w.Svc.UpdateJob(ctx, w.Job(tc.job), pipeline.JobPatch{Title: new("Taken over")})
			assert.ErrorIs(t, err, pipeline.ErrNotFound, "%s updates %s", tc.token, tc.job)
		}
		assert.Empty(t, w.Activity(t))
	})
	eachWorld(t, "a member reaches the job they create", func(t *testing.T, w world) {
		mia, nina := w.As(t, "mia"), w.As(t, "nina")
		res, err := w.Svc.CreateJob(mia, pipeline.NewJob{Title: "Mia's own"})
		require.NoError(t, err)
		_, err = w.Svc.GetJob(mia, res.Value.ID)
		require.NoError(t, err)
		assert.Contains(t, listedJobs(t, w, "mia"), "Mia's own")
		assert.Contains(t, listedJobs(t, w, "adam"), "Mia's own", "an admin reaches it too")
		_, err = w.Svc.GetJob(nina, res.Value.ID)
		assert.ErrorIs(t, err, pipeline.ErrNotFound, "another member does not")
		assert.NotContains(t, listedJobs(t, w, "nina"), "Mia's own")
	})
	eachWorld(t, "an assignee reaches the job whatever its status", func(t *testing.T, w world) {
		closed := pipeline.JobClosed
		_, err := w.Svc.UpdateJob(w.As(t, "olivia"), w.Job("backend"), pipeline.JobPatch{Status: &closed})
		require.NoError(t, err)
		j, err := w.Svc.GetJob(w.As(t, "mia"), w.Job("backend"))
		require.NoError(t, err)
		assert.Equal(t, pipeline.JobClosed, j.Status)
		assert.Equal(t, []string{"Backend Engineer"}, listedJobs(t, w, "mia"))
	})
	eachWorld(t, "an admin may write to any job of the team", func(t *testing.T, w world) {
		adam := w.As(t, "adam")
		_, err := w.Svc.UpdateJob(adam, w.Job("frontend"), pipeline.JobPatch{Description: new("<p>React.</p>")})
		require.NoError(t, err)
		_, err = w.Svc.AddNote(adam, w.Job("design"), w.Res.Candidates["don"], pipeline.NewNote{Content: "Seen."})
		require.NoError(t, err)
		log := w.Activity(t)
		require.Len(t, log, 2)
		for _, a := range log {
			assert.Equal(t, w.User("adam"), a.UserID)
			assert.Equal(t, w.Res.Teams["acme"], a.TeamID)
		}
	})
}

// TestService_CandidateVisibility: a candidate is reached through its own
// job only, and only when that job is reachable.
func TestService_CandidateVisibility(t *testing.T) {
	eachWorld(t, "through another job, even a reachable one, it is not found", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		for _, tc := range []struct{ job, cand string }{
			{"backend", "ken"}, {"frontend", "ada"}, {"design", "grace"}, {"archive", "don"}, {"backend", "ola"},
		} {
			job, cand := w.Job(tc.job), w.Res.Candidates[tc.cand]
			_, err := w.Svc.GetCandidate(ctx, job, cand)
			assert.ErrorIs(t, err, pipeline.ErrNotFound, "%s through %s", tc.cand, tc.job)
			_, err = w.Svc.MoveCandidate(ctx, job, cand, pipeline.CandidateMove{StageID: w.Res.Stages[tc.job]["Hired"]})
			assert.ErrorIs(t, err, pipeline.ErrNotFound, "move %s through %s", tc.cand, tc.job)
			_, err = w.Svc.AddNote(ctx, job, cand, pipeline.NewNote{Content: "x"})
			assert.ErrorIs(t, err, pipeline.ErrNotFound, "note %s through %s", tc.cand, tc.job)
			_, err = w.Svc.RateCandidate(ctx, job, cand, pipeline.NewRating{Value: pipeline.Maybe})
			assert.ErrorIs(t, err, pipeline.ErrNotFound, "rate %s through %s", tc.cand, tc.job)
		}
		assert.Empty(t, w.Activity(t))
	})
	eachWorld(t, "a member reaches the candidates of their jobs only", func(t *testing.T, w world) {
		mia := w.As(t, "mia")
		l, err := w.Svc.ListCandidates(mia, w.Job("backend"), pipeline.CandidateFilter{})
		require.NoError(t, err)
		assert.Equal(t, 3, l.Total)
		c, err := w.Svc.GetCandidate(mia, w.Job("backend"), w.Res.Candidates["ada"])
		require.NoError(t, err)
		assert.Equal(t, "Ada Lovelace", c.Name)
		_, err = w.Svc.GetCandidate(mia, w.Job("frontend"), w.Res.Candidates["ken"])
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		_, err = w.Svc.GetCandidate(w.As(t, "gary"), w.Job("backend"), w.Res.Candidates["ada"])
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
	})
}

// TestService_WebhookVisibility: a webhook belongs to its team: another
// team's owner does not reach it, and members of its own team may not
// manage it.
func TestService_WebhookVisibility(t *testing.T) {
	eachWorld(t, "another team's webhook is not found", func(t *testing.T, w world) {
		h := newHook(t, w, "olivia", "https://hooks.example.test/acme")
		gary := w.As(t, "gary")
		_, err := w.Svc.GetWebhook(gary, h.ID)
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		_, err = w.Svc.ListWebhookDeliveries(gary, h.ID, 1)
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		_, err = w.Svc.DeleteWebhook(gary, h.ID, pipeline.WebhookDeletion{})
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		l, err := w.Svc.ListWebhooks(gary, 1)
		require.NoError(t, err)
		assert.Zero(t, l.Total)
		_, err = w.Svc.GetWebhook(w.As(t, "adam"), h.ID)
		assert.NoError(t, err, "an admin of the team reaches its owner's webhook")
	})
	eachWorld(t, "members of the team may not manage its webhooks", func(t *testing.T, w world) {
		h := newHook(t, w, "adam", "https://hooks.example.test/acme")
		for _, member := range []string{"mia", "nina"} {
			ctx := w.As(t, member)
			_, err := w.Svc.CreateWebhook(ctx, pipeline.NewWebhook{URL: "https://hooks.example.test/mine"})
			assert.ErrorIs(t, err, pipeline.ErrForbidden)
			_, err = w.Svc.ListWebhooks(ctx, 1)
			assert.ErrorIs(t, err, pipeline.ErrForbidden)
			_, err = w.Svc.GetWebhook(ctx, h.ID)
			assert.ErrorIs(t, err, pipeline.ErrForbidden)
			_, err = w.Svc.DeleteWebhook(ctx, h.ID, pipeline.WebhookDeletion{})
			assert.ErrorIs(t, err, pipeline.ErrForbidden)
			_, err = w.Svc.ListWebhookDeliveries(ctx, h.ID, 1)
			assert.ErrorIs(t, err, pipeline.ErrForbidden)
		}
		_, err := w.Svc.GetWebhook(w.As(t, "olivia"), h.ID)
		assert.NoError(t, err, "the webhook is still there")
	})
}
