// Package pipeline is the domain of a recruitment-pipeline API: jobs, their
// stages and candidates, notes, ratings, tokens and the activity log.
//
// A [Service] implements every operation of the API on behalf of the
// [Caller] found on the context (see [NewContext]). Each operation checks
// the caller's scope, then loads what it needs through the visibility rule
// (a record the caller cannot reach is not found), then validates its input
// and acts. A face that could not read all of an input (a malformed body,
// a parameter of the wrong type) says so in the input's Unread field, and
// the operation answers it where the input's validation comes, merged with
// what is wrong with the rest; for an operation that takes only ids,
// [Answer] does the same. Callers come only from [Service.Authenticate], given a token, or
// from [Operator.ActAs]; any other Caller is unauthenticated. An embedding
// program therefore gets exactly the guarantees of the HTTP API served by
// package pipelinehttp.
//
// Writes take an optional [Idempotency] key in their input and return a
// [Result]: the value written, or the value stored under the key by an
// earlier identical call, marked Replayed. A write, its activity entry and
// its idempotency record commit together or not at all.
//
// The activity log goes out two ways: [Service.ListActivity], a feed read
// from a cursor that never skips an entry that commits late, and webhooks
// ([Service.CreateWebhook]), whose messages the store enqueues in the
// write's own transaction and a [Dispatcher] delivers through a [Sender].
//
// What an operator does outside any token's reach (loading worlds, issuing
// and revoking tokens, reading the whole activity log) is on [Operator],
// which request handlers are never given.
//
// Errors are *[Error] values with the API's codes; errors.Is matches them
// against the sentinels [ErrNotFound], [ErrValidation] and the others. Any
// operation may also fail with [ErrUnavailable] when the storage cannot be
// reached or does not answer before the context's deadline; nothing of it is
// then committed. Text given to an operation must be valid UTF-8 without NUL
// characters ([ValidText]): other text is refused as invalid, never
// repaired, so what is stored is what the caller gave.
// Storage is behind the [Store] interface, implemented by package
// pipelinestore for PostgreSQL and SQLite. This package depends on neither.
package pipeline
