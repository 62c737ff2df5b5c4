package pipeline_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// TestService_CreateWebhookRules: what creating a webhook stores, returns
// and logs, and which inputs it refuses.
func TestService_CreateWebhookRules(t *testing.T) {
	eachWorld(t, "created with its secret, shown this once", func(t *testing.T, w world) {
		ctx := w.As(t, "adam")
		res, err := w.Svc.CreateWebhook(ctx, pipeline.NewWebhook{
			URL:         "https://hooks.example.test/in",
			Events:      []string{pipeline.ActionCandidateRated, pipeline.ActionJobCreated, pipeline.ActionCandidateRated},
			Description: "Rated & created",
		})
		require.NoError(t, err)
		h := res.Value
		assert.False(t, res.Replayed)
		require.True(t, strings.HasPrefix(h.Secret, pipeline.WebhookSecretPrefix))
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(h.Secret, pipeline.WebhookSecretPrefix))
		require.NoError(t, err)
		assert.Len(t, raw, 32)
		assert.Equal(t, []string{pipeline.ActionJobCreated, pipeline.ActionCandidateRated}, h.Events, "in the order of the actions, once each")
		assert.Equal(t, pipeline.User{ID: w.User("adam"), Name: "Adam Admin"}, h.CreatedBy)
		assert.Equal(t, w.Res.Teams["acme"], h.TeamID)
		assert.NotContains(t, string(h.SealedSecret), h.Secret[len(pipeline.WebhookSecretPrefix):])

		got, err := w.Svc.GetWebhook(w.As(t, "olivia"), h.ID)
		require.NoError(t, err)
		assert.Equal(t, h.URL, got.URL)
		assert.Equal(t, h.Events, got.Events)
		assert.Equal(t, h.Description, got.Description)
		assert.Equal(t, h.CreatedBy, got.CreatedBy)
		assert.True(t, h.CreatedAt.Equal(got.CreatedAt))

		other := newHook(t, w, "adam", "https://hooks.example.test/in")
		assert.NotEqual(t, h.Secret, other.Secret, "every webhook has a secret of its own")
		assert.Empty(t, other.Events, "no events: every action")
		assert.True(t, other.Selects(pipeline.ActionWebhookDeleted))
		assert.False(t, h.Selects(pipeline.ActionJobUpdated))

		log := w.Activity(t)
		require.Len(t, log, 2)
		a := log[0]
		assert.Equal(t, pipeline.ActionWebhookCreated, a.Action)
		assert.Equal(t, pipeline.SubjectWebhook, a.SubjectType)
		assert.Equal(t, h.ID, a.SubjectID)
		assert.Zero(t, a.JobID, "a webhook's entry concerns no job")
		assert.Equal(t, w.Res.Teams["acme"], a.TeamID)
		assert.Equal(t, map[string]any{
			"url":         map[string]any{"before": nil, "after": "https://hooks.example.test/in"},
			"events":      map[string]any{"before": nil, "after": []any{"job.created", "candidate.rated"}},
			"description": map[string]any{"before": nil, "after": "Rated & created"},
		}, changesOf(t, a))
		assert.NotContains(t, string(a.Changes), h.Secret, "the secret is not logged")
	})
	eachWorld(t, "a replay returns the same webhook and secret", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		in := func() pipeline.NewWebhook {
			return pipeline.NewWebhook{URL: "https://hooks.example.test/once", Idempotency: &pipeline.Idempotency{Key: "hook-once"}}
		}
		first, err := w.Svc.CreateWebhook(ctx, in())
		require.NoError(t, err)
		again, err := w.Svc.CreateWebhook(ctx, in())
		require.NoError(t, err)
		assert.True(t, again.Replayed)
		assert.Equal(t, first.Value.ID, again.Value.ID)
		assert.Equal(t, first.Value.Secret, again.Value.Secret)
		l, err := w.Svc.ListWebhooks(ctx, 1)
		require.NoError(t, err)
		assert.Equal(t, 1, l.Total)
		assert.Len(t, w.Activity(t), 1)
	})
	strict := []pipeline.Option{pipeline.WithSecretKey(hookSecretKey)}
	lenient := hookOptions()
	eachWorld(t, "refused", func(t *testing.T, w world) {
		for _, tc := range []struct {
			name  string
			opts  []pipeline.Option
			in    pipeline.NewWebhook
			field string
		}{
			{"no url", lenient, pipeline.NewWebhook{}, "url"},
			{"a relative url", lenient, pipeline.NewWebhook{URL: "/hooks"}, "url"},
			{"another scheme", lenient, pipeline.NewWebhook{URL: "ftp://hooks.example.test/"}, "url"},
			{"user information", lenient, pipeline.NewWebhook{URL: "https://me:pw@hooks.example.test/"}, "url"},
			{"a fragment", lenient, pipeline.NewWebhook{URL: "https://hooks.example.test/#x"}, "url"},
			{"a url over 2048 bytes", lenient, pipeline.NewWebhook{URL: "https://hooks.example.test/" + strings.Repeat("a", 2048)}, "url"},
			{"http unless allowed", strict, pipeline.NewWebhook{URL: "http://93.184.216.34/"}, "url"},
			{"a loopback address unless allowed", strict, pipeline.NewWebhook{URL: "https://127.0.0.1/"}, "url"},
			{"a private address unless allowed", strict, pipeline.NewWebhook{URL: "https://[fd00::1]:8443/"}, "url"},
			{"an unknown event", lenient, pipeline.NewWebhook{URL: "https://hooks.example.test/", Events: []string{"job.created", "Job.Created"}}, "events"},
			{"a description over 1,000 characters", lenient, pipeline.NewWebhook{URL: "https://hooks.example.test/", Description: strings.Repeat("é", 1001)}, "description"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				svc := pipeline.NewService(w.DB, tc.opts...)
				_, err := svc.CreateWebhook(w.As(t, "olivia"), tc.in)
				require.ErrorIs(t, err, pipeline.ErrValidation)
				assert.Equal(t, []string{tc.field}, fieldNames(err))
			})
		}
		assert.Empty(t, w.Activity(t))
	})
	eachWorld(t, "accepted at the limits", func(t *testing.T, w world) {
		svc := pipeline.NewService(w.DB, pipeline.WithSecretKey(hookSecretKey))
		ctx := w.As(t, "olivia")
		_, err := svc.CreateWebhook(ctx, pipeline.NewWebhook{URL: "https://93.184.216.34:8443/in?x=1", Description: strings.Repeat("é", 1000)})
		require.NoError(t, err, "a public address under the strict policy, 1,000 characters")
		_, err = svc.CreateWebhook(ctx, pipeline.NewWebhook{URL: "https://93.184.216.34/", Events: pipeline.Actions})
		require.NoError(t, err, "every action named")
	})
	eachWorld(t, "forbidden without a secret key", func(t *testing.T, w world) {
		_, err := pipeline.NewService(w.DB).CreateWebhook(w.As(t, "olivia"), pipeline.NewWebhook{URL: "https://93.184.216.34/"})
		require.ErrorIs(t, err, pipeline.ErrForbidden)
		l, err := w.Svc.ListWebhooks(w.As(t, "olivia"), 1)
		require.NoError(t, err)
		assert.Zero(t, l.Total)
		assert.Empty(t, w.Activity(t))
	})
}

// TestService_WebhookListAndDelete: the team's webhooks, newest first, and
// what deleting one does.
func TestService_WebhookListAndDelete(t *testing.T) {
	eachClockedWorld(t, "pages of the team's webhooks, newest first", func(t *testing.T, w world, clock *time.Time) {
		ctx := w.As(t, "olivia")
		newHook(t, w, "gary", "https://hooks.example.test/globex")
		for i := range pipeline.PageSize + 1 {
			*clock = clock.Add(time.Second)
			newHook(t, w, "olivia", fmt.Sprintf("https://hooks.example.test/%02d", i))
		}
		first, err := w.Svc.ListWebhooks(ctx, 0)
		require.NoError(t, err)
		assert.Equal(t, 1, first.Page, "page 0 is the first")
		assert.Equal(t, pipeline.PageSize+1, first.Total, "not another team's")
		require.Len(t, first.Items, pipeline.PageSize)
		assert.Equal(t, "https://hooks.example.test/15", first.Items[0].URL)
		second, err := w.Svc.ListWebhooks(ctx, 2)
		require.NoError(t, err)
		require.Len(t, second.Items, 1)
		assert.Equal(t, "https://hooks.example.test/00", second.Items[0].URL)
		past, err := w.Svc.ListWebhooks(ctx, 3)
		require.NoError(t, err)
		assert.Empty(t, past.Items)
		_, err = w.Svc.ListWebhooks(ctx, -1)
		require.ErrorIs(t, err, pipeline.ErrValidation)
		assert.Equal(t, []string{"page"}, fieldNames(err))
	})
	eachWorld(t, "a deleted webhook is gone and its deletion logged", func(t *testing.T, w world) {
		ctx := w.As(t, "adam")
		h := newHook(t, w, "olivia", "https://hooks.example.test/gone", pipeline.ActionJobCreated)
		keep := newHook(t, w, "olivia", "https://hooks.example.test/kept")
		res, err := w.Svc.DeleteWebhook(ctx, h.ID, pipeline.WebhookDeletion{})
		require.NoError(t, err)
		assert.False(t, res.Replayed)
		_, err = w.Svc.GetWebhook(ctx, h.ID)
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		_, err = w.Svc.ListWebhookDeliveries(ctx, h.ID, 1)
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		_, err = w.Svc.DeleteWebhook(ctx, h.ID, pipeline.WebhookDeletion{})
		assert.ErrorIs(t, err, pipeline.ErrNotFound, "deleting twice")
		l, err := w.Svc.ListWebhooks(ctx, 1)
		require.NoError(t, err)
		require.Len(t, l.Items, 1)
		assert.Equal(t, keep.ID, l.Items[0].ID)

		log := w.Activity(t)
		require.Len(t, log, 3)
		a := log[2]
		assert.Equal(t, pipeline.ActionWebhookDeleted, a.Action)
		assert.Equal(t, h.ID, a.SubjectID)
		assert.Equal(t, w.User("adam"), a.UserID, "the deleting user, not the creator")
		assert.Zero(t, a.JobID)
		assert.Equal(t, map[string]any{
			"url":         map[string]any{"before": "https://hooks.example.test/gone", "after": nil},
			"events":      map[string]any{"before": []any{"job.created"}, "after": nil},
			"description": map[string]any{"before": "", "after": nil},
		}, changesOf(t, a))
	})
	eachWorld(t, "a deletion repeated with its key replays, though the record is gone", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		h := newHook(t, w, "olivia", "https://hooks.example.test/gone")
		other := newHook(t, w, "olivia", "https://hooks.example.test/other")
		res, err := w.Svc.DeleteWebhook(ctx, h.ID, pipeline.WebhookDeletion{Idempotency: &pipeline.Idempotency{Key: "delete-it"}})
		require.NoError(t, err)
		assert.False(t, res.Replayed)
		res, err = w.Svc.DeleteWebhook(ctx, h.ID, pipeline.WebhookDeletion{Idempotency: &pipeline.Idempotency{Key: "delete-it"}})
		require.NoError(t, err)
		assert.True(t, res.Replayed)
		_, err = w.Svc.DeleteWebhook(ctx, h.ID, pipeline.WebhookDeletion{Idempotency: &pipeline.Idempotency{Key: "delete-again"}})
		assert.ErrorIs(t, err, pipeline.ErrNotFound, "another key finds the webhook gone")
		assert.Equal(t, []string{pipeline.ActionWebhookCreated, pipeline.ActionWebhookCreated, pipeline.ActionWebhookDeleted}, actionsOf(w.Activity(t)))
		_, err = w.Svc.DeleteWebhook(ctx, other.ID, pipeline.WebhookDeletion{Idempotency: &pipeline.Idempotency{Key: "delete-it"}})
		require.ErrorIs(t, err, pipeline.ErrValidation, "the key was used for another webhook")
		assert.Equal(t, []string{pipeline.IdempotencyField}, fieldNames(err))
		_, err = w.Svc.GetWebhook(ctx, other.ID)
		assert.NoError(t, err, "and the other webhook stays")
	})
}

// reply is a Sender whose receiver always answers status.
type reply int

func (r reply) Send(context.Context, pipeline.Outgoing) pipeline.Reply {
	return pipeline.Reply{StatusCode: int(r), Duration: time.Millisecond}
}

// TestService_WebhookDeliveries: the attempts of a webhook's deliveries,
// newest first, as the Dispatcher records them.
func TestService_WebhookDeliveries(t *testing.T) {
	eachWorld(t, "attempts newest first, each webhook its own", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		h := newHook(t, w, "olivia", "https://hooks.example.test/a")
		other := newHook(t, w, "olivia", "https://hooks.example.test/b")
		none, err := w.Svc.ListWebhookDeliveries(ctx, h.ID, 1)
		require.NoError(t, err)
		assert.Zero(t, none.Total, "nothing attempted yet")

		_, err = w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Announced"})
		require.NoError(t, err)
		log := w.Activity(t)
		m := pipeline.WebhookMessage{WebhookID: h.ID, ActivityID: log[len(log)-1].ID}
		failing := pipeline.NewDispatcher(w.DB, reply(500), hookOptions()...)
		require.ErrorIs(t, failing.Deliver(context.Background(), m, 1), pipeline.ErrDeliveryFailed)
		require.NoError(t, pipeline.NewDispatcher(w.DB, reply(204), hookOptions()...).Deliver(context.Background(), m, 2))

		l, err := w.Svc.ListWebhookDeliveries(ctx, h.ID, 1)
		require.NoError(t, err)
		require.Len(t, l.Items, 2)
		assert.Equal(t, 2, l.Total)
		latest, earlier := l.Items[0], l.Items[1]
		assert.Equal(t, 2, latest.Attempt)
		require.NotNil(t, latest.StatusCode)
		assert.Equal(t, 204, *latest.StatusCode)
		assert.Empty(t, latest.Error)
		assert.Nil(t, latest.NextAttemptAt)
		assert.Equal(t, 1, earlier.Attempt)
		assert.Equal(t, pipeline.ActionJobCreated, earlier.Action)
		assert.Equal(t, m.ActivityID, earlier.ActivityID)
		assert.NotEmpty(t, earlier.Error)
		assert.NotNil(t, earlier.NextAttemptAt, "a failed attempt is retried")

		o, err := w.Svc.ListWebhookDeliveries(ctx, other.ID, 1)
		require.NoError(t, err)
		assert.Zero(t, o.Total, "another webhook's attempts are not listed")
		_, err = w.Svc.ListWebhookDeliveries(ctx, h.ID, -1)
		assert.ErrorIs(t, err, pipeline.ErrValidation)
	})
	eachWorld(t, "pages of fifteen attempts", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		h := newHook(t, w, "olivia", "https://hooks.example.test/a")
		log := w.Activity(t)
		m := pipeline.WebhookMessage{WebhookID: h.ID, ActivityID: log[0].ID}
		d := pipeline.NewDispatcher(w.DB, reply(503), hookOptions(pipeline.WithRetrySchedule(make([]time.Duration, 20)))...)
		for attempt := 1; attempt <= pipeline.PageSize+2; attempt++ {
			require.ErrorIs(t, d.Deliver(context.Background(), m, attempt), pipeline.ErrDeliveryFailed)
		}
		first, err := w.Svc.ListWebhookDeliveries(ctx, h.ID, 0)
		require.NoError(t, err)
		assert.Equal(t, 1, first.Page)
		assert.Equal(t, pipeline.PageSize+2, first.Total)
		require.Len(t, first.Items, pipeline.PageSize)
		assert.Equal(t, pipeline.PageSize+2, first.Items[0].Attempt, "the latest first")
		second, err := w.Svc.ListWebhookDeliveries(ctx, h.ID, 2)
		require.NoError(t, err)
		require.Len(t, second.Items, 2)
		assert.Equal(t, 1, second.Items[1].Attempt)
		past, err := w.Svc.ListWebhookDeliveries(ctx, h.ID, 3)
		require.NoError(t, err)
		assert.Empty(t, past.Items)
		assert.Equal(t, pipeline.PageSize+2, past.Total, "past the last page, the total still counts")
	})
	eachWorld(t, "a receiver that answers 410 Gone deletes the webhook", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		h := newHook(t, w, "adam", "https://hooks.example.test/gone")
		_, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Announced"})
		require.NoError(t, err)
		log := w.Activity(t)
		m := pipeline.WebhookMessage{WebhookID: h.ID, ActivityID: log[len(log)-1].ID}
		require.NoError(t, pipeline.NewDispatcher(w.DB, reply(410), hookOptions()...).Deliver(context.Background(), m, 1))
		_, err = w.Svc.GetWebhook(ctx, h.ID)
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		log = w.Activity(t)
		last := log[len(log)-1]
		assert.Equal(t, pipeline.ActionWebhookDeleted, last.Action)
		assert.Equal(t, w.User("adam"), last.UserID, "in the name of its creator")
		assert.Zero(t, last.TokenID)
		assert.Equal(t, "The receiver answered 410 Gone.", changesOf(t, last)["reason"])
	})
}
