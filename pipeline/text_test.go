package pipeline_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// badText is text that cannot be stored as given: a NUL character, bytes
// that are not UTF-8, and a lone surrogate as WTF-8 would carry it.
var badText = map[string]string{
	"NUL":            "a\x00b",
	"invalid UTF-8":  "\xff\xfe",
	"lone surrogate": "\xed\xa0\x80",
	"overlong slash": "\xc0\xaf",
}

func TestValidText(t *testing.T) {
	for _, s := range []string{"", "Ingénieur", "😀", "tab\tand\nnewline", "\u00a0"} {
		assert.True(t, pipeline.ValidText(s), "%q", s)
	}
	for name, s := range badText {
		assert.False(t, pipeline.ValidText(s), name)
	}
}

// TestService_Text: every string an operation stores or searches for is
// refused when it is not valid text, naming its field, and nothing is
// written; valid text, a character outside the BMP included, is stored as
// it was given.
func TestService_Text(t *testing.T) {
	for name, bad := range badText {
		each(t, name, func(t *testing.T, w world) {
			ctx := w.As(t, "olivia")
			job, ada := w.Job("backend"), w.Res.Candidates["ada"]
			calls := map[string]func() error{
				"title": func() error {
					_, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Engineer " + bad})
					return err
				},
				"description": func() error {
					_, err := w.Svc.UpdateJob(ctx, job, pipeline.JobPatch{Description: &bad})
					return err
				},
				"content": func() error {
					_, err := w.Svc.AddNote(ctx, job, ada, pipeline.NewNote{Content: "Call " + bad})
					return err
				},
				"search": func() error {
					_, err := w.Svc.ListJobs(ctx, pipeline.JobFilter{Search: bad})
					return err
				},
				"url": func() error {
					_, err := w.Svc.CreateWebhook(ctx, pipeline.NewWebhook{URL: "https://hooks.example.test/" + bad})
					return err
				},
			}
			for field, call := range calls {
				err := call()
				require.ErrorIs(t, err, pipeline.ErrValidation, field)
				assert.Contains(t, pipeline.Fields(err), field)
			}
			_, err := w.Svc.ListCandidates(ctx, job, pipeline.CandidateFilter{Search: bad})
			require.ErrorIs(t, err, pipeline.ErrValidation)
			assert.Contains(t, pipeline.Fields(err), "search")
			_, err = w.Svc.CreateWebhook(ctx, pipeline.NewWebhook{URL: "https://hooks.example.test/", Description: bad})
			require.ErrorIs(t, err, pipeline.ErrValidation)
			assert.Contains(t, pipeline.Fields(err), "description", "a webhook's")
			assert.Empty(t, w.Activity(t), "nothing was written")
		})
	}
	each(t, "stored as given", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		const content = "Grinning 😀, naïve, tab\tnewline\n"
		res, err := w.Svc.AddNote(ctx, w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewNote{Content: content})
		require.NoError(t, err)
		assert.Equal(t, content, res.Value.Content)
	})
}

func TestOperator_Text(t *testing.T) {
	each(t, "token name", func(t *testing.T, w world) {
		_, _, err := w.Op.IssueToken(context.Background(), pipeline.TokenRequest{
			UserEmail: "olivia@acme.test", Name: "bot\x00", Scopes: []pipeline.Scope{pipeline.ScopeJobsRead},
		})
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Contains(t, pipeline.Fields(err), "name")
	})
	each(t, "teams and users", func(t *testing.T, w world) {
		ctx := context.Background()
		for field, team := range map[string]pipeline.NewTeam{
			"key":  {Key: "acme\xff", Name: "Acme Two"},
			"name": {Key: "acme-two", Name: "Acme\x00Two"},
		} {
			_, err := w.Op.CreateTeam(ctx, team)
			require.ErrorIs(t, err, pipeline.ErrValidation, field)
			assert.Contains(t, pipeline.Fields(err), field)
		}
		for field, m := range map[string]pipeline.NewMember{
			"email": {Email: "new\xc3@acme.test", Name: "New", TeamID: w.Res.Teams["acme"], Role: pipeline.RoleMember},
			"name":  {Email: "new@acme.test", Name: "New\x00", TeamID: w.Res.Teams["acme"], Role: pipeline.RoleMember},
		} {
			_, err := w.Op.AddUser(ctx, m)
			require.ErrorIs(t, err, pipeline.ErrValidation, field)
			assert.Contains(t, pipeline.Fields(err), field)
		}
		teams, err := w.Op.Teams(ctx)
		require.NoError(t, err)
		assert.Len(t, teams, len(w.Res.Teams), "no team was created")
	})
}
