package pipelinehttp

import (
	"encoding/json"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// JSON schemas of the parameters and bodies, which the MCP face's tools
// and the OpenAPI document both declare.

// bodySchemas are the schemas of the body types whose values the API
// documents: the types carry them into every schema generated from a
// struct that holds them.
var bodySchemas = func() *jsonschema.ForOptions {
	var scopes []string
	for _, s := range pipeline.AllScopes {
		scopes = append(scopes, string(s))
	}
	return &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[pipeline.JobStatus]():   statusSchema,
		reflect.TypeFor[pipeline.RatingValue](): ratingSchema,
		reflect.TypeFor[pipeline.Scope]():       enumSchema(scopes...),
		reflect.TypeFor[json.RawMessage]():      {Type: "object"}, // an entry's changes
	}}
}()

// schemaFor is the JSON schema of T: an argument struct, whose optional
// arguments are absent rather than null (the API refuses null), or an API
// body, whose arrays are never null.
func schemaFor[T any](input bool) *jsonschema.Schema {
	s, err := jsonschema.For[T](bodySchemas)
	if err != nil {
		panic(err) // the types are this package's; its tests build every schema
	}
	dropNull(s, input)
	return s
}

// dropNull removes null from the types the schema allows where the API
// never sends or takes it: everywhere in arguments, for arrays in bodies.
func dropNull(s *jsonschema.Schema, all bool) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" && (all || s.Types[1] == "array") {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		dropNull(p, all)
	}
	dropNull(s.Items, all)
}

// idSchema is a positive integer's.
func idSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "integer", Minimum: jsonschema.Ptr(1.0)}
}

// textSchema is a string's of minLen to maxLen characters (0: no bound)
// matching pattern.
func textSchema(minLen, maxLen int, pattern string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string", Pattern: pattern}
	if maxLen > 0 {
		s.MaxLength = jsonschema.Ptr(maxLen)
	}
	if minLen > 0 {
		s.MinLength = jsonschema.Ptr(minLen)
	}
	return s
}

// enumSchema is a string's of one of values.
func enumSchema(values ...string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string"}
	for _, v := range values {
		s.Enum = append(s.Enum, v)
	}
	return s
}

// described is s with a description, for a tool's argument.
func described(s *jsonschema.Schema, doc string) *jsonschema.Schema {
	c := *s
	c.Description = doc
	return &c
}
