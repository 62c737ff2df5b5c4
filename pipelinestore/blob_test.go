package pipelinestore_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// readDocument returns the bytes the store holds for document id.
func readDocument(t *testing.T, db *pipelinestore.DB, id int64) ([]byte, error) {
	t.Helper()
	r, err := db.Documents().Open(context.Background(), pipeline.DocumentByIDParams{ID: id})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// TestDocuments_Bytes: a document's bytes read back as added, on every
// database and byte store, and go with it; nothing is left for the
// orphan pass.
func TestDocuments_Bytes(t *testing.T) {
	storetest.EachStore(t, func(t *testing.T, db *pipelinestore.DB) {
		ctx := context.Background()
		f := storetest.Seeded(t, db)
		olivia := f.As(t, "olivia")
		content := []byte("Ada Lovelace, analyst.\n")
		d, err := f.Svc.AddDocument(olivia, f.Job("backend"), f.Res.Candidates["ada"], pipeline.NewDocument{Filename: "cv.txt", Content: content})
		require.NoError(t, err)
		got, err := readDocument(t, db, d.Value.ID)
		require.NoError(t, err)
		assert.Equal(t, content, got)

		_, err = f.Svc.RemoveDocument(olivia, f.Job("backend"), f.Res.Candidates["ada"], d.Value.ID, pipeline.DocumentRemoval{})
		require.NoError(t, err)
		_, err = readDocument(t, db, d.Value.ID)
		assert.Equal(t, pipeline.ENotFound, pipeline.ErrorCode(err), "the bytes went with the document")
		n, err := db.RemoveOrphans(ctx, time.Now().Add(pipelinestore.OrphanAge+time.Minute))
		require.NoError(t, err)
		assert.Zero(t, n, "no orphan")
	})
}

// eachS3 runs fn on SQLite and PostgreSQL, each with its own place in
// the test bucket.
func eachS3(t *testing.T, fn func(t *testing.T, db *pipelinestore.DB, s *pipelinestore.S3)) {
	t.Run("sqlite", func(t *testing.T) {
		s := storetest.OpenS3(t)
		fn(t, storetest.OpenSQLite(t, pipelinestore.WithBlobStore(s)), s)
	})
	t.Run("postgres", func(t *testing.T) {
		storetest.PostgresDSN(t)
		s := storetest.OpenS3(t)
		fn(t, storetest.OpenPostgres(t, pipelinestore.WithBlobStore(s)), s)
	})
}

// keys lists the keys of s.
func keys(t *testing.T, s *pipelinestore.S3) []string {
	t.Helper()
	var out []string
	for info, err := range s.List(context.Background(), "") {
		require.NoError(t, err)
		out = append(out, info.Key)
	}
	return out
}

// TestS3_RemoveOrphans: the bytes of an upload whose transaction rolled
// back after they were written stay while they are younger than
// OrphanAge (an upload may still be in flight), then the pass removes
// them, and never the bytes of a document; the queue runs the pass.
func TestS3_RemoveOrphans(t *testing.T) {
	eachS3(t, func(t *testing.T, db *pipelinestore.DB, s *pipelinestore.S3) {
		ctx := context.Background()
		f := storetest.Seeded(t, db)
		content := []byte("Ada Lovelace, analyst.\n")
		kept, err := f.Svc.AddDocument(f.As(t, "olivia"), f.Job("backend"), f.Res.Candidates["ada"], pipeline.NewDocument{Filename: "cv.txt", Content: content})
		require.NoError(t, err)
		rollback := errors.New("rolled back")
		sum := sha256.Sum256([]byte("never committed"))
		err = db.Write(ctx, func(tx pipeline.Tx) error {
			_, err := tx.Documents().Insert(ctx, pipeline.InsertDocumentParams{Document: pipeline.Document{
				CandidateID: f.Res.Candidates["ada"], Kind: pipeline.DocumentResume, Filename: "lost.txt",
				ContentType: pipeline.TypeText, Size: 15, SHA256: hex.EncodeToString(sum[:]), TextStatus: pipeline.TextNone,
				UploadedBy: pipeline.User{ID: f.User("olivia")}, CreatedAt: time.Now(),
			}, Content: []byte("never committed")})
			require.NoError(t, err)
			return rollback
		})
		require.ErrorIs(t, err, rollback)
		require.Len(t, keys(t, s), 2, "the bytes are written before the commit")

		n, err := db.RemoveOrphans(ctx, time.Now())
		require.NoError(t, err)
		assert.Zero(t, n, "an orphan younger than OrphanAge may be an upload in flight")
		assert.Len(t, keys(t, s), 2)

		later := time.Now().Add(pipelinestore.OrphanAge + time.Minute)
		d := pipeline.NewDispatcher(db, pipelinehttp.NewWebhookSender(pipelinehttp.WebhookSenderConfig{}), pipeline.WithSecretKey(secretKey))
		run, err := db.StartDeliveries(ctx, d, pipelinestore.DeliveryConfig{
			PollInterval: 20 * time.Millisecond, PollOnly: storetest.Pooled(),
			Clock: pipeline.ClockFunc(func() time.Time { return later }),
		})
		require.NoError(t, err)
		defer func() { require.NoError(t, run.Stop(ctx)) }()
		for deadline := time.Now().Add(20 * time.Second); len(keys(t, s)) > 1 && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
		assert.Len(t, keys(t, s), 1, "the queue's pass removed the orphan")
		got, err := readDocument(t, db, kept.Value.ID)
		require.NoError(t, err)
		assert.Equal(t, content, got, "and left the document's bytes")
	})
}

// TestS3_ErasureRemovesBytes: erasing a person removes their documents'
// bytes from the object store once the erasure commits, not an hour
// later with the orphans.
func TestS3_ErasureRemovesBytes(t *testing.T) {
	eachS3(t, func(t *testing.T, db *pipelinestore.DB, s *pipelinestore.S3) {
		f := storetest.Seeded(t, db)
		olivia := f.As(t, "olivia")
		_, err := f.Svc.AddDocument(olivia, f.Job("backend"), f.Res.Candidates["ada"], pipeline.NewDocument{Filename: "cv.txt", Content: []byte("Ada Lovelace, ada@example.test")})
		require.NoError(t, err)
		_, err = f.Svc.AddDocument(olivia, f.Job("backend"), f.Res.Candidates["grace"], pipeline.NewDocument{Filename: "cv.txt", Content: []byte("Grace Hopper")})
		require.NoError(t, err)
		require.Len(t, keys(t, s), 2)
		_, err = f.Svc.ErasePerson(olivia, pipeline.PersonErasure{Email: "ada@example.test", Reasoned: pipeline.Because("Art. 17 request")})
		require.NoError(t, err)
		assert.Len(t, keys(t, s), 1, "Ada's bytes are gone; Grace's stay")
	})
}

// TestS3_RemoveOrphansInBatches: the pass checks keys a batch at a time;
// more orphans than a batch, among documents' bytes, all go, and the
// documents' bytes stay.
func TestS3_RemoveOrphansInBatches(t *testing.T) {
	eachS3(t, func(t *testing.T, db *pipelinestore.DB, s *pipelinestore.S3) {
		ctx := context.Background()
		f := storetest.Seeded(t, db)
		var kept []string
		for _, who := range []string{"ada", "grace"} {
			d, err := f.Svc.AddDocument(f.As(t, "olivia"), f.Job("backend"), f.Res.Candidates[who], pipeline.NewDocument{Filename: "cv.txt", Content: []byte(who)})
			require.NoError(t, err)
			kept = append(kept, "documents/"+strconv.FormatInt(d.Value.ID, 10))
		}
		const orphans = 150
		for i := range orphans {
			require.NoError(t, s.Put(ctx, "documents/"+strconv.Itoa(1000+i), []byte("orphan")))
		}
		n, err := db.RemoveOrphans(ctx, time.Now().Add(pipelinestore.OrphanAge+time.Minute))
		require.NoError(t, err)
		assert.Equal(t, int64(orphans), n)
		got := keys(t, s)
		slices.Sort(got)
		slices.Sort(kept)
		assert.Equal(t, kept, got)
	})
}
