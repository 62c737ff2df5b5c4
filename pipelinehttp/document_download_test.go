package pipelinehttp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/doctext/doctexttest"
)

// download asks for a document's bytes with method (GET or HEAD) and
// checks the answer against the document, whatever its media type.
func (e *env) download(t *testing.T, method, path, token string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	checkResponse(t, req, nil, rec.Code, rec.Header(), rec.Body.Bytes())
	return rec
}

// TestAPI_DocumentDownload: a download is answered as the document says:
// with the stored type, which the document lists; HEAD with the same
// headers and no body; a range it cannot satisfy with the error envelope.
func TestAPI_DocumentDownload(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		for _, f := range []struct {
			name, ctype string
			content     []byte
		}{
			{"cv.txt", pipeline.TypeText, []byte("Grace Hopper, rear admiral.")},
			{"cv.pdf", pipeline.TypePDF, doctexttest.PDF("Grace Hopper resume")},
		} {
			up := e.upload(t, graceDocuments(e), e.token("mia"), nil, part{name: "file", filename: f.name, content: f.content})
			require.Equal(t, http.StatusCreated, up.Code, "%s", up.Body)
			path := graceDocuments(e) + "/" + itoa(num(t, up.Data(t)["id"])) + "/content"

			get := e.download(t, "GET", path, e.token("mia"))
			require.Equal(t, http.StatusOK, get.Code, "%s", get.Body)
			assert.Equal(t, f.ctype, get.Header().Get("Content-Type"))
			assert.Equal(t, f.content, get.Body.Bytes())

			head := e.download(t, "HEAD", path, e.token("mia"))
			require.Equal(t, http.StatusOK, head.Code, "%s: %s", f.name, head.Body)
			assert.Empty(t, head.Body.Bytes(), "HEAD has no body")
			for _, h := range []string{"Content-Type", "Content-Disposition", "ETag", "Last-Modified", "Accept-Ranges",
				"X-Content-Type-Options", "Content-Security-Policy", "Cache-Control"} {
				assert.Equal(t, get.Header().Get(h), head.Header().Get(h), "%s of HEAD %s", h, f.name)
			}
			assert.Equal(t, strconv.Itoa(len(f.content)), head.Header().Get("Content-Length"))

			// A range past the end: 416 in the envelope, with the size.
			over := e.download(t, "GET", path, e.token("mia"), "Range", "bytes=100000-")
			require.Equal(t, http.StatusRequestedRangeNotSatisfiable, over.Code, "%s", over.Body)
			assert.Equal(t, jsonContentType, over.Header().Get("Content-Type"))
			assert.Empty(t, over.Header().Get("Content-Disposition"))
			r := &Response{Code: over.Code, Header: over.Header(), Body: over.Body.Bytes()}
			require.NoError(t, json.Unmarshal(r.Body, &r.JSON), "%s", r.Body)
			checkErrorEnvelope(t, r)
			assert.Equal(t, CodeRangeNotSatisfiable, r.ErrorCode())
			assert.Equal(t, "bytes */"+strconv.Itoa(len(f.content)), over.Header().Get("Content-Range"))
		}

		// HEAD answers as GET does to a token that may not read it.
		missing := e.download(t, "HEAD", graceDocuments(e)+"/999999/content", e.token("mia"))
		assert.Equal(t, http.StatusNotFound, missing.Code)
	})
}
