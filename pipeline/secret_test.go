package pipeline_test

import (
	"context"
	"crypto/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// recorder is a Sender that keeps what it is given and answers 200.
type recorder struct{ sent []pipeline.Outgoing }

func (r *recorder) Send(_ context.Context, o pipeline.Outgoing) pipeline.Reply {
	r.sent = append(r.sent, o)
	return pipeline.Reply{StatusCode: 200}
}

// sealedUnder creates a webhook as the fixture's olivia through a Service
// sealing with key, and returns it with its secret and the message of its
// creation.
func sealedUnder(t *testing.T, db *pipelinestore.DB, key *pipeline.SecretKey) (pipeline.CreatedWebhook, pipeline.WebhookMessage) {
	t.Helper()
	svc := pipeline.NewService(db, pipeline.WithSecretKey(key),
		pipeline.WithWebhookPolicy(pipeline.WebhookPolicy{AllowHTTP: true, AllowPrivate: true}))
	olivia, err := db.Users().ByEmail(context.Background(), pipeline.UserByEmailParams{Email: "olivia@acme.test"})
	require.NoError(t, err)
	c, err := pipeline.NewOperator(db).ActAs(context.Background(), olivia.ID, []pipeline.Scope{pipeline.ScopeWebhooksWrite})
	require.NoError(t, err)
	res, err := svc.CreateWebhook(pipeline.NewContext(context.Background(), c), pipeline.NewWebhook{URL: "https://hooks.example.test"})
	require.NoError(t, err)
	log, err := pipeline.NewOperator(db).ActivityLog(context.Background(), nil)
	require.NoError(t, err)
	return res.Value, pipeline.WebhookMessage{WebhookID: res.Value.ID, ActivityID: log[len(log)-1].ID}
}

// sends reports the secret a Dispatcher sealing with key sends m with.
func sends(t *testing.T, db *pipelinestore.DB, key *pipeline.SecretKey, m pipeline.WebhookMessage) string {
	t.Helper()
	r := &recorder{}
	require.NoError(t, pipeline.NewDispatcher(db, r, pipeline.WithSecretKey(key)).Deliver(context.Background(), m, 1))
	require.Len(t, r.sent, 1, "the secret was opened and sent")
	return r.sent[0].Secret
}

func newKey(t *testing.T) *pipeline.SecretKey {
	raw := make([]byte, pipeline.SecretKeyLength)
	_, err := rand.Read(raw)
	require.NoError(t, err)
	k, err := pipeline.NewSecretKey(raw)
	require.NoError(t, err)
	return k
}

func TestServerSecretKey(t *testing.T) {
	ctx := context.Background()
	seed := func(t *testing.T, db *pipelinestore.DB) {
		storetest.Seed(t, pipeline.NewOperator(db))
	}
	t.Run("none configured: the kept key, the same for every server", func(t *testing.T) {
		storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
			seed(t, db)
			first, kept, err := pipeline.ServerSecretKey(ctx, nil, db)
			require.NoError(t, err)
			assert.True(t, kept)
			w, m := sealedUnder(t, db, first)
			again, kept, err := pipeline.ServerSecretKey(ctx, nil, db)
			require.NoError(t, err)
			assert.True(t, kept)
			assert.Equal(t, w.Secret, sends(t, db, again, m))
		})
	})
	t.Run("configured: it seals, and opens what the kept key sealed", func(t *testing.T) {
		storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
			seed(t, db)
			before, _, err := pipeline.ServerSecretKey(ctx, nil, db)
			require.NoError(t, err)
			old, oldMsg := sealedUnder(t, db, before)

			configured := newKey(t)
			key, kept, err := pipeline.ServerSecretKey(ctx, configured, db)
			require.NoError(t, err)
			assert.False(t, kept)
			w, m := sealedUnder(t, db, key)
			assert.Equal(t, old.Secret, sends(t, db, key, oldMsg))
			assert.Equal(t, w.Secret, sends(t, db, configured, m), "sealed under the configured key")
		})
	})
	t.Run("configured, none kept: none is made", func(t *testing.T) {
		storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
			configured := newKey(t)
			key, kept, err := pipeline.ServerSecretKey(ctx, configured, db)
			require.NoError(t, err)
			assert.False(t, kept)
			assert.Same(t, configured, key)
			raw, err := db.StoredSecretKey(ctx, false)
			require.NoError(t, err)
			assert.Nil(t, raw)
		})
	})
}

func TestSecretKey_Errors(t *testing.T) {
	for _, s := range []string{"", "abc", "00112233"} {
		_, err := pipeline.ParseSecretKey(s)
		assert.ErrorIs(t, err, pipeline.ErrSecretKeyFormat, s)
	}
	_, err := pipeline.NewSecretKey(make([]byte, 16))
	assert.ErrorIs(t, err, pipeline.ErrSecretKeyFormat)
}
