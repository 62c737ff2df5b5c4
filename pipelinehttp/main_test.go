package pipelinehttp

import (
	"fmt"
	"os"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline/doctext"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestMain runs the package's tests with Gin quiet, then reports how many
// responses were checked against the OpenAPI document, so that a CI log shows
// how much of the contract the run exercised.
func TestMain(m *testing.M) {
	doctext.ServeChildIfAsked() // the child that reads documents' text
	gin.SetMode(gin.TestMode)
	code := m.Run()
	msg := fmt.Sprintf("openapi: %d responses validated against the document", validatedResponses.Load())
	fmt.Println(msg)
	storetest.Report("%s", msg)
	os.Exit(code)
}
