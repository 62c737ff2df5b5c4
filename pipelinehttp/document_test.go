package pipelinehttp

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/doctext"
	"github.com/pipeline-dev/pipeline/pipeline/doctext/doctexttest"
)

func graceDocuments(e *env) string {
	return candidatePath(e.Res.Jobs["backend"], e.Res.Candidates["grace"]) + "/documents"
}

// part is a part of a multipart body: a file when filename is set.
type part struct {
	name, filename string
	content        []byte
}

func formBody(t *testing.T, parts ...part) ([]byte, string) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		cd := `form-data; name="` + p.name + `"`
		if p.filename != "" {
			cd += `; filename="` + p.filename + `"`
			h.Set("Content-Type", "application/octet-stream")
		}
		h.Set("Content-Disposition", cd)
		pw, err := w.CreatePart(h)
		require.NoError(t, err)
		_, err = pw.Write(p.content)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return buf.Bytes(), w.FormDataContentType()
}

func (e *env) upload(t *testing.T, path, token string, hdr []string, parts ...part) *Response {
	t.Helper()
	body, ctype := formBody(t, parts...)
	req := httptest.NewRequest("POST", path, bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return serve(t, e.h, req, body)
}

// fetch GETs a document's bytes, which are not JSON.
func (e *env) fetch(t *testing.T, path, token string, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec
}

func (e *env) extract(t *testing.T, id int64) {
	require.NoError(t, pipeline.NewTexts(e.DB, doctext.Process{}).Extract(context.Background(), id))
}

func TestAPI_Documents(t *testing.T) {
	eachStore(t, "each type, its text and its download", func(t *testing.T, e *env) {
		files := []struct {
			name, ctype string
			content     []byte
			status      string
			text        string
		}{
			{"cv.pdf", pipeline.TypePDF, doctexttest.PDF("Grace Hopper resume"), pipeline.TextReady, "Grace Hopper resume"},
			{"cv.docx", pipeline.TypeDOCX, doctexttest.DOCX("Grace in Word"), pipeline.TextReady, "Grace in Word"},
			{"cv.odt", pipeline.TypeODT, doctexttest.ODT("Grace en ODT"), pipeline.TextReady, "Grace en ODT"},
			{"cv.txt", pipeline.TypeText, []byte("Grace, plain"), pipeline.TextReady, "Grace, plain"},
			{"me.png", pipeline.TypePNG, doctexttest.PNG(), pipeline.TextNone, ""},
			{"me.jpg", pipeline.TypeJPEG, doctexttest.JPEG(), pipeline.TextNone, ""},
		}
		for _, f := range files {
			r := e.upload(t, graceDocuments(e), e.token("mia"), nil, part{name: "file", filename: f.name, content: f.content}, part{name: "kind", content: []byte("other")})
			require.Equal(t, http.StatusCreated, r.Code, "%s %s", f.name, r.Body)
			d := r.Data(t)
			id := num(t, d["id"])
			assert.Equal(t, graceDocuments(e)+"/"+itoa(id), r.Header.Get("Location"))
			assert.Equal(t, f.ctype, d["content_type"])
			assert.Equal(t, f.name, d["filename"])
			assert.Equal(t, "other", d["kind"])
			assert.Equal(t, float64(len(f.content)), d["size"])
			if f.status == pipeline.TextNone {
				assert.Equal(t, pipeline.TextNone, d["text_status"])
				requireValidation(t, e.do(t, "GET", graceDocuments(e)+"/"+itoa(id)+"/text", e.token("mia"), nil), "document")
			} else {
				assert.Equal(t, pipeline.TextPending, d["text_status"])
				pending := e.do(t, "GET", graceDocuments(e)+"/"+itoa(id)+"/text", e.token("mia"), nil)
				requireError(t, pending, http.StatusConflict, pipeline.EConflict)
				assert.Equal(t, "2", pending.Header.Get(HeaderRetryAfter))
				e.extract(t, id)
				tr := e.do(t, "GET", graceDocuments(e)+"/"+itoa(id)+"/text", e.token("mia"), nil)
				require.Equal(t, http.StatusOK, tr.Code, "%s", tr.Body)
				assert.Contains(t, tr.Data(t)["text"], f.text)
				assert.Equal(t, false, tr.Data(t)["truncated"])
				assert.Nil(t, tr.Data(t)["next_offset"])
			}
			dl := e.fetch(t, graceDocuments(e)+"/"+itoa(id)+"/content", e.token("mia"))
			require.Equal(t, http.StatusOK, dl.Code)
			assert.Equal(t, f.content, dl.Body.Bytes())
			assert.Equal(t, f.ctype, dl.Header().Get("Content-Type"))
			assert.Equal(t, "attachment; filename*=UTF-8''"+f.name, dl.Header().Get("Content-Disposition"))
			assert.Equal(t, "nosniff", dl.Header().Get("X-Content-Type-Options"))
			assert.Equal(t, "sandbox; default-src 'none'", dl.Header().Get("Content-Security-Policy"))
			assert.Equal(t, `"`+d["sha256"].(string)+`"`, dl.Header().Get("ETag"))
			assert.Equal(t, http.StatusNotModified, e.fetch(t, graceDocuments(e)+"/"+itoa(id)+"/content", e.token("mia"), "If-None-Match", dl.Header().Get("ETag")).Code)
			part := e.fetch(t, graceDocuments(e)+"/"+itoa(id)+"/content", e.token("mia"), "Range", "bytes=0-3")
			assert.Equal(t, http.StatusPartialContent, part.Code)
			assert.Equal(t, f.content[:4], part.Body.Bytes())
		}
		l := e.do(t, "GET", graceDocuments(e), e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, l.Code)
		items := l.Items(t)
		require.Len(t, items, len(files))
		assert.Equal(t, "me.jpg", items[0]["filename"], "newest first")
		var added int
		for _, a := range e.Activity(t) {
			if a.Action == pipeline.ActionCandidateDocumentAdded {
				added++
			}
		}
		assert.Equal(t, len(files), added)
	})
	eachStore(t, "text by parts", func(t *testing.T, e *env) {
		r := e.upload(t, graceDocuments(e), e.token("mia"), nil, part{name: "file", filename: "a.txt", content: []byte("héllo wörld")})
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		id := num(t, r.Data(t)["id"])
		e.extract(t, id)
		tr := e.do(t, "GET", graceDocuments(e)+"/"+itoa(id)+"/text?offset=1&limit=4", e.token("mia"), nil)
		require.Equal(t, http.StatusOK, tr.Code, "%s", tr.Body)
		assert.Equal(t, map[string]any{"text": "éllo", "truncated": false, "offset": 1.0, "next_offset": 5.0}, tr.Data(t))
		requireValidation(t, e.do(t, "GET", graceDocuments(e)+"/"+itoa(id)+"/text?offset=-1", e.token("mia"), nil), "offset")
		requireValidation(t, e.do(t, "GET", graceDocuments(e)+"/"+itoa(id)+"/text?limit=0", e.token("mia"), nil), "limit")
	})
	eachStore(t, "refusals", func(t *testing.T, e *env) {
		up := func(parts ...part) *Response { return e.upload(t, graceDocuments(e), e.token("mia"), nil, parts...) }
		requireValidation(t, up(part{name: "file", filename: "x.gif", content: []byte("GIF89a\x01\x00\x01\x00\x80\x00")}), "file")
		requireValidation(t, up(part{name: "file", filename: "x.exe", content: []byte("MZ\x90\x00\x03")}), "file")
		requireValidation(t, up(part{name: "file", filename: "empty.txt", content: nil}), "file")
		requireValidation(t, up(part{name: "kind", content: []byte("resume")}), "file")
		requireValidation(t, up(part{name: "file", filename: "a.txt", content: []byte("a")}, part{name: "file", filename: "b.txt", content: []byte("b")}), "file")
		requireValidation(t, up(part{name: "file", filename: "a.txt", content: []byte("a")}, part{name: "extra", content: []byte("x")}), "extra")
		requireValidation(t, up(part{name: "file", filename: "a.txt", content: []byte("a")}, part{name: "kind", content: []byte("RESUME")}), "kind")
		requireError(t, e.do(t, "POST", graceDocuments(e), e.token("mia"), map[string]any{"file": "x"}), http.StatusUnsupportedMediaType, CodeUnsupportedMediaType)
		requireError(t, up(part{name: "file", filename: "big.txt", content: bytes.Repeat([]byte("a"), pipeline.DefaultMaxDocumentBytes+1)}), http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
		assert.Equal(t, http.StatusForbidden, up(part{name: "file", filename: "a.txt", content: []byte("a")}).Code*0+e.upload(t, graceDocuments(e), e.token("olivia_jobs_read"), nil, part{name: "file", filename: "a.txt", content: []byte("a")}).Code)
		l := e.do(t, "GET", graceDocuments(e), e.token("mia"), nil)
		assert.Len(t, l.Items(t), 1, "only the one upload that was allowed")
	})
	eachStore(t, "filename, key and removal", func(t *testing.T, e *env) {
		name := "C:\\Users\\x/../evil\u202Efdp\t.exe"
		hdr := []string{IdempotencyKeyHeader, "doc-1"}
		r := e.upload(t, graceDocuments(e), e.token("mia"), hdr, part{name: "file", filename: name, content: []byte("text")})
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		assert.Equal(t, "evilfdp.exe", r.Data(t)["filename"])
		again := e.upload(t, graceDocuments(e), e.token("mia"), hdr, part{name: "file", filename: name, content: []byte("text")})
		assert.Equal(t, "true", again.Header.Get(ReplayHeader))
		assert.Equal(t, r.Data(t), again.Data(t))
		other := e.upload(t, graceDocuments(e), e.token("mia"), hdr, part{name: "file", filename: name, content: []byte("other text")})
		requireValidation(t, other, IdempotencyKeyHeader)

		id := itoa(num(t, r.Data(t)["id"]))
		del := e.do(t, "DELETE", graceDocuments(e)+"/"+id, e.token("mia"), nil)
		require.Equal(t, http.StatusNoContent, del.Code, "%s", del.Body)
		assert.Equal(t, http.StatusNotFound, e.do(t, "GET", graceDocuments(e)+"/"+id, e.token("mia"), nil).Code)
		assert.Equal(t, http.StatusNotFound, e.fetch(t, graceDocuments(e)+"/"+id+"/content", e.token("mia")).Code)
		last := e.Activity(t)
		assert.Equal(t, pipeline.ActionCandidateDocumentRemoved, last[len(last)-1].Action)
		assert.JSONEq(t, `{"document_id": `+id+`}`, string(last[len(last)-1].Changes))
	})
}

var _ = strings.Repeat
