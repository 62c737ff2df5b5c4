// Package pipeline is the domain of a recruitment-pipeline API: jobs, their
// stages and candidates, notes, ratings, tokens and the activity log.
//
// A [Service] implements every operation of the API. Each operation checks the
// scope of the [Caller] found on the context (see [NewContext]), then loads
// what it needs through the visibility rule, then acts; a record the caller
// cannot reach is reported as not found. An embedding program that builds a
// Caller with [Service.Authenticate] gets exactly the guarantees of the HTTP
// API served by package pipelinehttp.
//
// Storage is behind the [Store] interface, implemented by package
// pipelinestore for PostgreSQL and SQLite. This package depends on neither.
package pipeline
