package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"slices"
	"strings"
	"time"
)

// DefaultMaxDocumentBytes is the largest document file the API takes by
// default, 10 MiB.
const DefaultMaxDocumentBytes = 10 << 20

// MaxDocumentText is the most text kept of a document, in characters.
const MaxDocumentText = 200_000

// Document kinds.
const (
	DocumentResume      = "resume"
	DocumentCoverLetter = "cover_letter"
	DocumentOther       = "other"
)

// DocumentKinds lists the kinds of document, the default first.
var DocumentKinds = []string{DocumentResume, DocumentCoverLetter, DocumentOther}

// Text statuses of a document: its text is pending until the background
// extraction ends ready, none (an image, which has no text to read) or
// failed (a file that could not be read within the limits).
const (
	TextPending = "pending"
	TextReady   = "ready"
	TextNone    = "none"
	TextFailed  = "failed"
)

// TextStatuses lists the text statuses.
var TextStatuses = []string{TextPending, TextReady, TextNone, TextFailed}

// Activity actions of documents.
const (
	ActionCandidateDocumentAdded   = "candidate.document_added"
	ActionCandidateDocumentRemoved = "candidate.document_removed"
)

// Document is a file a user added to a candidate: a résumé, a cover
// letter or another. Its bytes are stored under its id, never its name.
type Document struct {
	ID          int64
	CandidateID int64
	JobID       int64
	TeamID      int64
	Kind        string
	Filename    string // as kept: see CleanFilename
	ContentType string // detected from the content: a Type constant
	Size        int64
	SHA256      string // hex
	TextStatus  string
	// TextTruncated: the text was cut at MaxDocumentText characters.
	TextTruncated bool
	UploadedBy    User // ID and Name
	CreatedAt     time.Time
}

// DocumentWithText is a document with its kept text: "" unless its
// TextStatus is TextReady.
type DocumentWithText struct {
	Document
	Text string
}

// NewDocument is the input of AddDocument.
type NewDocument struct {
	Kind     string // "" is DocumentResume
	Filename string // as sent
	Reasoned
	// Content is the file's bytes; nil when no file was sent.
	Content     []byte
	Idempotency *Idempotency
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *NewDocument) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *NewDocument) SetUnread(err error) { in.Unread = err }

// documentRequest is what an idempotency key of AddDocument binds: the
// file by its digest, not its bytes, and the fields as sent.
type documentRequest struct {
	Kind, Filename string
	Reasoned
	SHA256 string
	Size   int
	Sent   bool
	Type   string
	Unread error
}

func (in NewDocument) request() documentRequest {
	sum := sha256.Sum256(in.Content)
	return documentRequest{Kind: in.Kind, Filename: in.Filename, Reasoned: in.Reasoned, SHA256: hex.EncodeToString(sum[:]),
		Size: len(in.Content), Sent: in.Content != nil, Type: DetectType(in.Content), Unread: in.Unread}
}

// Validate reports what is wrong with the input.
func (in NewDocument) Validate() error { return in.request().Validate() }

func (r documentRequest) Validate() error { return inputVerdict(r.Unread, r.check()) }

func (r documentRequest) check() error {
	bad := FieldErrors{}
	if r.Kind != "" && !slices.Contains(DocumentKinds, r.Kind) {
		bad.Add("kind", "The kind must be one of "+strings.Join(DocumentKinds, ", ")+".")
	}
	switch {
	case !r.Sent:
		bad.Add("file", "The file field is required.")
	case r.Size == 0:
		bad.Add("file", "The file is empty.")
	case r.Type == "":
		bad.Add("file", msgAcceptedTypes)
	case CleanFilename(r.Filename) == "":
		bad.Add("file", "The file must have a name.")
	}
	return bad.Err()
}

// AddDocument stores a file for a candidate, its type read from its
// content, and queues the extraction of its text (an image has none).
// Scope: candidates:write. Errors: unauthenticated, insufficient_scope,
// not_found, validation_failed (kind, reason, file: missing, empty, of a
// type not accepted), conflict (idempotency key in flight).
func (s *Service) AddDocument(ctx context.Context, jobID, candidateID int64, in NewDocument) (Result[Document], error) {
	req := in.request()
	return writeCandidate(s, ctx, OpAddDocument, jobID, candidateID, &req, &in.Idempotency, func(tx Tx, c Caller, cand Candidate) (Document, error) {
		status := TextPending
		if req.Type == TypePNG || req.Type == TypeJPEG {
			status = TextNone
		}
		d, err := tx.Documents().Insert(ctx, InsertDocumentParams{Document: Document{
			CandidateID: cand.ID, JobID: cand.JobID, TeamID: cand.TeamID,
			Kind: cmpOr(in.Kind, DocumentResume), Filename: CleanFilename(in.Filename),
			ContentType: req.Type, Size: int64(req.Size), SHA256: req.SHA256, TextStatus: status,
			UploadedBy: User{ID: c.user.ID, Name: c.user.Name}, CreatedAt: s.now(),
		}, Content: in.Content})
		if err != nil {
			return Document{}, err
		}
		changes := map[string]any{"document_id": d.ID}
		return d, s.log(ctx, tx, c, cand.TeamID, cand.JobID, ActionCandidateDocumentAdded, SubjectCandidate, cand.ID, changes)
	})
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// DocumentFilter selects a page of a candidate's documents.
type DocumentFilter struct {
	Page int // from 1; 0: the first page
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error
}

// SetUnread sets what a face could not read of the request.
func (in *DocumentFilter) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the filter.
func (f DocumentFilter) Validate() error {
	bad := FieldErrors{}
	if f.Page < 0 {
		bad.Add("page", msgPage)
	}
	return inputVerdict(f.Unread, bad.Err())
}

// ListDocuments returns a page of a candidate's documents, newest first.
// Scope: candidates:read. Errors: unauthenticated, insufficient_scope,
// not_found, validation_failed (page).
func (s *Service) ListDocuments(ctx context.Context, jobID, candidateID int64, f DocumentFilter) (List[Document], error) {
	c, err := authorize(ctx, OpListDocuments)
	if err != nil {
		return List[Document]{}, err
	}
	if bad := f.Validate(); bad != nil {
		if _, err := s.store.Candidates().Get(ctx, CandidateParams{Viewer: c.user.ID, JobID: jobID, ID: candidateID}); err != nil {
			return List[Document]{}, err
		}
		return List[Document]{}, bad
	}
	return s.store.Documents().List(ctx, ListDocumentsParams{Viewer: c.user.ID, JobID: jobID, CandidateID: candidateID, Page: max(f.Page, 1)})
}

// GetDocument returns a document of a candidate. Scope: candidates:read.
// Errors: unauthenticated, insufficient_scope, not_found.
func (s *Service) GetDocument(ctx context.Context, jobID, candidateID, id int64) (Document, error) {
	c, err := authorize(ctx, OpGetDocument)
	if err != nil {
		return Document{}, err
	}
	return s.store.Documents().Get(ctx, DocumentParams{Viewer: c.user.ID, JobID: jobID, CandidateID: candidateID, ID: id})
}

// Content is the bytes of a document, to read and seek; the caller closes
// it.
type Content interface {
	io.ReadSeeker
	io.Closer
}

// GetDocumentContent returns a document and its bytes as uploaded, which the
// caller closes. Scope: candidates:read. Errors: unauthenticated,
// insufficient_scope, not_found.
func (s *Service) GetDocumentContent(ctx context.Context, jobID, candidateID, id int64) (Document, Content, error) {
	c, err := authorize(ctx, OpGetDocumentContent)
	if err != nil {
		return Document{}, nil, err
	}
	d, err := s.store.Documents().Get(ctx, DocumentParams{Viewer: c.user.ID, JobID: jobID, CandidateID: candidateID, ID: id})
	if err != nil {
		return Document{}, nil, err
	}
	r, err := s.store.Documents().Open(ctx, DocumentByIDParams{ID: d.ID})
	if err != nil {
		return Document{}, nil, err
	}
	return d, r, nil
}

// TextRange selects a part of a document's text, in characters. The zero
// value selects all of it.
type TextRange struct {
	Offset int // from 0
	Limit  int // 0: to the end
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error
}

// SetUnread sets what a face could not read of the request.
func (in *TextRange) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the range.
func (r TextRange) Validate() error {
	bad := FieldErrors{}
	if r.Offset < 0 {
		bad.Add("offset", MsgOffset)
	}
	if r.Limit < 0 {
		bad.Add("limit", MsgTextLimit)
	}
	return inputVerdict(r.Unread, bad.Err())
}

// Messages of a text range that cannot be read.
const (
	MsgOffset    = "The offset must be an integer greater than or equal to 0."
	MsgTextLimit = "The limit must be an integer greater than or equal to 1."
)

// DocumentText is a part of a document's text.
type DocumentText struct {
	Text string
	// Truncated: the document's text was cut at MaxDocumentText characters.
	Truncated bool
	Offset    int
	// NextOffset is where the next part starts; nil at the end.
	NextOffset *int
}

// ErrTextPending is the conflict of a text asked for while it is being
// extracted; the faces tell the caller when to ask again.
var ErrTextPending = particular(EConflict, "The text is not ready.")

// TextRetryAfter is how long a caller should wait before asking again
// for a text that is pending.
const TextRetryAfter = 2 * time.Second

// GetDocumentText returns the text of a document, or the part r selects.
// Scope: candidates:read. Errors: unauthenticated, insufficient_scope,
// not_found, conflict (ErrTextPending), validation_failed (offset, limit;
// document: its text_status is none or failed).
func (s *Service) GetDocumentText(ctx context.Context, jobID, candidateID, id int64, r TextRange) (DocumentText, error) {
	c, err := authorize(ctx, OpGetDocumentText)
	if err != nil {
		return DocumentText{}, err
	}
	d, err := s.store.Documents().Text(ctx, DocumentParams{Viewer: c.user.ID, JobID: jobID, CandidateID: candidateID, ID: id})
	if err != nil {
		return DocumentText{}, err
	}
	if bad := r.Validate(); bad != nil {
		return DocumentText{}, bad
	}
	switch d.TextStatus {
	case TextPending:
		return DocumentText{}, ErrTextPending
	case TextNone, TextFailed:
		return DocumentText{}, Invalid("document", "The document has no text: its text_status is "+d.TextStatus+".")
	}
	runes := []rune(d.Text)
	from := min(r.Offset, len(runes))
	to := len(runes)
	if r.Limit > 0 {
		to = min(from+r.Limit, len(runes))
	}
	out := DocumentText{Text: string(runes[from:to]), Truncated: d.TextTruncated, Offset: r.Offset}
	if to < len(runes) {
		out.NextOffset = &to
	}
	return out, nil
}

// DocumentRemoval is the input of RemoveDocument.
type DocumentRemoval struct {
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *DocumentRemoval) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *DocumentRemoval) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the input.
func (in DocumentRemoval) Validate() error { return in.Unread }

// RemoveDocument deletes a document and its bytes. Scope:
// candidates:write. Errors: unauthenticated, insufficient_scope,
// not_found, conflict (idempotency key in flight).
func (s *Service) RemoveDocument(ctx context.Context, jobID, candidateID, id int64, in DocumentRemoval) (Result[struct{}], error) {
	c, err := authorize(ctx, OpRemoveDocument)
	if err != nil {
		return Result[struct{}]{}, err
	}
	k, err := takeKey(OpRemoveDocument, Ref{Job: jobID, Candidate: candidateID, Document: id}, &in, &in.Idempotency)
	if err != nil {
		return Result[struct{}]{}, err
	}
	type target struct {
		cand Candidate
		doc  Document
	}
	load := func(tx Tx, kc KeyClaim) (target, error) {
		cand, err := lockCandidate(ctx, tx, LockCandidateParams{Viewer: c.user.ID, JobID: jobID, ID: candidateID, Claim: kc})
		if err != nil {
			return target{}, err
		}
		d, err := tx.Documents().Lock(ctx, LockDocumentParams{CandidateID: cand.ID, ID: id})
		return target{cand, d}, err
	}
	return write(s, ctx, c, k, load, func(tx Tx, t target) (struct{}, error) {
		if err := in.Validate(); err != nil {
			return struct{}{}, err
		}
		if err := tx.Documents().Delete(ctx, DocumentByIDParams{ID: t.doc.ID}); err != nil {
			return struct{}{}, err
		}
		changes := map[string]any{"document_id": t.doc.ID}
		return struct{}{}, s.log(ctx, tx, c, t.cand.TeamID, t.cand.JobID, ActionCandidateDocumentRemoved, SubjectCandidate, t.cand.ID, changes)
	})
}

// The operations on documents.
const (
	OpAddDocument        Op = "add_document"
	OpListDocuments      Op = "list_documents"
	OpGetDocument        Op = "get_document"
	OpGetDocumentContent Op = "get_document_content"
	OpGetDocumentText    Op = "get_document_text"
	OpRemoveDocument     Op = "remove_document"
)

// documentPath is the path of one document, below /api/v1.
const documentPath = candidatePath + "/documents/{document}"

// documentOps are the rows of opTable for these operations, in the order of
// the API's document.
var documentOps = []opRow{
	{OpAddDocument, opTraits{ScopeCandidatesWrite, mPost, candidatePath + "/documents", neverHeld | creates}, nil, nil, Doc{
		Tag: "Documents", Summary: "Add a document",
		Description: "Scope: `candidates:write`. A `multipart/form-data` body with one `file` part (its filename " +
			"is kept, cleaned: its last segment, NFC-normalized, without control or bidirectional-override " +
			"characters, at most 255 characters) and optional `kind` (`resume`, `cover_letter` or `other`; " +
			"`resume` when absent) and `reason` fields. The type is read from the content, never from the " +
			"declared type or the name: PDF, Word (`.docx`), OpenDocument text (`.odt`), plain UTF-8 text, PNG " +
			"or JPEG; anything else, or an empty file, is 422 on `file`. At most 10 MiB of file (the server's " +
			"`PIPELINE_DOCUMENT_MAX_BYTES`), the whole body at most 64 KiB more: beyond, 413 and nothing more is " +
			"read. A body that is not multipart is 415. Its text is read in the background (`text_status` " +
			"`pending`, then `ready`, `none` for an image, or `failed`). An `Idempotency-Key` binds the file's " +
			"SHA-256, its filename, `kind` and `reason`. Activity `candidate.document_added`. Not an MCP tool.",
	}},
	{OpListDocuments, opTraits{ScopeCandidatesRead, mGet, candidatePath + "/documents", 0}, nil, &Words{Title: "List a candidate's documents",
		Description: "A page of 15 of a candidate's documents (résumés, cover letters, others), newest first, each with its text_status, with links and meta (GET .../candidates/{candidate}/documents). Read a document's text with get_document_text."}, Doc{Tag: "Documents"}},
	{OpGetDocument, opTraits{ScopeCandidatesRead, mGet, documentPath, 0}, nil, nil, Doc{
		Tag: "Documents", Summary: "Get a document",
		Description: "Scope: `candidates:read`. One document of the candidate, without its bytes or text.",
	}},
	{OpGetDocumentContent, opTraits{ScopeCandidatesRead, mGet, documentPath + "/content", 0}, nil, nil, Doc{
		Tag: "Documents", Summary: "Download a document",
		Description: "Scope: `candidates:read`. The bytes as uploaded, with the detected `Content-Type` (plain " +
			"text as `text/plain; charset=utf-8`), `Content-Disposition: attachment; filename*=UTF-8''…`, " +
			"`X-Content-Type-Options: nosniff`, `Content-Security-Policy: sandbox; default-src 'none'` and an " +
			"`ETag` from the SHA-256; `Range` and `If-None-Match` are honoured (206, 304); a `Range` that asks " +
			"for no byte of it is 416 `range_not_satisfiable`, with `Content-Range: bytes */<size>`. `HEAD` " +
			"answers the same headers without the bytes. Not an MCP tool.",
		Success: "The document's bytes, with the type read from its content when it was added.",
		Head: &Doc{
			Summary: "A document's download headers",
			Description: "Scope: `candidates:read`. What `GET` of the same path answers, headers only: the type, " +
				"`Content-Length`, `Content-Disposition`, `ETag` and `Last-Modified`, without the bytes. `Range` " +
				"and `If-None-Match` are honoured as by `GET`. An error has its status and headers, and no body. " +
				"Not an MCP tool.",
			Success: "The download's headers, without its bytes.",
		},
	}},
	{OpGetDocumentText, opTraits{ScopeCandidatesRead, mGet, documentPath + "/text", 0}, nil, &Words{Title: "Get a document's text",
		Description: "The text read from a candidate's document (PDF, Word, OpenDocument or plain text), at most 200,000 characters, or the part offset and limit select, in characters; next_offset is where the next part starts, null at the end (GET .../documents/{document}/text). " +
			"conflict while the text is being read (try again shortly); validation_failed naming document when it has none (an image) or could not be read."}, Doc{Tag: "Documents"}},
	{OpRemoveDocument, opTraits{ScopeCandidatesWrite, mDelete, documentPath, empties}, runs[DocumentRemoval, struct{}, struct{}](onRecord(documentOf, (*Service).RemoveDocument), nil), nil, Doc{
		Tag: "Documents", Summary: "Remove a document",
		Description: "Scope: `candidates:write`. The document goes, and its bytes with it (activity " +
			"`candidate.document_removed`). Its body takes only a `reason`. Not an MCP tool.",
	}},
}

// DocumentStore is what the Service and the extraction of texts read and
// write of documents outside a write.
type DocumentStore interface {
	// List returns a page of the documents of a candidate of a job the
	// viewer can reach, newest first (created_at, then id, descending).
	List(ctx context.Context, p ListDocumentsParams) (List[Document], error)
	// Get returns a document of a candidate of a job the viewer can
	// reach.
	Get(ctx context.Context, p DocumentParams) (Document, error)
	// Text is Get with the document's kept text ("" unless ready).
	Text(ctx context.Context, p DocumentParams) (DocumentWithText, error)
	// AllWithText returns every document of a candidate of a job the
	// viewer can reach, with its kept text, in the order of List; of a
	// candidate the viewer cannot reach, none (not_found or empty).
	AllWithText(ctx context.Context, p CandidateDocumentsParams) ([]DocumentWithText, error)
	// Open returns the bytes of a document; not_found when they are gone
	// with it.
	Open(ctx context.Context, p DocumentByIDParams) (Content, error)
	// ForText returns a document by id, for its text's extraction;
	// not_found when it is gone.
	ForText(ctx context.Context, p DocumentByIDParams) (Document, error)
	// SetText stores the outcome of a document's extraction: its status,
	// and its text when ready. Only a pending document changes.
	SetText(ctx context.Context, p SetDocumentTextParams) error
}

// DocumentParams names a document of a candidate of a job, read for a
// viewer.
type DocumentParams struct {
	Viewer, JobID, CandidateID, ID int64
}

// ListDocumentsParams selects a page of a candidate's documents, read for
// a viewer.
type ListDocumentsParams struct {
	Viewer, JobID, CandidateID int64
	Page                       int // from 1
}

// CandidateDocumentsParams names a candidate of a job whose documents are
// read for a viewer.
type CandidateDocumentsParams struct {
	Viewer, JobID, CandidateID int64
}

// DocumentByIDParams names a document by its id alone.
type DocumentByIDParams struct {
	ID int64
}

// SetDocumentTextParams is the outcome of a document's extraction.
type SetDocumentTextParams struct {
	ID     int64
	Status string // TextReady or TextFailed
	Text   string // when ready
	// Truncated: the text was cut at MaxDocumentText characters.
	Truncated bool
}

// DocumentTx is what a write transaction does to documents. A document it
// deletes is one Lock returned.
type DocumentTx interface {
	// Insert stores a document with its bytes, returns it with its id,
	// and enqueues, in the same transaction, the extraction of its text
	// when it is pending. Bytes kept outside the database are written
	// before the transaction commits.
	Insert(ctx context.Context, p InsertDocumentParams) (Document, error)
	// Lock returns a document of a candidate, locked.
	Lock(ctx context.Context, p LockDocumentParams) (Document, error)
	// Delete deletes a locked document; its bytes go with it, or, when
	// kept outside the database, once the transaction has committed.
	Delete(ctx context.Context, p DocumentByIDParams) error
}

// InsertDocumentParams is a document to store, with its bytes.
type InsertDocumentParams struct {
	Document Document
	Content  []byte
}

// LockDocumentParams names a document of a candidate, to lock.
type LockDocumentParams struct {
	CandidateID, ID int64
}
