package main

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

func TestConfig_BlobURL(t *testing.T) {
	t.Parallel()
	t.Run("refused at start", func(t *testing.T) {
		for _, tc := range []struct {
			vars map[string]string
			want string
		}{
			{map[string]string{"PIPELINE_BLOB_URL": "http://bucket"}, "PIPELINE_BLOB_URL"},
			{map[string]string{"PIPELINE_BLOB_URL": "s3://bucket?endpoint=ftp://127.0.0.1:1"}, "endpoint"},
			{map[string]string{"PIPELINE_BLOB_URL": "s3://bucket?endpoint=http://127.0.0.1:1&acl=public"}, `"acl"`},
			{map[string]string{"PIPELINE_BLOB_URL": "s3://bucket?endpoint=http://127.0.0.1:1", "AWS_SECRET_ACCESS_KEY": "topsecret"}, "AWS_ACCESS_KEY_ID"},
			{map[string]string{"PIPELINE_BLOB_URL": "s3://key:topsecret@bucket?endpoint=http://127.0.0.1:1"}, "AWS_SECRET_ACCESS_KEY"},
			{map[string]string{"PIPELINE_BLOB_URL": "s3://key:topsecret%zz@bucket"}, "PIPELINE_BLOB_URL"},
		} {
			m := newMain(t, filepath.Join(t.TempDir(), "pipeline.db"))
			for k, v := range tc.vars {
				m.env[k] = v
			}
			_, stderr, err := m.Run("", "serve")
			require.Error(t, err, tc.vars)
			assert.Contains(t, stderr, tc.want, tc.vars)
			assert.NotContains(t, stderr, "topsecret", tc.vars)
		}
	})
	t.Run("a bucket that is not there", func(t *testing.T) {
		u, err := url.Parse(storetest.S3URL(t))
		require.NoError(t, err)
		u.Host = "no-such-bucket"
		m := newMain(t, filepath.Join(t.TempDir(), "pipeline.db"))
		m.env["PIPELINE_BLOB_URL"] = u.String()
		m.env["AWS_ACCESS_KEY_ID"], m.env["AWS_SECRET_ACCESS_KEY"] = os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
		_, stderr, err := m.Run("", "serve")
		require.Error(t, err)
		assert.Contains(t, stderr, "PIPELINE_BLOB_URL: S3 bucket no-such-bucket does not exist")
	})
}

// TestServe_DocumentsInS3: with PIPELINE_BLOB_URL, serve keeps an
// uploaded document's bytes in the bucket, under the document's id, and
// serves them back from there.
func TestServe_DocumentsInS3(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		s3URL := storetest.S3URL(t)
		m.env["PIPELINE_BLOB_URL"] = s3URL
		m.env["AWS_ACCESS_KEY_ID"], m.env["AWS_SECRET_ACCESS_KEY"] = os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
		seeded := m.Seed("testdata/seed.json")
		tok := m.CreateToken("olivia@acme.test", "ci", "candidates:read,candidates:write")
		srv := m.Serve()

		content := []byte("Ada Lovelace, analyst.\n")
		var body bytes.Buffer
		w := multipart.NewWriter(&body)
		fw, err := w.CreateFormFile("file", "cv.txt")
		require.NoError(t, err)
		_, err = fw.Write(content)
		require.NoError(t, err)
		require.NoError(t, w.Close())
		docs := "/api/v1/jobs/" + strconv.FormatInt(seeded.Jobs["backend"], 10) + "/candidates/" + strconv.FormatInt(seeded.Candidates["ada"], 10) + "/documents"
		resp := srv.Request("POST", docs, tok.Token, body.String(), "Content-Type", w.FormDataContentType())
		resp.Body.Close()
		require.Equal(t, http.StatusCreated, resp.StatusCode)

		s, err := pipelinestore.OpenS3(s3URL, os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"))
		require.NoError(t, err)
		var keys []string
		for info, err := range s.List(context.Background(), "") {
			require.NoError(t, err)
			keys = append(keys, info.Key)
		}
		require.Len(t, keys, 1)
		r, err := s.Open(context.Background(), keys[0])
		require.NoError(t, err)
		stored, err := io.ReadAll(r)
		r.Close()
		require.NoError(t, err)
		assert.Equal(t, content, stored, "the bytes are in the bucket")

		dl := srv.Request("GET", resp.Header.Get("Location")+"/content", tok.Token, "")
		got, err := io.ReadAll(dl.Body)
		dl.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, dl.StatusCode)
		assert.Equal(t, content, got)
	})
}
