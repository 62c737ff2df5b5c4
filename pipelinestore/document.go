package pipelinestore

import (
	"bytes"
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// documentRow is a document with its job, team and uploader, as the
// queries read it.
type documentRow struct {
	ID            int64     `bun:"id"`
	CandidateID   int64     `bun:"candidate_id"`
	JobID         int64     `bun:"job_id"`
	TeamID        int64     `bun:"team_id"`
	Kind          string    `bun:"kind"`
	Filename      string    `bun:"filename"`
	ContentType   string    `bun:"content_type"`
	Size          int64     `bun:"size"`
	SHA256        string    `bun:"sha256"`
	TextStatus    string    `bun:"text_status"`
	TextTruncated bool      `bun:"text_truncated"`
	CreatedAt     time.Time `bun:"created_at"`
	AuthorID      int64     `bun:"author_id"`
	AuthorName    string    `bun:"author_name"`

	Total int `bun:"total,scanonly"`
}

func (r documentRow) windowTotal() int { return r.Total }

func (r documentRow) toDocument() pipeline.Document {
	return pipeline.Document{
		ID: r.ID, CandidateID: r.CandidateID, JobID: r.JobID, TeamID: r.TeamID, Kind: r.Kind, Filename: r.Filename,
		ContentType: r.ContentType, Size: r.Size, SHA256: r.SHA256, TextStatus: r.TextStatus, TextTruncated: r.TextTruncated,
		UploadedBy: pipeline.User{ID: r.AuthorID, Name: r.AuthorName}, CreatedAt: r.CreatedAt.UTC(),
	}
}

// documentTextRow is a document with its text.
type documentTextRow struct {
	documentRow
	Text *string `bun:"text"`
}

// documentStore is the DB's DocumentStore.
type documentStore struct{ *DB }

// Documents reads documents, and records their texts.
func (db *DB) Documents() pipeline.DocumentStore { return documentStore{db} }

// documentTx is a transaction's DocumentTx.
type documentTx struct{ *tx }

// Documents writes documents.
func (t *tx) Documents() pipeline.DocumentTx { return documentTx{t} }

// Insert stores a document and its bytes, in the database or, with a
// BlobStore, in the object store before the transaction commits; a
// transaction that then fails leaves the object for RemoveOrphans. A
// pending document's extraction is enqueued in the transaction.
func (t documentTx) Insert(ctx context.Context, p pipeline.InsertDocumentParams) (pipeline.Document, error) {
	d, content := p.Document, p.Content
	d.CreatedAt = ts(d.CreatedAt)
	err := t.run.get(ctx, t.q.InsertDocument, args(d.CandidateID, d.UploadedBy.ID, d.Kind, d.Filename, d.ContentType,
		d.Size, d.SHA256, d.TextStatus, d.CreatedAt), &d.ID)
	if err != nil {
		return pipeline.Document{}, formatError(err, "Document")
	}
	if t.blobs != nil {
		if err := t.blobs.Put(ctx, blobKey(d.ID), content); err != nil {
			return pipeline.Document{}, err
		}
	} else if _, err := t.run.exec(ctx, t.q.InsertDocumentContent, d.ID, content); err != nil {
		return pipeline.Document{}, formatError(err, "Document")
	}
	if d.TextStatus == pipeline.TextPending {
		if err := t.run.flush(ctx); err != nil {
			return pipeline.Document{}, formatError(err, "Document")
		}
		if _, err := t.river.InsertTx(ctx, t.run.tx.Tx, textArgs{DocumentID: d.ID}, nil); err != nil {
			return pipeline.Document{}, formatError(err, "Document")
		}
	}
	return d, nil
}

// Lock returns a document of a candidate, locked.
func (t documentTx) Lock(ctx context.Context, p pipeline.LockDocumentParams) (pipeline.Document, error) {
	var r documentRow
	if err := t.run.get(ctx, t.q.DocumentForDeleteLocked, args(p.ID, p.CandidateID), &r); err != nil {
		return pipeline.Document{}, formatError(err, "Document")
	}
	return r.toDocument(), nil
}

// Delete deletes a document; its bytes in the database go with its row,
// those in an object store once the transaction has committed, so that a
// rollback never leaves a row without its bytes.
func (t documentTx) Delete(ctx context.Context, p pipeline.DocumentByIDParams) error {
	id := p.ID
	if _, err := t.run.exec(ctx, t.q.DeleteDocument, id); err != nil {
		return formatError(err, "Document")
	}
	if t.blobs != nil {
		t.committed = append(t.committed, func(ctx context.Context) error { return t.blobs.Remove(ctx, blobKey(id)) })
	}
	return nil
}

// List returns a page of a candidate's documents, newest first.
func (db documentStore) List(ctx context.Context, p pipeline.ListDocumentsParams) (pipeline.List[pipeline.Document], error) {
	var rows []documentRow
	err := db.read().all(ctx, db.q.DocumentsPage, args(p.CandidateID, p.JobID, p.Viewer, pipeline.Offset(p.Page)), &rows)
	if err != nil {
		return pipeline.List[pipeline.Document]{}, formatError(err, "Document")
	}
	list := pageOf(p.Page, rows, documentRow.toDocument)
	if len(rows) > 0 {
		return list, nil
	}
	if err := db.read().get(ctx, db.q.DocumentsCount, args(p.CandidateID, p.JobID, p.Viewer), &list.Total); err != nil {
		return pipeline.List[pipeline.Document]{}, formatError(err, "Candidate")
	}
	return list, nil
}

// Get returns a document of a candidate of a job viewer can reach.
func (db documentStore) Get(ctx context.Context, p pipeline.DocumentParams) (pipeline.Document, error) {
	var r documentRow
	if err := db.read().get(ctx, db.q.Document, args(p.ID, p.CandidateID, p.JobID, p.Viewer), &r); err != nil {
		return pipeline.Document{}, formatError(err, "Document")
	}
	return r.toDocument(), nil
}

// withText is the document r with its kept text.
func (r documentTextRow) withText() pipeline.DocumentWithText {
	d := pipeline.DocumentWithText{Document: r.toDocument()}
	if r.Text != nil {
		d.Text = *r.Text
	}
	return d
}

// Text returns a document with its kept text.
func (db documentStore) Text(ctx context.Context, p pipeline.DocumentParams) (pipeline.DocumentWithText, error) {
	var r documentTextRow
	if err := db.read().get(ctx, db.q.DocumentText, args(p.ID, p.CandidateID, p.JobID, p.Viewer), &r); err != nil {
		return pipeline.DocumentWithText{}, formatError(err, "Document")
	}
	return r.withText(), nil
}

// AllWithText returns every document of a candidate of a job viewer can
// reach, newest first, with its kept text, in one statement.
func (db documentStore) AllWithText(ctx context.Context, p pipeline.CandidateDocumentsParams) ([]pipeline.DocumentWithText, error) {
	var rows []documentTextRow
	if err := db.read().all(ctx, db.q.DocumentsWithText, args(p.CandidateID, p.JobID, p.Viewer), &rows); err != nil {
		return nil, formatError(err, "Document")
	}
	out := make([]pipeline.DocumentWithText, len(rows))
	for i, r := range rows {
		out[i] = r.withText()
	}
	return out, nil
}

// ForText returns a document by id, read on the writer so that a
// document just added is found.
func (db documentStore) ForText(ctx context.Context, p pipeline.DocumentByIDParams) (pipeline.Document, error) {
	var r documentRow
	if err := db.write().get(ctx, db.q.DocumentByID, args(p.ID), &r); err != nil {
		return pipeline.Document{}, formatError(err, "Document")
	}
	return r.toDocument(), nil
}

// SetText stores the outcome of a pending document's extraction.
func (db documentStore) SetText(ctx context.Context, p pipeline.SetDocumentTextParams) error {
	var stored *string
	if p.Status == pipeline.TextReady {
		stored = &p.Text
	}
	_, err := db.write().exec(ctx, db.q.SetDocumentText, p.ID, p.Status, stored, p.Truncated)
	return formatError(err, "Document")
}

// Open returns the bytes of a document: from the database, or from the
// object store.
func (db documentStore) Open(ctx context.Context, p pipeline.DocumentByIDParams) (pipeline.Content, error) {
	id := p.ID
	if db.blobs != nil {
		return db.blobs.Open(ctx, blobKey(id))
	}
	var b []byte
	if err := db.read().get(ctx, db.q.DocumentContent, args(id), &b); err != nil {
		return nil, formatError(err, "Document")
	}
	return nopCloser{bytes.NewReader(b)}, nil
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// textQueue is the River queue of documents' text extractions.
const textQueue = "documents"

// textArgs is a document whose text to extract, as a River job's
// arguments.
type textArgs struct {
	DocumentID int64 `json:"document_id"`
}

// Kind names the job kind.
func (textArgs) Kind() string { return "pipeline_document_text" }

// InsertOpts puts extractions on their queue; an attempt fails only when
// the store does (a file that cannot be read ends failed), so a few
// suffice.
func (textArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: textQueue, MaxAttempts: 5}
}

// Texts extracts documents' text: pipeline.Texts.
type Texts interface {
	Extract(ctx context.Context, id int64) error
}

// textWorker works River's extraction jobs.
type textWorker struct {
	river.WorkerDefaults[textArgs]
	t Texts
}

func (w *textWorker) Work(ctx context.Context, job *river.Job[textArgs]) error {
	return w.t.Extract(ctx, job.Args.DocumentID)
}

// textJobTimeout bounds one extraction: the child's 10 s and the reads
// and writes around it.
const textJobTimeout = 60 * time.Second

func (w *textWorker) Timeout(*river.Job[textArgs]) time.Duration { return textJobTimeout }

// addTexts adds the worker and queue of extractions when cfg has Texts.
func addTexts(workers *river.Workers, queues map[string]river.QueueConfig, cfg DeliveryConfig) {
	if cfg.Texts == nil {
		return
	}
	river.AddWorker(workers, &textWorker{t: cfg.Texts})
	queues[textQueue] = river.QueueConfig{MaxWorkers: max(cfg.TextWorkers, 1)}
}
