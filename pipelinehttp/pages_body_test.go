package pipelinehttp_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// countingBody is a request body of filler bytes between head and tail,
// which counts the bytes the server read of it.
type countingBody struct {
	head, tail []byte
	left       int64 // filler bytes still to give
	read       atomic.Int64
}

func newCountingBody(head string, filler int64) *countingBody {
	return &countingBody{head: []byte(head), left: filler}
}

func (b *countingBody) Read(p []byte) (int, error) {
	n := copy(p, b.head)
	b.head = b.head[n:]
	for n < len(p) && b.left > 0 {
		p[n] = 'a'
		n++
		b.left--
	}
	if b.left == 0 {
		m := copy(p[n:], b.tail)
		b.tail = b.tail[m:]
		n += m
	}
	b.read.Add(int64(n))
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// TestPages_BodyLimit: a POST to the pages reads at most 64 KiB of body,
// answering 413 beyond without reading further, and a POST without a
// session or pre-session cookie is refused before its body is read, so
// that no multipart part reaches a temporary file.
func TestPages_BodyLimit(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where multipart parts would be spilled
	f := storetest.Seeded(t, storetest.OpenSQLite(t))
	h := pipelinehttp.New(f.Svc, pipelinehttp.Config{})

	form := httptest.NewRecorder()
	h.ServeHTTP(form, httptest.NewRequest(http.MethodGet, "/app/sign-in", nil))
	require.Equal(t, http.StatusOK, form.Code)
	pre := cookieOf(&http.Response{Header: form.Header()}, "pipeline_csrf")
	require.NotNil(t, pre)
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(form.Body.String())
	require.NotNil(t, csrf)

	post := func(path, contentType string, body io.Reader, length int64, cookie *http.Cookie) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, path, body)
		req.ContentLength = length
		req.Header.Set("Content-Type", contentType)
		if cookie != nil {
			req.AddCookie(cookie)
		}
		res := httptest.NewRecorder()
		h.ServeHTTP(res, req)
		return res
	}
	const limit = 64 << 10
	urlencoded := "application/x-www-form-urlencoded"
	fields := "csrf=" + url.QueryEscape(csrf[1]) + "&email=olivia%40acme.test&filler="

	t.Run("within the limit", func(t *testing.T) {
		body := newCountingBody(fields, limit-int64(len(fields))-100)
		res := post("/app/sign-in", urlencoded, body, -1, pre)
		assert.Equal(t, http.StatusOK, res.Code, res.Body.String())
		assert.Contains(t, res.Body.String(), "If this address belongs to an account")
	})

	t.Run("beyond the limit, its length unknown", func(t *testing.T) {
		body := newCountingBody(fields, 40<<20)
		res := post("/app/sign-in", urlencoded, body, -1, pre)
		assert.Equal(t, http.StatusRequestEntityTooLarge, res.Code)
		assert.Contains(t, res.Header().Get("Content-Type"), "text/html")
		assert.LessOrEqual(t, body.read.Load(), int64(limit+4096), "read no further than the limit")
	})

	t.Run("beyond the limit, as its length says", func(t *testing.T) {
		body := newCountingBody(fields, 40<<20)
		res := post("/app/sign-in", urlencoded, body, int64(len(fields))+40<<20, pre)
		assert.Equal(t, http.StatusRequestEntityTooLarge, res.Code)
		assert.Zero(t, body.read.Load(), "nothing read")
	})

	t.Run("a multipart file beyond the limit", func(t *testing.T) {
		body, contentType := multipartFile(t, csrf[1], 300<<20)
		res := post("/app/sign-in", contentType, body, -1, pre)
		assert.Equal(t, http.StatusRequestEntityTooLarge, res.Code)
		assert.LessOrEqual(t, body.read.Load(), int64(limit+4096))
		assertNoSpill(t, tmp)
	})

	for _, path := range []string{"/app/sign-in", "/app/sign-in/abc", "/app/tokens", "/app/sign-out", "/app/approvals/1"} {
		t.Run("no cookie "+path, func(t *testing.T) {
			body, contentType := multipartFile(t, "", 300<<20)
			res := post(path, contentType, body, -1, nil)
			assert.Equal(t, http.StatusForbidden, res.Code)
			assert.Contains(t, res.Header().Get("Content-Type"), "text/html")
			assert.Zero(t, body.read.Load(), "refused before its body is read")
			assertNoSpill(t, tmp)
		})
	}
}

// multipartFile is a whole multipart form of a csrf field, when not
// empty, and a file part of size bytes.
func multipartFile(t *testing.T, csrf string, size int64) (*countingBody, string) {
	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	if csrf != "" {
		require.NoError(t, mw.WriteField("csrf", csrf))
	}
	_, err := mw.CreateFormFile("file", "big.bin")
	require.NoError(t, err)
	at := head.Len()
	require.NoError(t, mw.Close())
	body := newCountingBody(head.String()[:at], size)
	body.tail = []byte(head.String()[at:])
	return body, mw.FormDataContentType()
}

// assertNoSpill: no multipart part was written to a temporary file in dir.
func assertNoSpill(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), "multipart-"), "spilled to %s", e.Name())
	}
}
