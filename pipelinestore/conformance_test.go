package pipelinestore_test

import (
	"testing"

	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// knownFailures are the conformance cases each dialect is known to fail,
// with the bug: skipped until it is mended.
var knownFailures = map[string][]storetest.Known{}

// TestConformance holds both dialects to the rules of the pipeline.Store
// contract; .ci/run runs it again through a transaction pooler and with
// prepared statements.
func TestConformance(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		storetest.Conformance(t, db, knownFailures[db.Dialect()]...)
	})
}
