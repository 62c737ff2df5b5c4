package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The upload scenario sends a PDF of about 200 KiB that the server takes
// for a PDF, and that poppler's pdftotext reads (when installed).
func TestResumePDF(t *testing.T) {
	pdf := resumePDF()
	assert.GreaterOrEqual(t, len(pdf), uploadSize)
	assert.Less(t, len(pdf), uploadSize+8<<10)
	assert.Equal(t, pipeline.TypePDF, pipeline.DetectType(pdf))
	assert.NoError(t, pipeline.NewDocument{Filename: uploadFilename, Content: pdf}.Validate())
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not installed (Debian: poppler-utils)")
	}
	path := filepath.Join(t.TempDir(), uploadFilename)
	require.NoError(t, os.WriteFile(path, pdf, 0o600))
	var stderr bytes.Buffer
	cmd := exec.Command("pdftotext", path, "-")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	assert.Empty(t, stderr.String(), "pdftotext complains")
	assert.Contains(t, string(out), "Experience 2.40: designed and ran services in Go and PostgreSQL")
}
