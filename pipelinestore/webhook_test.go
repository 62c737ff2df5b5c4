package pipelinestore_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
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

var secretKey = func() *pipeline.SecretKey {
	k, err := pipeline.NewSecretKey(bytes.Repeat([]byte{7}, pipeline.SecretKeyLength))
	if err != nil {
		panic(err)
	}
	return k
}()

// webhookFixture is the fixture world with a Service that may create
// webhooks to this machine.
func webhookFixture(t *testing.T, db *pipelinestore.DB) fixture {
	return storetest.Seeded(t, db, pipeline.WithSecretKey(secretKey),
		pipeline.WithWebhookPolicy(pipeline.WebhookPolicy{AllowHTTP: true, AllowPrivate: true}))
}

func TestWebhooks_SecretAtRest(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := webhookFixture(t, db)
		res, err := f.Svc.CreateWebhook(f.As(t, "olivia"), pipeline.NewWebhook{URL: "https://hooks.example.test"})
		require.NoError(t, err)
		stored, err := pipelinestore.QueryBytes(db, `SELECT secret FROM webhooks WHERE id = $1`, res.Value.ID)
		require.NoError(t, err)
		assert.NotContains(t, string(stored), res.Value.Secret[len(pipeline.WebhookSecretPrefix):])
		assert.Len(t, stored, 12+len(res.Value.Secret)+16, "nonce, ciphertext and tag")
		other, err := pipeline.NewSecretKey(bytes.Repeat([]byte{8}, pipeline.SecretKeyLength))
		require.NoError(t, err)
		// A replay under another key cannot recover the secret.
		idem := &pipeline.Idempotency{Key: "k"}
		_, err = f.Svc.CreateWebhook(f.As(t, "olivia"), pipeline.NewWebhook{URL: "https://hooks.example.test/b", Idempotency: idem})
		require.NoError(t, err)
		svc := pipeline.NewService(db, pipeline.WithSecretKey(other),
			pipeline.WithWebhookPolicy(pipeline.WebhookPolicy{AllowPrivate: true}))
		c, err := svc.Authenticate(context.Background(), f.Res.Tokens["olivia"])
		require.NoError(t, err)
		_, err = svc.CreateWebhook(pipeline.NewContext(context.Background(), c),
			pipeline.NewWebhook{URL: "https://hooks.example.test/b", Idempotency: &pipeline.Idempotency{Key: "k"}})
		assert.Error(t, err)
	})
}

// TestDeliveries_CreatorDemoted: once the webhook's creator is no longer an
// owner or admin of the team, nothing more is sent, and the deliveries say
// why.
func TestDeliveries_CreatorDemoted(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := webhookFixture(t, db)
		var hits atomic.Int64
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
		defer rc.Close()
		adam := f.As(t, "adam")
		w, err := f.Svc.CreateWebhook(adam, pipeline.NewWebhook{URL: rc.URL, Events: []string{pipeline.ActionJobCreated}})
		require.NoError(t, err)
		require.NoError(t, pipelinestore.Exec(db, `UPDATE memberships SET role = 'member' WHERE user_id = $1`, f.User("adam")))
		_, err = f.Svc.CreateJob(f.As(t, "olivia"), pipeline.NewJob{Title: "Data Engineer"})
		require.NoError(t, err)

		sender := pipelinehttp.NewWebhookSender(pipelinehttp.WebhookSenderConfig{AllowPrivate: true})
		d := pipeline.NewDispatcher(db, sender, pipeline.WithSecretKey(secretKey))
		run, err := db.StartDeliveries(context.Background(), d, pipelinestore.DeliveryConfig{Workers: 1, PollInterval: 20 * time.Millisecond, PollOnly: storetest.Pooled()})
		require.NoError(t, err)
		defer func() { require.NoError(t, run.Stop(context.Background())) }()

		olivia := f.As(t, "olivia")
		var got pipeline.List[pipeline.Delivery]
		for deadline := time.Now().Add(20 * time.Second); len(got.Items) == 0 && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
			got, err = f.Svc.ListWebhookDeliveries(olivia, w.Value.ID, 1)
			require.NoError(t, err)
		}
		require.Len(t, got.Items, 1)
		assert.Contains(t, got.Items[0].Error, "no longer an owner or admin")
		assert.Equal(t, pipeline.ActionJobCreated, got.Items[0].Action)
		assert.Nil(t, got.Items[0].NextAttemptAt)
		assert.Zero(t, hits.Load())
	})
}

// TestDeliveries_LongerSchedule: a Dispatcher whose schedule promises
// more attempts than a message is queued for does not start; the
// contract's schedule and a shorter one do.
func TestDeliveries_LongerSchedule(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		sender := pipelinehttp.NewWebhookSender(pipelinehttp.WebhookSenderConfig{})
		cfg := pipelinestore.DeliveryConfig{Workers: 1, PollOnly: storetest.Pooled()}
		longer := append(slices.Clone(pipeline.RetrySchedule), time.Hour)
		d := pipeline.NewDispatcher(db, sender, pipeline.WithSecretKey(secretKey), pipeline.WithRetrySchedule(longer))
		_, err := db.StartDeliveries(context.Background(), d, cfg)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "9 attempts exceeds the 8")

		for _, schedule := range [][]time.Duration{pipeline.RetrySchedule, {time.Second}} {
			d := pipeline.NewDispatcher(db, sender, pipeline.WithSecretKey(secretKey), pipeline.WithRetrySchedule(schedule))
			run, err := db.StartDeliveries(context.Background(), d, cfg)
			require.NoError(t, err)
			require.NoError(t, run.Stop(context.Background()))
		}
	})
}

// TestDeliveries_Purge: attempts older than the retention are deleted.
func TestDeliveries_Purge(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := webhookFixture(t, db)
		olivia := f.As(t, "olivia")
		w, err := f.Svc.CreateWebhook(olivia, pipeline.NewWebhook{URL: "https://hooks.example.test"})
		require.NoError(t, err)
		entry := f.Activity(t)[0].ID
		now := time.Now()
		for _, at := range []time.Time{now.Add(-pipeline.DeliveryRetention - time.Hour), now} {
			require.NoError(t, db.Webhooks().RecordDelivery(context.Background(), pipeline.Delivery{
				WebhookID: w.Value.ID, ActivityID: entry, Attempt: 1, AttemptedAt: at,
			}))
		}
		n, err := f.Op.PurgeDeliveries(context.Background())
		require.NoError(t, err)
		assert.EqualValues(t, 1, n)
		left, err := f.Svc.ListWebhookDeliveries(olivia, w.Value.ID, 1)
		require.NoError(t, err)
		require.Len(t, left.Items, 1)
		assert.WithinDuration(t, now, left.Items[0].AttemptedAt, time.Second)
	})
}

// TestIDs_NeverReused: a deleted webhook's id, and a purged attempt's, is
// not handed out again, though it was the newest.
func TestIDs_NeverReused(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := webhookFixture(t, db)
		olivia := f.As(t, "olivia")
		first, err := f.Svc.CreateWebhook(olivia, pipeline.NewWebhook{URL: "https://hooks.example.test/a"})
		require.NoError(t, err)
		_, err = f.Svc.DeleteWebhook(olivia, first.Value.ID, pipeline.WebhookDeletion{})
		require.NoError(t, err)
		next, err := f.Svc.CreateWebhook(olivia, pipeline.NewWebhook{URL: "https://hooks.example.test/b"})
		require.NoError(t, err)
		assert.Greater(t, next.Value.ID, first.Value.ID)

		attempt := func(at time.Time) int64 {
			t.Helper()
			require.NoError(t, db.Webhooks().RecordDelivery(context.Background(), pipeline.Delivery{
				WebhookID: next.Value.ID, ActivityID: f.Activity(t)[0].ID, Attempt: 1, AttemptedAt: at,
			}))
			l, err := f.Svc.ListWebhookDeliveries(olivia, next.Value.ID, 1)
			require.NoError(t, err)
			require.NotEmpty(t, l.Items)
			return l.Items[0].ID
		}
		old := attempt(time.Now().Add(-pipeline.DeliveryRetention - time.Hour))
		n, err := f.Op.PurgeDeliveries(context.Background())
		require.NoError(t, err)
		require.EqualValues(t, 1, n, "every attempt purged")
		assert.Greater(t, attempt(time.Now()), old)
	})
}

// TestMigration_IDsNeverReused: building SQLite's webhook tables again
// keeps their rows, ids and references.
func TestMigration_IDsNeverReused(t *testing.T) {
	db := storetest.OpenSQLite(t)
	f := webhookFixture(t, db)
	olivia := f.As(t, "olivia")
	var ids []int64
	for _, u := range []string{"https://hooks.example.test/a", "https://hooks.example.test/b"} {
		w, err := f.Svc.CreateWebhook(olivia, pipeline.NewWebhook{URL: u})
		require.NoError(t, err)
		ids = append(ids, w.Value.ID)
	}
	require.NoError(t, db.Webhooks().RecordDelivery(context.Background(), pipeline.Delivery{
		WebhookID: ids[1], ActivityID: f.Activity(t)[0].ID, Attempt: 1, AttemptedAt: time.Now(),
	}))
	raw, err := os.ReadFile("migrations/sqlite/20261129000000_ids_never_reused.tx.up.sql")
	require.NoError(t, err)
	require.NoError(t, pipelinestore.ExecTx(db, strings.Split(string(raw), "--bun:split")...))

	hooks, err := f.Svc.ListWebhooks(olivia, 1)
	require.NoError(t, err)
	assert.Equal(t, []int64{ids[1], ids[0]}, []int64{hooks.Items[0].ID, hooks.Items[1].ID})
	got, err := f.Svc.ListWebhookDeliveries(olivia, ids[1], 1)
	require.NoError(t, err)
	assert.Len(t, got.Items, 1, "the attempts are kept")
	_, err = f.Svc.DeleteWebhook(olivia, ids[1], pipeline.WebhookDeletion{})
	require.NoError(t, err)
	var left int
	require.NoError(t, pipelinestore.Query(context.Background(), db, `SELECT count(*) FROM webhook_deliveries`, &left))
	assert.Zero(t, left, "a webhook's attempts still go with it")
	next, err := f.Svc.CreateWebhook(olivia, pipeline.NewWebhook{URL: "https://hooks.example.test/c"})
	require.NoError(t, err)
	assert.Greater(t, next.Value.ID, ids[1])
}

// TestStoredSecretKey: there is no key until one is asked for; then every
// caller, at once or later, reads the same 32 bytes.
func TestStoredSecretKey(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		ctx := context.Background()
		none, err := db.StoredSecretKey(ctx, false)
		require.NoError(t, err)
		assert.Nil(t, none)

		keys := make([][]byte, 8)
		var wg sync.WaitGroup
		for i := range keys {
			wg.Go(func() {
				k, err := db.StoredSecretKey(ctx, true)
				assert.NoError(t, err)
				keys[i] = k
			})
		}
		wg.Wait()
		require.Len(t, keys[0], pipeline.SecretKeyLength)
		for _, k := range keys {
			assert.Equal(t, keys[0], k)
		}
		later, err := db.StoredSecretKey(ctx, false)
		require.NoError(t, err)
		assert.Equal(t, keys[0], later)
	})
}
