package pipelinehttp

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gin-gonic/gin"
)

// openapiYAML is the OpenAPI 3.1 document of the API, as maintained in the
// source tree.
//
//go:embed openapi.yaml
var openapiYAML []byte

// loadOpenAPI parses and validates the embedded document. The document is
// part of the binary, so its failure is a bug of the build, not of the
// environment; a test proves it loads.
func loadOpenAPI() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openapiYAML)
	if err != nil {
		return nil, fmt.Errorf("pipelinehttp: loading the embedded openapi.yaml: %w", err)
	}
	if err := doc.Validate(loader.Context, openapi3.IsOpenAPI31OrLater()); err != nil {
		return nil, fmt.Errorf("pipelinehttp: the embedded openapi.yaml is not a valid OpenAPI 3.1 document: %w", err)
	}
	return doc, nil
}

// openapiJSON is the document as JSON, computed on first use rather than at
// package initialisation so that importing the package cannot fail.
var openapiJSON = sync.OnceValues(func() ([]byte, error) {
	doc, err := loadOpenAPI()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the descriptions hold HTML samples and arrows
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("pipelinehttp: encoding the OpenAPI document as JSON: %w", err)
	}
	return buf.Bytes(), nil
})

// mustOpenAPIJSON returns the document as JSON. It panics only when the
// embedded document is broken, which the package's tests rule out.
func mustOpenAPIJSON() []byte {
	b, err := openapiJSON()
	if err != nil {
		panic(err)
	}
	return b
}

// OpenAPIDocument returns the OpenAPI 3.1 document of the API as JSON: every
// operation under /api/v1 with its scope, parameters, request body, responses
// and headers, plus /healthz and /readyz. It is the document served at
// GET /api/v1/openapi.json. The slice is a copy; the caller may keep or
// change it.
func OpenAPIDocument() []byte {
	return bytes.Clone(mustOpenAPIJSON())
}

// serveOpenAPI serves OpenAPIDocument.
func serveOpenAPI(c *gin.Context) {
	c.Data(http.StatusOK, jsonContentType, mustOpenAPIJSON())
}
