package pipelineapi

// The client is generated from the API's OpenAPI document by the
// oapi-codegen version pinned in .ci/tools/go.mod (a module of its own, so
// the generator stays out of the library's go.mod); CI regenerates it and
// fails on a difference, so it always matches the document.
//go:generate go tool -modfile=../../../.ci/tools/go.mod oapi-codegen -config oapi-codegen.yaml ../../../pipelinehttp/openapi.yaml
