package pipelinestore_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestDeliveries_PeriodicPurge: the queue that delivers webhooks purges
// expired idempotency records and old delivery attempts, at once and then
// every period, even with no delivery workers; what is recent stays. On
// PostgreSQL this needs River to elect a leader, which schedules periodic
// jobs.
func TestDeliveries_PeriodicPurge(t *testing.T) {
	for name, workers := range map[string]int{"with workers": 1, "without workers": 0} {
		t.Run(name, func(t *testing.T) {
			storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
				testPeriodicPurge(t, db, workers)
			})
		})
	}
}

func testPeriodicPurge(t *testing.T, db *pipelinestore.DB, workers int) {
	ctx := context.Background()
	f := webhookFixture(t, db)
	// Nothing logged here is sent to it: no attempt but those recorded
	// below.
	w, err := f.Svc.CreateWebhook(f.As(t, "olivia"), pipeline.NewWebhook{
		URL: "https://hooks.example.test", Events: []string{pipeline.ActionJobCreated},
	})
	require.NoError(t, err)
	entry := f.Activity(t)[0].ID
	now := time.Now().UTC().Truncate(time.Second)
	old := func(key string) {
		require.NoError(t, db.Webhooks().RecordDelivery(ctx, pipeline.Delivery{
			WebhookID: w.Value.ID, ActivityID: entry, Attempt: 1, AttemptedAt: now.Add(-pipeline.DeliveryRetention - time.Hour),
		}))
		require.NoError(t, db.Write(ctx, func(tx pipeline.Tx) error {
			return tx.Idempotency().Save(ctx, pipeline.IdempotencyRecord{
				TeamID: f.Res.Teams["acme"], Key: key, UserID: f.User("olivia"), Request: "POST /jobs {}",
				Result: []byte(`{}`), CreatedAt: now.Add(-pipeline.IdempotencyWindow - time.Hour),
			})
		}))
	}
	count := func(table string) int {
		var n int
		require.NoError(t, pipelinestore.Query(ctx, db, "SELECT count(*) FROM "+table, &n))
		return n
	}
	purged := func(round string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for (count("webhook_deliveries") > 1 || count("idempotency_keys") > 1) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		assert.Equal(t, 1, count("webhook_deliveries"), round+": the recent attempt stays")
		assert.Equal(t, 1, count("idempotency_keys"), round+": the live record stays")
	}
	// What is recent stays.
	require.NoError(t, db.Webhooks().RecordDelivery(ctx, pipeline.Delivery{WebhookID: w.Value.ID, ActivityID: entry, Attempt: 1, AttemptedAt: now}))
	require.NoError(t, db.Write(ctx, func(tx pipeline.Tx) error {
		return tx.Idempotency().Save(ctx, pipeline.IdempotencyRecord{
			TeamID: f.Res.Teams["acme"], Key: "live", UserID: f.User("olivia"), Request: "POST /jobs {}",
			Result: []byte(`{}`), CreatedAt: now,
		})
	}))
	old("first")

	sender := pipelinehttp.NewWebhookSender(pipelinehttp.WebhookSenderConfig{})
	d := pipeline.NewDispatcher(db, sender, pipeline.WithSecretKey(secretKey))
	run, err := db.StartDeliveries(ctx, d, pipelinestore.DeliveryConfig{
		Workers: workers, PollInterval: 20 * time.Millisecond, PurgeInterval: 200 * time.Millisecond, PollOnly: storetest.Pooled(),
	})
	require.NoError(t, err)
	defer func() { require.NoError(t, run.Stop(ctx)) }()
	purged("at start")

	old("second")
	purged("a period later")
}

// TestDeliveries_LaterRetry: a retry that comes due later than River's
// scheduler runs (every 5 s) is made too: River's leader moves it back
// onto the queue, which on PostgreSQL needs its election to work.
func TestDeliveries_LaterRetry(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a retry")
	}
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := webhookFixture(t, db)
		var hits atomic.Int64
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			if hits.Add(1) == 1 {
				w.WriteHeader(http.StatusInternalServerError)
			}
		}))
		defer rc.Close()
		olivia := f.As(t, "olivia")
		w, err := f.Svc.CreateWebhook(olivia, pipeline.NewWebhook{URL: rc.URL, Events: []string{pipeline.ActionJobCreated}})
		require.NoError(t, err)
		_, err = f.Svc.CreateJob(olivia, pipeline.NewJob{Title: "Data Engineer"})
		require.NoError(t, err)

		sender := pipelinehttp.NewWebhookSender(pipelinehttp.WebhookSenderConfig{AllowPrivate: true})
		d := pipeline.NewDispatcher(db, sender, pipeline.WithSecretKey(secretKey), pipeline.WithRetrySchedule([]time.Duration{6 * time.Second}))
		run, err := db.StartDeliveries(context.Background(), d, pipelinestore.DeliveryConfig{Workers: 1, PollInterval: 20 * time.Millisecond, PollOnly: storetest.Pooled()})
		require.NoError(t, err)
		defer func() { require.NoError(t, run.Stop(context.Background())) }()

		var got pipeline.List[pipeline.Delivery]
		for deadline := time.Now().Add(30 * time.Second); len(got.Items) < 2 && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
			got, err = f.Svc.ListWebhookDeliveries(olivia, w.Value.ID, 1)
			require.NoError(t, err)
		}
		require.Len(t, got.Items, 2)
		assert.Equal(t, 2, got.Items[0].Attempt)
		assert.Empty(t, got.Items[0].Error, "the retry was delivered")
	})
}

// TestDeliveries_Listen: on PostgreSQL the queue takes a message when its
// write commits, told by River's notification, not at its next poll,
// here an hour away.
func TestDeliveries_Listen(t *testing.T) {
	if storetest.Pooled() {
		t.Skip("behind a transaction pooler the queue polls")
	}
	db := storetest.OpenPostgres(t)
	f := webhookFixture(t, db)
	hits := make(chan struct{}, 1)
	rc := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits <- struct{}{} }))
	defer rc.Close()
	olivia := f.As(t, "olivia")
	_, err := f.Svc.CreateWebhook(olivia, pipeline.NewWebhook{URL: rc.URL, Events: []string{pipeline.ActionJobCreated}})
	require.NoError(t, err)

	sender := pipelinehttp.NewWebhookSender(pipelinehttp.WebhookSenderConfig{AllowPrivate: true})
	d := pipeline.NewDispatcher(db, sender, pipeline.WithSecretKey(secretKey))
	run, err := db.StartDeliveries(context.Background(), d, pipelinestore.DeliveryConfig{Workers: 1, PollInterval: time.Hour})
	require.NoError(t, err)
	defer func() { require.NoError(t, run.Stop(context.Background())) }()
	// River's producers fetch once as they start: the write comes after.
	time.Sleep(500 * time.Millisecond)

	_, err = f.Svc.CreateJob(olivia, pipeline.NewJob{Title: "Data Engineer"})
	require.NoError(t, err)
	select {
	case <-hits:
	case <-time.After(30 * time.Second):
		t.Fatal("the message was not delivered: the queue did not hear of it")
	}
}
