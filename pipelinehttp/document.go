package pipelinehttp

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// documentItem is a document as added, listed and read.
type documentItem struct {
	ID          int64          `json:"id"`
	CandidateID int64          `json:"candidate_id"`
	Kind        string         `json:"kind"`
	Filename    string         `json:"filename"`
	ContentType string         `json:"content_type"`
	Size        int64          `json:"size"`
	SHA256      string         `json:"sha256"`
	TextStatus  string         `json:"text_status"`
	UploadedBy  pipeline.Named `json:"uploaded_by"`
	CreatedAt   string         `json:"created_at"`
}

func newDocumentItem(d pipeline.Document) documentItem {
	return documentItem{
		ID: d.ID, CandidateID: d.CandidateID, Kind: d.Kind, Filename: d.Filename, ContentType: d.ContentType,
		Size: d.Size, SHA256: d.SHA256, TextStatus: d.TextStatus,
		UploadedBy: pipeline.Named{ID: d.UploadedBy.ID, Name: d.UploadedBy.Name}, CreatedAt: pipeline.FormatTime(d.CreatedAt),
	}
}

// documentTextItem is a part of a document's text.
type documentTextItem struct {
	Text       string `json:"text" supplied:"candidate"`
	Truncated  bool   `json:"truncated"`
	Offset     int    `json:"offset"`
	NextOffset *int   `json:"next_offset"`
}

// documentContent is a document's bytes, served by http.ServeContent,
// which answers Range and If-None-Match. The headers keep a browser from
// showing or running what a stranger sent: it is an attachment, its type
// is not guessed, and a page it became would run sandboxed with nothing
// allowed.
type documentContent struct {
	doc     pipeline.Document
	content pipeline.Content
}

// mediaTypes are the types a document is served with: its own, read
// from its content when it was added.
func (documentContent) mediaTypes() []string { return pipeline.DocumentTypes }

func (d documentContent) serve(w http.ResponseWriter, r *http.Request) error {
	defer d.content.Close()
	h := w.Header()
	h.Set("Content-Type", d.doc.ContentType)
	h.Set("Content-Disposition", "attachment; filename*=UTF-8''"+encodeRFC5987(d.doc.Filename))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	h.Set("ETag", `"`+d.doc.SHA256+`"`)
	rw := &rangeRefusal{ResponseWriter: w}
	http.ServeContent(rw, r, "", d.doc.CreatedAt, d.content)
	if !rw.refused {
		return nil
	}
	// ServeContent's own answer is plain text; the API's is the
	// envelope, with ServeContent's Content-Range (the size) kept. Its
	// error path drops Cache-Control, which every API answer carries.
	h.Del("Content-Disposition")
	h.Del("Content-Type")
	h.Set("Cache-Control", "no-store")
	return errRangeNotSatisfiable
}

// rangeRefusal passes a response through, except a 416: its status and
// its plain-text body are held back, for the error middleware to answer.
type rangeRefusal struct {
	http.ResponseWriter
	refused bool
}

func (w *rangeRefusal) WriteHeader(status int) {
	if status == http.StatusRequestedRangeNotSatisfiable {
		w.refused = true
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *rangeRefusal) Write(b []byte) (int, error) {
	if w.refused {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// encodeRFC5987 percent-encodes s as an RFC 5987 value: every byte but
// the attr-chars.
func encodeRFC5987(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$&+-.^_`|~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
	}
	return b.String()
}

func documentID[In any]() param[In] {
	return pathID[In]("document", "Id of a document of that candidate.")
}

var (
	documentKindSchema = described(enumSchema(pipeline.DocumentKinds...), "resume, cover_letter or other; resume when absent.")
	fileSchema         = described(&jsonschema.Schema{Type: "string", Format: "binary"},
		"The file, with its filename: a PDF, a Word (.docx) or OpenDocument text (.odt) document, plain UTF-8 text, a PNG or a JPEG image, its type read from its content; at most 10 MiB unless the server sets another limit.")
	offsetSchema    = described(&jsonschema.Schema{Type: "integer", Minimum: ptr(0.0)}, "Where the part starts, in characters from 0; 0 when absent.")
	textLimitSchema = described(&jsonschema.Schema{Type: "integer", Minimum: ptr(1.0)}, "How many characters at most; the rest of the text when absent.")
)

func ptr[T any](v T) *T { return &v }

// documentOperations are the operations on candidates' documents, in the
// order of the document.
var documentOperations = []operation{
	newOperation(opSpec[pipeline.NewDocument, data[documentItem]]{
		op: pipeline.OpAddDocument, body: multipartBody,
		params: []param[pipeline.NewDocument]{
			jobID[pipeline.NewDocument](), candidateID[pipeline.NewDocument](),
			fileField("file", fileSchema, func(in *pipeline.NewDocument, name string, content []byte) {
				in.Filename, in.Content = name, content
			}),
			textField("kind", false, documentKindSchema, func(in *pipeline.NewDocument) *string { return &in.Kind }),
		},
		call:    onCandidate((*pipeline.Service).AddDocument, newDocumentItem),
		created: func(out data[documentItem]) int64 { return out.Data.ID },
	}),
	newOperation(opSpec[pipeline.DocumentFilter, list[documentItem]]{
		op: pipeline.OpListDocuments,
		params: []param[pipeline.DocumentFilter]{
			jobID[pipeline.DocumentFilter](), candidateID[pipeline.DocumentFilter](),
			pageParam(pageSchema, func(in *pipeline.DocumentFilter) *int { return &in.Page }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.DocumentFilter]) (list[documentItem], bool, error) {
			l, err := svc.ListDocuments(ctx, in.ref.Job, in.ref.Candidate, in.domain())
			return listOf(in.self, url.Values{}, l, newDocumentItem), false, err
		},
	}),
	newOperation(opSpec[struct{}, data[documentItem]]{
		op:     pipeline.OpGetDocument,
		params: []param[struct{}]{jobID[struct{}](), candidateID[struct{}](), documentID[struct{}]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{}]) (data[documentItem], bool, error) {
			d, err := svc.GetDocument(ctx, in.ref.Job, in.ref.Candidate, in.ref.Document)
			return data[documentItem]{Data: newDocumentItem(d)}, false, err
		},
	}),
	newOperation(opSpec[struct{}, documentContent]{
		op:     pipeline.OpGetDocumentContent,
		params: []param[struct{}]{jobID[struct{}](), candidateID[struct{}](), documentID[struct{}]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{}]) (documentContent, bool, error) {
			d, content, err := svc.GetDocumentContent(ctx, in.ref.Job, in.ref.Candidate, in.ref.Document)
			return documentContent{doc: d, content: content}, false, err
		},
	}),
	newOperation(opSpec[pipeline.TextRange, data[documentTextItem]]{
		op: pipeline.OpGetDocumentText,
		params: []param[pipeline.TextRange]{
			jobID[pipeline.TextRange](), candidateID[pipeline.TextRange](), documentID[pipeline.TextRange](),
			queryParam("offset", offsetSchema, pipeline.MsgOffset, func(in *input[pipeline.TextRange], text string) bool {
				n, err := strconv.Atoi(text)
				in.value.Offset = n
				return err == nil && n >= 0
			}),
			queryParam("limit", textLimitSchema, pipeline.MsgTextLimit, func(in *input[pipeline.TextRange], text string) bool {
				n, err := strconv.Atoi(text)
				in.value.Limit = n
				return err == nil && n >= 1
			}),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.TextRange]) (data[documentTextItem], bool, error) {
			t, err := svc.GetDocumentText(ctx, in.ref.Job, in.ref.Candidate, in.ref.Document, in.domain())
			return data[documentTextItem]{Data: documentTextItem{Text: t.Text, Truncated: t.Truncated, Offset: t.Offset, NextOffset: t.NextOffset}}, false, err
		},
	}),
	newOperation(opSpec[pipeline.DocumentRemoval, struct{}]{
		op:     pipeline.OpRemoveDocument,
		params: []param[pipeline.DocumentRemoval]{jobID[pipeline.DocumentRemoval](), candidateID[pipeline.DocumentRemoval](), documentID[pipeline.DocumentRemoval]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.DocumentRemoval]) (struct{}, bool, error) {
			res, err := svc.RemoveDocument(ctx, in.ref.Job, in.ref.Candidate, in.ref.Document, in.domain())
			return struct{}{}, res.Replayed, err
		},
	}),
}
