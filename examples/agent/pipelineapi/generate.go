package pipelineapi

// The client is generated from the API's OpenAPI document by the
// oapi-codegen version pinned in go.mod; CI regenerates it and fails on a
// difference, so it always matches the document.
//go:generate go tool oapi-codegen -config oapi-codegen.yaml ../../../pipelinehttp/openapi.yaml
