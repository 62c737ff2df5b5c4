package pipelinestore

import (
	"context"
	"iter"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// BlobStore keeps documents' bytes outside the database (an S3-compatible
// object store: see OpenS3), under keys the store chooses from the
// documents' ids.
type BlobStore interface {
	// Put stores content under key.
	Put(ctx context.Context, key string, content []byte) error
	// Open returns the bytes under key; not_found when there are none.
	Open(ctx context.Context, key string) (pipeline.Content, error)
	// Remove deletes the bytes under key; none there is no error.
	Remove(ctx context.Context, key string) error
	// List yields every key below prefix with the time it was written.
	List(ctx context.Context, prefix string) iter.Seq2[BlobInfo, error]
}

// BlobInfo is a key of a BlobStore and when it was written.
type BlobInfo struct {
	Key      string
	Modified time.Time
}

// WithBlobStore keeps documents' bytes in b instead of the database.
func WithBlobStore(b BlobStore) Option { return func(o *options) { o.blobs = b } }

// blobPrefix is where documents' bytes are kept in a BlobStore.
const blobPrefix = "documents/"

// blobKey is the key of a document's bytes: its id, never its name.
func blobKey(id int64) string { return blobPrefix + strconv.FormatInt(id, 10) }

// OrphanAge is how old an object with no document must be before
// RemoveOrphans takes it: older than any upload still in flight.
const OrphanAge = time.Hour

// orphanBatch is how many keys RemoveOrphans checks against the
// documents in one query.
const orphanBatch = 100

// RemoveOrphans deletes the bytes in the BlobStore that no document
// holds and that were written before now minus OrphanAge: those of an
// upload whose transaction failed after they were written, or of a
// removal that stopped between its commit and their deletion. It returns
// how many it removed; without a BlobStore it does nothing. The keys
// are checked orphanBatch at a time.
func (db *DB) RemoveOrphans(ctx context.Context, now time.Time) (int64, error) {
	if db.blobs == nil {
		return 0, nil
	}
	var n int64
	ids := make([]int64, 0, orphanBatch)
	keys := make([]string, 0, orphanBatch)
	check := func() error {
		if len(ids) == 0 {
			return nil
		}
		a := make([]any, orphanBatch)
		for i := range a {
			a[i] = int64(0)
		}
		for i, id := range ids {
			a[i] = id
		}
		var held []int64
		if err := db.write().all(ctx, db.q.DocumentsHeld, a, &held); err != nil {
			return formatError(err, "Document")
		}
		for i, id := range ids {
			if slices.Contains(held, id) {
				continue
			}
			if err := db.blobs.Remove(ctx, keys[i]); err != nil {
				return err
			}
			n++
		}
		ids, keys = ids[:0], keys[:0]
		return nil
	}
	for info, err := range db.blobs.List(ctx, blobPrefix) {
		if err != nil {
			return n, err
		}
		id, err := strconv.ParseInt(strings.TrimPrefix(info.Key, blobPrefix), 10, 64)
		if err != nil || id <= 0 || !info.Modified.Before(now.Add(-OrphanAge)) {
			continue
		}
		ids, keys = append(ids, id), append(keys, info.Key)
		if len(ids) == orphanBatch {
			if err := check(); err != nil {
				return n, err
			}
		}
	}
	return n, check()
}

// OrphanInterval is how often the queue runs RemoveOrphans when the
// store has a BlobStore.
const OrphanInterval = time.Hour

// orphanArgs is the periodic pass of RemoveOrphans as a River job's
// arguments.
type orphanArgs struct{}

// Kind names the job kind.
func (orphanArgs) Kind() string { return "pipeline_blob_orphans" }

// InsertOpts puts passes on the maintenance queue; one that fails is not
// retried: the next one comes.
func (orphanArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: purgeQueue, MaxAttempts: 1}
}

// orphanJob is the periodic pass, every OrphanInterval and once when a
// client becomes River's leader, so that it runs once across replicas.
func orphanJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(OrphanInterval),
		func() (river.JobArgs, *river.InsertOpts) { return orphanArgs{}, nil },
		&river.PeriodicJobOpts{ID: "pipeline_blob_orphans", RunOnStart: true})
}

// orphanWorker works River's passes of RemoveOrphans.
type orphanWorker struct {
	river.WorkerDefaults[orphanArgs]
	db    *DB
	clock pipeline.Clock
	log   *slog.Logger
}

func (w *orphanWorker) Work(ctx context.Context, _ *river.Job[orphanArgs]) error {
	n, err := w.db.RemoveOrphans(ctx, w.clock.Now())
	if n > 0 {
		w.log.Info("removed the bytes of no document from the object store", "count", n)
	}
	return err
}

func (w *orphanWorker) Timeout(*river.Job[orphanArgs]) time.Duration { return purgeJobTimeout }

// addOrphans adds the periodic pass of RemoveOrphans when the store has
// a BlobStore.
func (db *DB) addOrphans(workers *river.Workers, periodic []*river.PeriodicJob, cfg DeliveryConfig, log *slog.Logger) []*river.PeriodicJob {
	if db.blobs == nil {
		return periodic
	}
	clock := cfg.Clock
	if clock == nil {
		clock = pipeline.SystemClock{}
	}
	river.AddWorker(workers, &orphanWorker{db: db, clock: clock, log: log})
	return append(periodic, orphanJob())
}
