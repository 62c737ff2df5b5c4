package storetest

import (
	"context"
	"net/url"
	"os"
	"testing"

	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// S3Env names the environment variable holding the URL of an S3 bucket
// where tests may keep documents' bytes, in PIPELINE_BLOB_URL's form
// (s3://BUCKET?endpoint=http://HOST:PORT&region=REGION), signed with
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY. Without it the S3 tests
// are skipped, except under CI=true, where they fail.
const S3Env = "PIPELINE_TEST_S3"

// S3URL returns the URL of a fresh, empty place in the test bucket (a
// key prefix of its own), skipping the test when PIPELINE_TEST_S3 is
// not set (failing it under CI=true). What is left there is removed at
// cleanup.
func S3URL(tb testing.TB) string {
	tb.Helper()
	raw := os.Getenv(S3Env)
	if raw == "" {
		const msg = S3Env + " not set: the tests of documents' bytes in an S3 store skipped; .ci/run starts SeaweedFS"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg + " (CI=true: S3 tests must run)")
		}
		tb.Skip(msg)
	}
	u, err := url.Parse(raw)
	if err != nil {
		tb.Fatalf("storetest: %s: %v", S3Env, err)
	}
	u.Path = "/test-" + randomHex(8)
	s := openS3(tb, u.String())
	Report("s3: %s", tb.Name())
	tb.Cleanup(func() {
		ctx := context.Background()
		for info, err := range s.List(ctx, "") {
			if err != nil {
				tb.Errorf("storetest: list the test's objects: %v", err)
				return
			}
			if err := s.Remove(ctx, info.Key); err != nil {
				tb.Errorf("storetest: remove %s: %v", info.Key, err)
			}
		}
	})
	return u.String()
}

// OpenS3 returns a BlobStore in a fresh place of the test bucket: see
// S3URL.
func OpenS3(tb testing.TB) *pipelinestore.S3 {
	tb.Helper()
	return openS3(tb, S3URL(tb))
}

func openS3(tb testing.TB, rawURL string) *pipelinestore.S3 {
	tb.Helper()
	s, err := pipelinestore.OpenS3(rawURL, os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"))
	if err != nil {
		tb.Fatalf("storetest: %s: %v", S3Env, err)
	}
	return s
}

// EachStore runs fn as EachDB does, on SQLite and PostgreSQL with
// documents' bytes in the database, then again as subtests "sqlite_s3"
// and "postgres_s3" with them in the test's S3 bucket.
func EachStore(t *testing.T, fn func(t *testing.T, db *pipelinestore.DB), opts ...pipelinestore.Option) {
	t.Helper()
	EachDB(t, fn, opts...)
	withS3 := func(tb testing.TB) []pipelinestore.Option {
		return append(opts[:len(opts):len(opts)], pipelinestore.WithBlobStore(OpenS3(tb)))
	}
	t.Run("sqlite_s3", func(t *testing.T) { fn(t, OpenSQLite(t, withS3(t)...)) })
	t.Run("postgres_s3", func(t *testing.T) {
		PostgresDSN(t) // skip before touching the bucket when there is no server
		fn(t, OpenPostgres(t, withS3(t)...))
	})
}
