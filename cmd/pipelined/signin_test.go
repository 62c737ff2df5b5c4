package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// TestCLI_SignInLink: sign-in-link prints an absolute link on
// PIPELINE_BASE_URL, else on the listen address, that signs the user in
// once.
func TestCLI_SignInLink(t *testing.T) {
	t.Parallel()
	seed, err := filepath.Abs("testdata/seed.json")
	require.NoError(t, err)
	db := filepath.Join(t.TempDir(), "x.db")
	require.Equal(t, 0, pipelined(t, nil, "seed", seed, "-db", db).code)

	r := pipelined(t, map[string]string{"PIPELINE_BASE_URL": "https://hiring.example/people"}, "sign-in-link", "--email", "olivia@acme.test", "-db", db)
	require.Equal(t, 0, r.code, r.stderr)
	m := regexp.MustCompile(`^https://hiring\.example/people/app/sign-in/([A-Za-z0-9_-]{43})\n$`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)

	r = pipelined(t, map[string]string{"PIPELINE_ADDR": "0.0.0.0:9911"}, "sign-in-link", "--email", "olivia@acme.test", "-db", db)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `^http://127\.0\.0\.1:9911/app/sign-in/[A-Za-z0-9_-]{43}\n$`, r.stdout)

	r = pipelined(t, nil, "sign-in-link", "--email", "nobody@acme.test", "-db", db)
	assert.Equal(t, 1, r.code)
	assert.Empty(t, r.stdout)

	store, err := pipelinestore.Open(context.Background(), db)
	require.NoError(t, err)
	defer store.Close()
	svc := pipeline.NewService(store)
	_, err = svc.SignIn(context.Background(), m[1])
	require.NoError(t, err, "the printed link signs in")
	_, err = svc.SignIn(context.Background(), m[1])
	assert.ErrorIs(t, err, pipeline.ErrNotFound, "once")
}

// TestReadme_Pages: the demo prints a link that opens the pages as its
// owner.
func TestReadme_Pages(t *testing.T) {
	t.Parallel()
	d := startDemo(t, nil)
	m := regexp.MustCompile(`(?m)^#   (http://\S+/app/sign-in/\S+)$`).FindStringSubmatch(d.srv.stdout.String())
	require.NotNil(t, m, d.srv.stdout.String())
	assert.True(t, strings.HasPrefix(m[1], d.srv.URL), m[1])
	res, err := http.Get(m[1])
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, string(body), "Sign in as <strong>o…@acme.test</strong>")
}
