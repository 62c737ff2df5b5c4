package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/go-pdf/fpdf"
	"github.com/jackc/pgx/v5"

	"github.com/pipeline-dev/pipeline/pipeline"
)

const (
	// uploadSize is the size the upload scenario's PDF is made to reach.
	uploadSize = 200 << 10
	// maxDocumentBytes is the largest file either server takes by
	// default (workflow.md §4).
	maxDocumentBytes = 10 << 20
	// uploadFilename is the name the upload scenario sends its PDF under.
	uploadFilename = "resume.pdf"
)

// resumePDF is a résumé of two pages of text and a photo, written by fpdf,
// of at least uploadSize bytes: the photo is noise, which no compression
// shrinks, sized to make up the rest. It is made once, the same bytes at
// every run.
var resumePDF = sync.OnceValue(func() []byte {
	text := makePDF(0)
	side := 16
	for len(text) < uploadSize {
		side += 4
		text = makePDF(side)
	}
	return text
})

func makePDF(photoSide int) []byte {
	p := fpdf.New("P", "mm", "A4", "")
	p.SetFont("Helvetica", "", 11)
	r := rand.New(rand.NewPCG(34, 200))
	for page := range 2 {
		p.AddPage()
		if page == 0 && photoSide > 0 {
			img := image.NewRGBA(image.Rect(0, 0, photoSide, photoSide))
			for i := range img.Pix {
				img.Pix[i] = byte(r.Uint32())
			}
			for i := 3; i < len(img.Pix); i += 4 {
				img.Pix[i] = 0xff
			}
			var buf bytes.Buffer
			_ = png.Encode(&buf, img) // a bytes.Buffer does not fail
			p.RegisterImageOptionsReader("photo", fpdf.ImageOptions{ImageType: "PNG"}, &buf)
			p.ImageOptions("photo", 160, 10, 35, 35, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
		}
		for line := range 40 {
			p.CellFormat(150, 6, fmt.Sprintf("Experience %d.%d: designed and ran services in Go and PostgreSQL for %d users.",
				page+1, line+1, 1000+line*37), "", 1, "", false, 0, "")
		}
	}
	var buf bytes.Buffer
	if err := p.Output(&buf); err != nil {
		panic(err) // fpdf fails only on bad input, and this is fixed
	}
	return buf.Bytes()
}

// multipartFile is a multipart/form-data body with file as its "file"
// field, under name, and its content type.
func multipartFile(name string, file []byte) ([]byte, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", name) // a bytes.Buffer does not fail
	_, _ = fw.Write(file)
	_ = mw.WriteField("kind", pipeline.DocumentResume)
	_ = mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

// uploadBody is the upload scenario's body, made once.
var uploadBody = sync.OnceValues(func() ([]byte, string) { return multipartFile(uploadFilename, resumePDF()) })

// uploadRequest adds a document to a candidate.
func uploadRequest(token string, t target) request {
	body, ct := uploadBody()
	return request{method: http.MethodPost, path: candidatePath(t) + "/documents", token: token, body: body, contentType: ct}
}

// documentBody is a document as both servers answer it.
type documentBody struct {
	ID          int64  `json:"id"`
	CandidateID int64  `json:"candidate_id"`
	Kind        string `json:"kind"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
	TextStatus  string `json:"text_status"`
	UploadedBy  named  `json:"uploaded_by"`
	CreatedAt   string `json:"created_at"`
}

// textJobSQL queues a document's text extraction as ours does through
// River: a row of River's job table, on the documents queue, due now.
const textJobSQL = `INSERT INTO river_job (args, kind, max_attempts, priority, queue, scheduled_at, state, metadata, tags)
VALUES ($1, 'pipeline_document_text', 5, 1, 'documents', $2, 'available', '{}', '{}')`

// readUpload reads a multipart/form-data body: the "file" field's name
// and bytes (nil when none was sent) and the "kind" field, the file read
// no further than limit bytes; false when it is larger.
func readUpload(r *http.Request, limit int64) (name string, file []byte, kind string, within bool, err error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return "", nil, "", true, err
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return name, file, kind, true, nil
		}
		if err != nil {
			return "", nil, "", true, err
		}
		switch part.FormName() {
		case "file":
			name = part.FileName()
			file, err = io.ReadAll(io.LimitReader(part, limit+1))
			if err != nil {
				return "", nil, "", true, err
			}
			if int64(len(file)) > limit {
				return "", nil, "", false, nil
			}
		case "kind":
			b, err := io.ReadAll(io.LimitReader(part, 64))
			if err != nil {
				return "", nil, "", true, err
			}
			kind = string(b)
		}
		part.Close()
	}
}

// upload serves POST .../candidates/:candidate/documents, unkeyed: in one
// transaction the same checks as ours (the scope, the candidate, the
// input, judged by the domain's own NewDocument.Validate), the document's
// row, its bytes in document_contents, the River job of its text and its
// activity entry, as ours stores them without an object store.
func (b *baseline) upload(c *gin.Context) {
	cl, ok := scoped(c, pipeline.ScopeCandidatesWrite)
	if !ok {
		return
	}
	name, file, kind, bad, ok := uploadInput(c)
	if !ok {
		return
	}
	if len(bad) == 0 {
		bad = nil
	}
	w := &write{cl: cl, jobID: pathID(c, "job"), candID: pathID(c, "candidate"), status: http.StatusCreated,
		now: time.Now().UTC().Truncate(time.Microsecond)}
	var id int64
	err := b.open(c.Request.Context(), w, func(batch *pgx.Batch) {
		if bad == nil {
			batch.Queue(`SELECT nextval(pg_get_serial_sequence('documents', 'id'))`).QueryRow(func(row pgx.Row) error {
				return row.Scan(&id)
			})
		}
	})
	if !w.opened(c, b, err, bad) {
		return
	}
	sum := sha256.Sum256(file)
	d := documentBody{ID: id, CandidateID: w.candID, Kind: cmpOr(kind, pipeline.DocumentResume), Filename: pipeline.CleanFilename(name),
		ContentType: pipeline.DetectType(file), Size: int64(len(file)), SHA256: hex.EncodeToString(sum[:]),
		TextStatus: pipeline.TextPending, UploadedBy: named{ID: cl.userID, Name: cl.userName}, CreatedAt: stamp(w.now)}
	var batch pgx.Batch
	batch.Queue(`INSERT INTO documents (id, candidate_id, user_id, kind, filename, content_type, size, sha256, text_status, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, id, w.candID, cl.userID, d.Kind, d.Filename, d.ContentType, d.Size, d.SHA256, d.TextStatus, w.now)
	batch.Queue(`INSERT INTO document_contents (document_id, content) VALUES ($1, $2)`, id, file)
	batch.Queue(textJobSQL, `{"document_id":`+strconv.FormatInt(id, 10)+`}`, w.now)
	w.logActivity(&batch, pipeline.ActionCandidateDocumentAdded, map[string]any{"document_id": id})
	c.Header("Location", "/api/v1/jobs/"+strconv.FormatInt(w.jobID, 10)+"/candidates/"+strconv.FormatInt(w.candID, 10)+
		"/documents/"+strconv.FormatInt(id, 10))
	b.commit(c, w, &batch, http.StatusCreated, encode(envelope[documentBody]{Data: d}))
}

// uploadInput reads an upload's multipart body within 10 MiB and judges
// it by the domain's NewDocument.Validate: the file's name, bytes and
// kind and the fields in error; false when the body could not be read or
// was too large, which it has answered.
func uploadInput(c *gin.Context) (name string, file []byte, kind string, bad map[string][]string, ok bool) {
	name, file, kind, within, err := readUpload(c.Request, maxDocumentBytes)
	switch {
	case err != nil:
		invalid(c, map[string][]string{"file": {"The request must be multipart/form-data."}})
		return "", nil, "", nil, false
	case !within:
		fail(c, http.StatusRequestEntityTooLarge, "payload_too_large", "The file may not be larger than 10 MiB.", nil)
		return "", nil, "", nil, false
	}
	in := pipeline.NewDocument{Kind: kind, Filename: name, Content: file}
	return name, file, kind, pipeline.Fields(in.Validate()), true
}
