package pipelinestore_test

import (
	"testing"

	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestConformance holds both dialects to the rules of the pipeline.Store
// contract; .ci/run runs it again through a transaction pooler and with
// prepared statements.
func TestConformance(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		storetest.Conformance(t, db)
	})
}
