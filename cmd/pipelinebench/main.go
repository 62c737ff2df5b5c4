// Command pipelinebench is the project's load benchmark. It measures our
// server, run as an operator runs it, against a bare Gin + pgx baseline
// that does the same work (with -sqlite, Gin + SQLite), in the same run
// and on the same dataset. It is a module of its own, so that what only
// the benchmark needs stays out of the library's go.mod; from the
// repository's root:
//
//	go run -C cmd/pipelinebench . -db 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
//
// -db defaults to $PIPELINE_BENCH_DB. Tables go to stdout as Markdown,
// progress to stderr. -scale adds the scale part; -scenarios and -cases
// pick what to load; -server runs a prebuilt pipelined instead of building
// ./cmd/pipelined; -keep keeps the schema and the servers' logs.
//
// -sqlite measures the embedded default instead (see SQLite below): no
// -db then.
//
// # Dataset
//
// A fresh schema pipelinebench_<random> of the -db server, dropped at the
// end; every connection of both servers uses it through search_path in the
// DSN. The skeleton is loaded with `pipelined seed FILE` (the operator
// contract): one team without a job limit; -users users, each with its own
// token of every scope, the first eighth owners and admins and the rest
// members; -jobs jobs on the default pipeline, owned by the admins (every
// tenth by a member) and each assigned to a quarter of the members, so that
// members reach different, overlapping sets of jobs; every member is
// assigned to the first job, the hot one. One more token of the first user
// carries jobs:read alone, for the check of the scope rule. Candidates are
// then inserted in bulk with one INSERT … SELECT over generate_series per
// size (nothing else is written to the tables directly, so whatever the
// schema keeps by triggers stays right): a first and a last name picked by
// hashes from lists of real names, some beyond ASCII, so that a last-name
// fragment selects about one in 150; name_fold from the lists folded in Go
// with pipeline.Fold, the store's own folding, and email_fold = lower(email)
// (emails are ASCII); stages in a funnel over the job's five; applied dates
// over two years. Then VACUUM (ANALYZE). -scale adds a job of 10,000 candidates and
// one of -scale-size.
//
// # Servers
//
// Ours is `pipelined serve` with PIPELINE_DB, PIPELINE_ADDR on a free
// loopback port and PIPELINE_RATE_LIMIT=1000000000, so that load is counted
// but never throttled, and mail configured (PIPELINE_SMTP_URL=log:) with
// PIPELINE_WEBHOOK_WORKERS=0, so that messages are queued and not sent; it is ready when GET /readyz answers 200 and is
// stopped with SIGTERM. The baseline is this binary re-executed as the
// hidden subcommand `pipelinebench baseline -db DSN -addr ADDR -rate-limit
// N`: Gin in release mode and a pgxpool of 32 connections, all opened at
// start, with pgx's default statement cache and, as ours,
// plan_cache_mode=force_generic_plan. Both access logs go to files
// in a temporary directory. The baseline serves what the scenarios use:
// GET /api/v1/me, GET /api/v1/jobs/:job, GET /api/v1/jobs/:job/candidates,
// the stage move, the note, the intake (POST /api/v1/jobs/:job/candidates),
// the message (POST .../candidates/:candidate/messages), the schedule
// (POST …/candidates/:candidate/interviews) and reschedule (PATCH
// …/interviews/:interview), the upload (POST
// …/candidates/:candidate/documents), GET /readyz and GET /debug/allocs. It does the work ours does,
// written the way a competent author with pgx would, and sends per request:
//
//   - every /api/ request: one statement that looks the token up by its
//     SHA-256 hash (after the shape and checksum check, which spares the
//     database a malformed token) joined with its user and current team,
//     and upserts the same fixed-window row of rate_limits as ours, under
//     the same bucket (user:<id>, or ip:<addr> without an active token);
//     at most once a minute per token an UPDATE of last_used_at, remembered
//     in memory; every thousandth request a background sweep of ended
//     windows. The X-RateLimit-* headers, X-Request-Id and a JSON access-log
//     line are as ours.
//   - /me: nothing more. A job: one query, through the visibility rule.
//   - a candidate page: one round trip of two pipelined statements, the
//     page (LIMIT/OFFSET through the visibility rule) and the exact count,
//     which also tells an unreachable job (404) and a stage of another job
//     (422) apart. Malformed parameters cost one query for the 404-first
//     order.
//   - a write: one round trip with BEGIN (pgx's Batch.BeginTx), the
//     candidate's row lock through the visibility rule, its read in a fresh
//     snapshot, the Idempotency-Key's advisory transaction lock (the same
//     lock id as ours) and record lookup, and the stage lookup (a move) or
//     the note id from its sequence (a note); then one round trip with the
//     change, the activity row (the same changes JSON) and the idempotency
//     record (the same fingerprint and body); then COMMIT.
//   - an intake: one round trip with BEGIN, the job read in share mode
//     through the visibility rule with the stage (the one sent, or its
//     first) and whether the folded email is taken, the key's lock and
//     record lookup as above, and the candidate's id from its sequence;
//     the body judged by the domain's own NewCandidate.Validate; then one
//     round trip with the candidate, its activity row and the idempotency
//     record (fingerprint pipeline.RequestDigest, as ours); then COMMIT. A
//     unique violation of the job's emails at the insert answers 422 on
//     email, as ours.
//   - a message (keyed, due now): the write's first round trip as above
//     with the message id from its sequence, the body judged by the
//     domain's own NewMessage.Validate; then one round trip with the
//     message row, its River job row (River's table, the messages queue),
//     its activity row and the idempotency record; then COMMIT. Only the
//     write is measured: neither server sends the mail.
//   - a schedule: the write's first round trip as above, with the
//     interviewers who are members of the job's team and the interview's
//     id from its sequence; the body judged by the domain's own
//     NewInterview.Validate, the clock and the candidate's status checked
//     as ours; then one round trip with the interview, its interviewers
//     (the exclusion constraints of the schema refuse a clash), its
//     activity row and the idempotency record; then COMMIT. A clash
//     (SQLSTATE 23P01, or a deadlock between two bookings, 40P01) rolls
//     back and reads the busy times in one more query, answering 409 as
//     ours. The schedule scenario takes each user's next 15-minute slot
//     (201); schedule-conflict asks for the user's first slot of the case,
//     which schedule took (409), so it runs after schedule.
//   - a reschedule: one round trip with BEGIN, the interview's row lock
//     through the visibility rule, its read in a fresh snapshot with its
//     candidate, job, creator and interviewers, the members of the job's
//     team among its interviewers to be, and the key's lock and record
//     lookup; the patch judged as ours (NewInterview.Validate on the
//     fields it leaves, the clock when the start is sent, the team, the
//     candidate's status, a cancelled interview); then one round trip with
//     the interview, its interviewers (the kept ones updated in place), the
//     updated invitation's mails with their River jobs (to those who had
//     it; a new invitation to interviewers added, a cancellation to those
//     removed), its activity row and the idempotency record; then COMMIT.
//     A patch that changes nothing writes only the key's record; a clash
//     (23P01 or 40P01) rolls back and reads the busy times, the interview
//     itself left out. Before the first run, ours schedules five
//     interviews of each user: reschedule moves one of the first four in
//     turn to the user's next slot (200); reschedule-conflict moves one of
//     them onto the fifth, which stays put (409).
//
// Ours sends, for comparison, the limiter's upsert per request and the
// token's read once a second per token; then nothing more for /me, one
// statement for a job or a page, and four (a keyed move) or five (a note,
// whose activity entry names its id) round trips for a write. The README's
// Performance section has the figures before and after.
//
// # Correctness check
//
// Before any load the same requests go to both servers: for every read
// scenario the first requests of every case, and the corners of the routes
// (404 for unknown and unreachable jobs, 422 for bad parameters, 403 for
// the read-only token, 401 for missing, malformed and unknown tokens, a page
// past the last, wildcards and capitals in a search). Statuses and bodies
// must be identical byte for byte, with the same Host header so that the
// absolute links agree. Writes are compared on reserved candidates: the
// same move by each server from the same stage (ours moves it back in
// between) must answer the same bytes; notes the same but for the note's id
// and time; an intake with the same body (ours' candidate is deleted in
// between) the same but for the id; a message the same but for its id and
// times; then the replays, the refusals, the activity rows and the stored
// responses; a schedule by each server the same but for the id and the
// times, then a clash with both (the same 409 and busy times) and the
// refusals; each server's reschedule of its own schedule the same but for
// the id and the times, with the same activity entries and invitation
// mails, then a patch that changes nothing, a clash, the refusals and a
// cancelled interview. A difference aborts the run with both answers.
//
// # Load
//
// A closed loop in this process: -conns goroutines share one http.Transport
// with -conns keep-alive connections; each sends its scenario's next
// request as soon as the last is answered. Requests go round the case's
// users, so that their tokens are used evenly, and each user round its own
// targets, all of which it reaches. The client gives up after 2 s
// (counted as a timeout); any status but the scenario's is an error. Every
// request sent after -warmup and within -duration is measured; its latency
// is kept whatever its outcome, and req/s is their number over -duration.
//
// Scenarios: me; job; candidates-p1; candidates-mid (the middle page, 34
// of 67 with 1,000 candidates); candidates-stage (the Screening stage);
// candidates-search (one of a few last-name fragments in turn); move (with
// a fresh Idempotency-Key each, between Screening and Interview, away from
// where the generator last sent the candidate, so that moves change
// something); note (without a key, so that the plain write path is
// measured too). Cases: spread (every user, each writing to candidates no
// other user writes to), hot-user (every request with one owner's token,
// over all targets), hot-candidate (the two writes only, all on one
// candidate, every user's token), hot-job (the writes only, every user on
// its own candidates of the first job, so that they meet on nothing but
// the job: move and note, and move-64-jobs, which runs with move: as many
// moves of as many candidates with as many connections, each user's
// candidates in a job of its own, 64 jobs in all, the hot job's yardstick).
// The stages' counts are kept by the schema's triggers, which the baseline
// shares, so its moves and intakes keep them as ours do.
//
// Each round runs every scenario on both servers back to back, the first
// server alternating between rounds; the tables show medians over rounds
// of req/s, p50 and p99, and ours ÷ baseline in req/s, then every round on
// its own (req/s of each server, their ratio and p99s), so that a round far
// from the others shows. The hot-job case adds the ratio of its moves to
// move-64-jobs, on each server, with the p99s. On Linux each
// measurement also reads from /proc the CPU time that the server's process
// and PostgreSQL (every postgres process on the machine, none when the
// database is elsewhere) used during it, per request: where a server's time
// goes.
//
// # Scale
//
// With -scale, ours and the baseline answer page 1, the Screening page,
// page 50 and two searches, a rare term (one candidate in 150) and a
// common one ("son", about 3%), on the job of 10,000 and on the job of
// -scale-size candidates, with -scale-samples sequential requests after 5
// warm-ups
// each. The first answer's meta.total must equal SELECT count(*) of the
// same filter, and the two servers' bodies must be equal. The table shows
// the p50s, the ratio and whether ours meets its goal: page 1, the stage
// filter and page 50 within 2× their p50 at 10,000; each search within 50
// ms. A second table gives each search's p50 and p99 and the share of the
// job it matches.
//
// # Uploads, hostile files, erasure
//
// The upload scenario sends, without a key, a multipart POST of a 200 KiB
// PDF written by fpdf at start (two pages of text and a photo of noise)
// to POST …/candidates/:candidate/documents. The baseline reads the file
// within 10 MiB, judges it by the domain's NewDocument.Validate and, in
// the write's two round trips, stores the documents row, the bytes in
// document_contents, the River job of its text (queue documents) and the
// activity entry, as ours does without an object store. Every
// measurement also reads each server's heap allocations so far at the
// start and the end of its window (ours' go_memstats_alloc_bytes_total
// at /metrics, on PIPELINE_METRICS_ADDR; the baseline's at
// /debug/allocs) and shows them per request.
//
// With -hostile, on PostgreSQL or with -sqlite on the embedded default,
// /me is loaded on ours by -hostile-conns readers, in
// each round once quiet and once while a zip bomb, a reference-loop PDF
// and a 10 MiB PDF of tiny pages (the doctext tests' generators) are
// uploaded in turn, each once the last one's text is no longer pending.
// Beside each window it shows, from /proc, the cores that ours' process,
// its children (the extraction) and PostgreSQL used, how long ours'
// threads waited for a CPU (their schedstat), and the machine's load
// average as the round began. -hostile-beside CMD is a control: the
// hostile windows run the shell command CMD beside /me instead of the
// uploads ($HOSTILE_DIR holds the three files), a load of known kind such
// as a spin loop or a parse outside the server.
//
// With -erasure, every candidate gets an activity entry and every
// candidate of the -candidates jobs a sent message; then, -erasure-people
// times, a person with three candidates (in the last three jobs, and with
// -scale in the two scale jobs and one of those), each with a note and a
// queued message, is erased by POST /api/v1/privacy/erasures on ours,
// timed, with the sequential scans of candidates, activity, messages and
// webhook_deliveries that pg_stat_user_tables counts during it and during
// as long before it. With -pg-log, the PostgreSQL server's log file, one
// more erasure runs on a pipelined connected as a superuser role of its
// own whose sessions load auto_explain, and the plans it logged are
// printed. The baseline has no erasure.
//
// # SQLite
//
// With -sqlite the run needs no PostgreSQL: ours is `pipelined serve` on a
// fresh SQLite file in the temporary directory (PIPELINE_DB=PATH, bytes
// in the database, the default), with the same environment as above, and
// the baseline is `pipelinebench baseline -sqlite PATH`: Gin and
// database/sql with modernc.org/sqlite, the driver our store uses, on the
// same file, opened as our store opens it (one writer connection that
// begins with BEGIN IMMEDIATE, WAL, synchronous=NORMAL, foreign keys,
// secure_delete; query-only readers, max(4, GOMAXPROCS) of them). The
// file is loaded by `pipelined seed` alone, the candidates included
// (hashed names, the same funnel of stages and spread of dates as on
// PostgreSQL). The scenarios are me and upload, the cases spread (the
// default), hot-user and hot-candidate; -hostile runs after them (not
// with -pause-text); -scale, -erasure, -data-only and -pg-log are
// refused. Per request the baseline reads the
// token by its hash on a reader (ours reads it once a second per token)
// and counts the request in memory with the domain's MemoryLimiter, as
// ours does on SQLite. Its upload reads the file as the PostgreSQL
// baseline's does, then in one transaction on the writer finds the
// candidate through the visibility rule and inserts the documents row,
// the bytes in document_contents, the River job of its text (River's
// SQLite row: jsonb arguments, its time format) and the activity entry.
// Before the load both servers answer /me, an upload and its refusals (a
// read-only token, an unknown candidate, an empty file) alike, but for
// the document's id and time; after it, every document is read back from
// the file with its bytes, which must be of its size and SHA-256. The
// CPU columns show each server's process alone, SQLite within it.
//
// # Data-only
//
// With -data-only (the default), the job read and the stage filter of the
// spread case are loaded once more, on ours, the baseline and a third
// server: the data-only baseline, `pipelinebench baseline -data-only`, the
// same baseline without the token's lookup and without the limiter. It
// reads every active token with its user and team once at start and
// serves each request from that copy, counting nothing; a request then
// costs the database its data statements alone, the ceiling of what a
// server doing the same reads can reach. The three servers take turns,
// the first rotating between rounds, and the table shows each one's
// req/s, p50 and the ratios to the data-only server.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pipelinebench:", err)
		os.Exit(1)
	}
}

// run runs the benchmark, or the baseline server when args start with
// "baseline".
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "baseline" {
		return runBaseline(ctx, args[1:], stderr)
	}
	cfg, err := parseConfig(args, getenv, stderr)
	if errors.Is(err, errHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = bench(ctx, cfg, stdout, stderr)
	return err
}
