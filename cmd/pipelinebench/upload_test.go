package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The upload scenario sends a PDF of about 200 KiB that the server takes
// for a PDF.
func TestResumePDF(t *testing.T) {
	pdf := resumePDF()
	assert.GreaterOrEqual(t, len(pdf), uploadSize)
	assert.Less(t, len(pdf), uploadSize+8<<10)
	assert.Equal(t, pipeline.TypePDF, pipeline.DetectType(pdf))
	assert.NoError(t, pipeline.NewDocument{Filename: uploadFilename, Content: pdf}.Validate())
}
