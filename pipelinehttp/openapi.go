package pipelinehttp

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/gin-gonic/gin"
	"go.yaml.in/yaml/v3"
)

// openapiYAML is the OpenAPI 3.1 document of the API, generated from the
// table of operations and openapi/overlay.yaml (see generateOpenAPI).
//
//go:embed openapi.yaml
var openapiYAML []byte

// openapiJSON is the document as JSON, computed on first use rather than at
// package initialisation so that importing the package cannot fail. It is
// made from the YAML text itself. The tests validate the document as
// OpenAPI 3.1 (loadOpenAPI), so the binary carries no validator.
var openapiJSON = sync.OnceValues(func() ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(openapiYAML, &root); err != nil {
		return nil, fmt.Errorf("pipelinehttp: decoding the embedded openapi.yaml: %w", err)
	}
	v, err := yamlValue(&root)
	if err != nil {
		return nil, fmt.Errorf("pipelinehttp: the embedded openapi.yaml: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the descriptions hold HTML samples and arrows
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("pipelinehttp: encoding the OpenAPI document as JSON: %w", err)
	}
	return buf.Bytes(), nil
})

// yamlValue is the value of a YAML node as JSON sees it: a mapping is a
// map[string]any keyed by the keys as written, a sequence an []any, an alias
// its anchor's value. A scalar that YAML reads as a timestamp stays the text
// written: decoded, it would be a time.Time, and a date would gain a time.
func yamlValue(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return nil, fmt.Errorf("want one document, found %d", len(n.Content))
		}
		return yamlValue(n.Content[0])
	case yaml.AliasNode:
		return yamlValue(n.Alias)
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := yamlValue(c)
			if err != nil {
				return nil, err
			}
			s[i] = v
		}
		return s, nil
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
				return nil, fmt.Errorf("line %d: a key must be a plain scalar (merge keys are not supported)", k.Line)
			}
			if _, dup := m[k.Value]; dup {
				return nil, fmt.Errorf("line %d: key %q repeated", k.Line, k.Value)
			}
			v, err := yamlValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.ScalarNode:
		if n.ShortTag() == "!!timestamp" {
			return n.Value, nil
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %w", n.Line, err)
		}
		return v, nil
	}
	return nil, fmt.Errorf("line %d: unexpected YAML node kind %v", n.Line, n.Kind)
}

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
