// Package pipeline is the domain of a recruitment-pipeline API: jobs, their
// stages and candidates, notes, ratings, tokens and the activity log.
//
// # The module
//
// This package holds the domain types, the [Service] with every operation
// and its scope and visibility checks, the [Operator] for what an operator
// does outside any token's reach, the [Store] interface they consume, and
// the errors. It depends on no other package of the module:
//
//   - package pipelinestore implements [Store] on Bun for PostgreSQL and
//     SQLite, with embedded migrations (Migrate, ApplyMigrations, and
//     MigrationStatus, which only reads), the rate limiter (in the database
//     on PostgreSQL, so replicas share one budget) and the queue of webhook
//     messages (StartDeliveries works it with a [Dispatcher]) and of
//     messages to candidates (with a [Postman]);
//   - package pipeline/mail is the [Mailer] of those messages: SMTP with
//     go-mail (STARTTLS required on smtp://), or the log;
//   - package pipelinehttp serves a Service as JSON over HTTP on Gin (New
//     for a whole engine, Mount below a route group of an existing
//     application) and as Model Context Protocol tools at /mcp, and signs
//     and sends webhook deliveries (NewWebhookSender);
//   - command pipelined wires them into one binary with the operator's
//     commands, metrics and traces ("pipelined help").
//
// # Embedding
//
// A program opens a store, migrates it, and gives request handlers a
// Service and trusted setup code an Operator:
//
//	db, err := pipelinestore.Open(ctx, "pipeline.db") // or "postgres://…"
//	if err != nil { return err }
//	defer db.Close()
//	if err := db.Migrate(ctx); err != nil { return err }
//	svc := pipeline.NewService(db, pipeline.WithLimiter(db.Limiter(60))) // for request handlers
//	op := pipeline.NewOperator(db)  // for seeding, tokens, the whole log
//
//	ctx, _, err := svc.Admit(ctx, token, clientIP) // "plt_…"; 401 and 429 as the API
//	if err != nil { return err }
//	jobs, err := svc.ListJobs(ctx, pipeline.JobFilter{}) // open jobs, page 1
//
//	// Or serve it: pipelinehttp.New(svc, pipelinehttp.Config{})
//
// The examples of this package run that way on a SQLite file; the
// repository's examples/embed is a whole program, and examples/mount serves
// the API inside another Gin application.
//
// # Code map
//
// Each part of the module, where the next engineer looks for it:
//
//   - pipeline (this package): op.go assembles the table of operations
//     from each resource's rows (jobOps in job.go, …), each row an Op with
//     its name (the MCP tool's, the document's operationId), scope, REST
//     method and path; one file per aggregate holds its Ops and rows, its
//     types, rules and Service methods (job.go, candidate.go and
//     intake.go, note.go, rating.go, message.go, interview_service.go,
//     webhook.go, feed.go, document.go, privacy.go, proposal.go,
//     session.go); admission.go authenticates and rate-limits
//     a request; idempotency.go is the write path every write takes (its
//     key, its reason, its transaction); store.go is the contract the
//     storage keeps.
//   - pipelinestore: the Store on Bun, a file per aggregate mirroring
//     these, whose SQL is in sql/common/ where the dialects agree and in
//     sql/postgres/ and sql/sqlite/ where they differ (a file per
//     aggregate), and migrations/ with a folder per dialect;
//     storetest/ holds the contract's conformance suite; queue.go runs River;
//     blob.go and s3.go keep documents' bytes in an S3-compatible store
//     (PIPELINE_BLOB_URL) instead of the database.
//   - pipelinehttp: the faces. Each resource's file (job.go, …) declares
//     how its operations' inputs are read (parameters and their schemas)
//     and their reads rendered; operation.go and input.go read an input; rest.go serves
//     the routes, mcp*.go the MCP tools, openapi_gen.go writes the
//     document (its prose in openapi/overlay.yaml), pages.go the people's
//     pages (approvals.go the approvals page, approval_text.go each
//     proposal in words).
//   - cmd/pipelined: the server and the operator's commands.
//
// Adding an operation:
//
//  1. its Service method, starting with authorize(ctx, OpX), in its
//     aggregate's file, with its Op and its row in that file's rows
//     (documentOps in document.go): its scope, REST method and path,
//     traits, for a write how a proposal's stored input runs (runs, with
//     the record its answer shows, record.go), and for a tool its Words;
//     a new resource also adds its rows to opTable in op.go, where its
//     operations come in the document;
//  2. its test, and its probe in the rows of the resource's test file
//     (documentProbes in document_test.go; TestOperations_Complete fails
//     until it has one);
//  3. its store method and SQL, and a migration per dialect when the
//     schema changes;
//  4. its entry in pipelinehttp's resource file: its parameters. The REST
//     route, the MCP tool and the document follow; run
//     go test ./pipelinehttp -run TestOpenAPI_Generated -update
//     and commit openapi.yaml.
//
// An operation's input is named for what it does to its record: New<Record>
// creates one (NewJob), <Record>Patch changes its fields (JobPatch), and
// <Record><Action> in a noun is any other write's (CandidateMove,
// MessageCancellation, MessageRetry, InterviewCancellation,
// WebhookDeletion, DocumentRemoval, ProposalDecision, PersonErasure); a
// list reads a <Record>Filter, another read that takes more than ids a
// <Thing>Query (PersonQuery, AvailabilityQuery).
//
// # Callers
//
// A [Service] implements every operation of the API on behalf of the
// [Caller] found on the context (see [NewContext]). Each operation checks
// the caller's scope, then loads what it needs through the visibility rule
// (a record the caller cannot reach is not found), then validates its input
// and acts. A face that could not read all of an input (a malformed body,
// a parameter of the wrong type) says so in the input's Unread field, and
// the operation answers it where the input's validation comes, merged with
// what is wrong with the rest; for an operation that takes only ids,
// [ResolveUnread] does the same. Callers come only from [Service.Admit] (or
// [Service.Authenticate], which does not count the request), given a
// token, or from [Operator.ActAs], for a program acting as one of its
// users ([Operator.ActOnProposal]: as one deciding a proposal in its
// team); any other Caller is unauthenticated. Admit is the API's first
// step: it authenticates and counts the request against its rate limit
// ([WithLimiter]), answering unauthenticated or rate_limited as the API
// does. An embedding program therefore gets exactly the guarantees of the
// HTTP API served by package pipelinehttp. A token is read from the store once a second per Service
// and token ([DefaultTokenTTL], [WithTokenTTL]), so a revoked token is
// refused within a second.
//
// # Writes
//
// Writes take an optional [Idempotency] key in their input, for that one
// call, and return a [Result]: the value written, or the value stored under
// the key by an earlier identical call, marked Replayed. The key is bound to
// the user and the request; reusing it for another request is invalid. A
// write, its activity entry and its idempotency record commit together or
// not at all.
//
// # Events
//
// The activity log goes out two ways: [Service.ListActivity], a feed read
// from a cursor that never skips an entry that commits late, and webhooks
// ([Service.CreateWebhook]), whose messages the store enqueues in the
// write's own transaction and a [Dispatcher] delivers through a [Sender],
// signed per Standard Webhooks. Webhook secrets are sealed under a
// [SecretKey] ([WithSecretKey]).
//
// # Mail
//
// [Service.SendMessage] writes an email to a candidate; the store queues
// it in the same transaction, due at its send_at, and a [Postman] sends it
// through a [Mailer] ([WithMail]) and records each attempt: sent once the
// server took its data, retried on [MailRetrySchedule] after a connection
// error, a time-out or a 4xx reply, failed at once on a 5xx. Each attempt
// carries the same Message-ID, so a crash between the server's reply and
// its record may send a message twice, never one whose write rolled back.
//
// With [WithInvitations] too, each schedule, change and cancellation of
// an interview queues, in its transaction, an [InvitationMail] to each
// interviewer and the candidate: the invitation as text/calendar (a
// REQUEST, or a CANCEL, with the interview's SEQUENCE), from the From
// address, which is then the calendar's organizer and domain. The same
// Postman sends them on the same schedule.
//
// What an operator does outside any token's reach (loading worlds, issuing
// and revoking tokens, reading the whole activity log and a team's
// proposals) is on [Operator],
// which request handlers are never given.
//
// # Errors
//
// Errors are *[Error] values with the API's codes; errors.Is matches them
// against the sentinels [ErrNotFound], [ErrValidation] and the others, and
// [Fields] gives a validation failure's messages by field. Any operation may
// also fail with [ErrUnavailable] when the storage cannot be reached or does
// not answer before the context's deadline; nothing of it is then
// committed, and a write retried with its idempotency key is safe. Text
// given to an operation must be valid UTF-8 without NUL characters
// ([ValidText]): other text is refused as invalid, never repaired, so what
// is stored is what the caller gave.
package pipeline
