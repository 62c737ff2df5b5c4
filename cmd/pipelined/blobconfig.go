package main

import (
	"context"
	"fmt"

	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// loadBlobConfig reads PIPELINE_BLOB_URL into cfg, signed with
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: a URL the store does not
// take, or one without both credentials, refuses to start. Unset, the
// documents' bytes stay in the database.
func loadBlobConfig(getenv func(string) string, cfg *config) error {
	raw := getenv("PIPELINE_BLOB_URL")
	if raw == "" {
		return nil
	}
	s, err := pipelinestore.OpenS3(raw, getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY"))
	if err != nil {
		return fmt.Errorf("PIPELINE_BLOB_URL: %w", err)
	}
	cfg.Blobs = s
	return nil
}

// checkBlobs reports an object store that cannot be reached, so that a
// server with a wrong bucket or key stops at its start rather than at
// its first upload.
func (cfg config) checkBlobs(ctx context.Context) error {
	if cfg.Blobs == nil {
		return nil
	}
	if err := cfg.Blobs.Check(ctx); err != nil {
		return fmt.Errorf("PIPELINE_BLOB_URL: %w", err)
	}
	return nil
}
