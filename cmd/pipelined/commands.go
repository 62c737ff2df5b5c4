package main

import (
	"context"
	"fmt"
	"strings"
)

// command is a command of pipelined: its name (a group's commands are
// named "group sub"), its arguments, what it does, and how it runs.
type command struct {
	name     string
	synopsis string
	doc      string
	run      func(context.Context, env, []string) error
	noConfig bool // runs without reading PIPELINE_* (help, version)
}

// commands lists every command in the order the usage shows them. A doc's
// first paragraph is its summary in the whole usage; "pipelined help
// COMMAND" and "COMMAND -h" show all of it. Paragraphs are separated by
// an empty line and reflowed; a line that starts with a space is kept as
// it stands.
func commands() []command {
	return []command{
		{name: "serve", synopsis: "[-addr ADDR]", run: runServe, doc: serveDoc},
		{name: "demo", synopsis: "[-addr ADDR]", run: runDemo, doc: demoDoc},
		{name: "migrate", synopsis: "", run: runMigrate, doc: migrateDoc},
		{name: "migrate status", synopsis: "", run: runMigrateStatus, doc: migrateStatusDoc},
		{name: "seed", synopsis: "FILE", run: runSeed, doc: seedDoc},
		{name: "sign-in-link", synopsis: "--email EMAIL", run: runSignInLink, doc: signInLinkDoc},
		{name: "token create", synopsis: "--user EMAIL --name NAME --scopes a,b [--approval OPS]", run: runTokenCreate, doc: tokenCreateDoc},
		{name: "token list", synopsis: "--team TEAM", run: runTokenList, doc: `
The tokens created inside a team, as JSON lines, never their values: id,
name, creator {id, name, email}, scopes, approval_required (the writes it
may only propose; [] for none), created_at, expires_at, last_used_at,
revoked_at.`},
		{name: "token revoke", synopsis: "ID", run: runTokenRevoke, doc: `
Revoke a token; a running server refuses it within a second (each server
trusts what it read of a token for that long). Logged as token.revoked.
Prints {"id", "revoked"}.`},
		{name: "token set-approval", synopsis: "ID --approval OPS", run: runTokenSetApproval, doc: `
Replace a token's approval policy: the writes it may only propose, named as
for token create (--approval "" for none, "*" for every write its scopes
allow); refused as there (exit 2). A running server applies it within a
second. Logged as token.approval_changed, unless the token had that policy
already. Prints {"id", "approval_required"}.`},
		{name: "team list", synopsis: "", run: runTeamList, doc: `
Every team as JSON lines: id, key, name, job_limit, retention_days (0:
off), retention_days_in_effect, retention_effective_at (when a new or
shorter period takes effect; null once it has).`},
		{name: "team create", synopsis: "--key KEY --name NAME [--job-limit N]", run: runTeamCreate, doc: `
Create a team; prints it as JSON. The key names the team for good.

--job-limit is the plan's limit on the team's jobs that are not closed;
without it the team has no limit.`},
		{name: "team set", synopsis: "--key KEY --retention-days N", run: runTeamSet, doc: `
Set how long a team keeps the data of candidates it is done with; prints
the team as JSON.

N is 30 to 3650 days, or 0 to turn retention off (the default). A new or
shorter period takes effect 7 days after it is set (team list shows when, in
retention_effective_at, and the period in effect until then); turning it off
or lengthening it applies at once. With a period in effect, the server
erases each candidate that is not hired once it is on a job closed N days
ago, or is rejected or withdrawn with no activity about it for N days (see
"pipelined help privacy sweep").`},
		{name: "user list", synopsis: "[--team TEAM]", run: runUserList, doc: `
Users as JSON lines: id, name, email, current_team_id, teams: [{id, key,
role}]; all of them, or the members of a team.`},
		{name: "user add", synopsis: "--email EMAIL [--name NAME] --team TEAM --role ROLE", run: runUserAdd, doc: `
Add a user to a team as owner, admin or member; prints the user as JSON.

A new email creates the user (--name is then required, and the team becomes
their current team); an existing user keeps their name and current team.`},
		{name: "user set-role", synopsis: "--email EMAIL --team TEAM --role ROLE", run: runUserSetRole, doc: `
Change a user's role on a team. A team keeps at least one owner.`},
		{name: "user remove", synopsis: "--email EMAIL --team TEAM", run: runUserRemove, doc: `
Take a user off a team, with their assignments to its jobs.

If it was their current team, their lowest-id other team becomes current. A
team keeps at least one owner and a user at least one team.`},
		{name: "mail test", synopsis: "--to ADDRESS", run: runMailTest, doc: mailTestDoc},
		{name: "privacy sweep", synopsis: "[--dry-run]", run: runPrivacySweep, doc: privacySweepDoc},
		{name: "proposal list", synopsis: "--team TEAM [--status S] [--json]", run: runProposalList, doc: proposalListDoc},
		{name: "proposal approve", synopsis: "ID --as EMAIL [--note N]", run: runProposalDecide(true), doc: proposalApproveDoc},
		{name: "proposal reject", synopsis: "ID --as EMAIL [--note N]", run: runProposalDecide(false), doc: proposalRejectDoc},
		{name: "activity", synopsis: "[--team TEAM] [--since-id ID] [--limit N]", run: runActivity, doc: activityDoc},
		{name: "version", synopsis: "[-json]", run: runVersion, noConfig: true, doc: versionDoc},
		{name: "help", synopsis: "[COMMAND]", noConfig: true, doc: `
This text (also -h or --help), or all of one command's usage (as COMMAND -h
prints it, without the flags). "pipelined help operations" lists the API's
operations: name, method, path, scope, and whether each is an MCP tool.`},
	}
}

const demoDoc = `
Serve a demo world on a fresh SQLite database in a temporary directory,
after printing a token with every scope, curl lines to paste into a shell,
and a one-time link that signs the owner in to the pages (/app/).

PIPELINE_DB is ignored, and the directory is removed on exit. The world: team
Acme (key acme) with an owner, an admin and a member, three jobs on the
default pipeline (Backend Engineer, with more than a page of candidates,
Product Designer and a draft), and a token of the owner, Olivia Owner,
with every scope. It migrates its own fresh database whatever
PIPELINE_AUTO_MIGRATE says and seals webhook secrets under a key of its
own unless PIPELINE_SECRET_KEY is set. Unless they are set, its
PIPELINE_BASE_URL is its own address and its mail goes to log:, so that a
sign-in link asked for on /app/sign-in is printed to the terminal.`

const migrateDoc = `
Apply the pending database migrations, whatever PIPELINE_AUTO_MIGRATE says,
and print {"dialect", "applied": [{name, applied_at}]}.

Run it as its own step of a deployment, with a role that may change the
schema, and the servers with PIPELINE_AUTO_MIGRATE=false and a role that may
only read and write rows: a server then refuses to start on a schema that is
behind instead of serving errors. Migrations apply in order: the store's,
then those of the webhook queue (River). On PostgreSQL an advisory lock held
by a transaction serializes migrations, so that servers and migrations
starting together wait for each other, directly or through a transaction
pooler such as PgBouncer.`

const migrateStatusDoc = `
Print {"dialect", "current", "applied": [{name, applied_at}], "pending":
[{name}]}: where the database's schema stands. It only reads.

It never creates or changes anything: a SQLite file that does not exist is
refused (exit 1) rather than created, and a schema that is behind is
reported, not migrated. Migrations the database has and this binary does not
know (a newer version applied them) are left out.`

const tokenCreateDoc = `
Issue a token in the user's current team, logged as token.created; prints
it as JSON with its value, shown this once: {id, name, user_id, team_id,
scopes, approval_required, created_at, expires_at, token}.

--user, --name and --scopes are required. --scopes "" issues a token without
scopes, which reaches GET /api/v1/me only. --approval names the writes the
token may only propose, for a person to approve (an agent's token, under
oversight): operation names as "pipelined help operations" lists them
(move_candidate,send_message), or "*" for every write its scopes allow. A
read or an unknown name is refused, and so is a policy on a token that
carries proposals:review, the scope to decide agents' proposals (exit 2). Such
a write then answers 202 with a proposal and changes nothing until a person
approves it (POST /api/v1/proposals/{id}/approve, or pipelined proposal
approve). A token expires six calendar months after
its creation. Values look like plt_ followed by 32 base62 characters and a
6-character checksum, so that secret scanners find leaked ones; only a hash
is stored.`

const activityDoc = `
The activity log as JSON lines, oldest first (by id), IP addresses included:
of one team or all, after an entry id (to resume where a previous read
stopped), at most N entries. "user_id" is null for what the server or an
operator did, "token_id" null for what was done without a token (on a
page, by pipelined). Each entry has the reason its write was given
("reason", null when none) and, when a person approved the proposal it came
from, who did ("approved_by": {user: {id, name}, token_id}, token_id null
when decided with pipelined proposal; null when not approved).

Every committed entry shows at once. On PostgreSQL, ids are taken before
commit, so while writes run a read resumed with --since-id can pass over an
entry that commits late: the feed, GET /api/v1/activity, never does.`

const versionDoc = `
The version of pipelined: the module version, the VCS revision and its
commit time, the Go version and the platform.

The module version is the tag with "go install ...@vX.Y.Z", a
pseudo-version of the revision when built in a git checkout, else (devel).
The revision and time are what go build records inside a git checkout.`

const serveDoc = `
Serve the API, the MCP tools (at /mcp) and the people's pages (at /app/:
sign-in by emailed one-time link, API tokens) on PIPELINE_ADDR and deliver
webhooks; the default command.

Sign-in links are mailed only when mail is configured (PIPELINE_SMTP_URL)
and PIPELINE_BASE_URL is set; else an operator hands one over with
pipelined sign-in-link. Session cookies are Secure when PIPELINE_BASE_URL
is https. With PIPELINE_SMTP_URL=log: every mail, sign-in links included,
is written to the log, and serve warns at start: it is for development.

It writes a JSON access log on stderr: method, path, status, duration,
client IP, request id, trace id when traced, user id; never a token. Expired
idempotency records, and webhook delivery attempts older than 30 days, are
purged hourly, and the retention pass (pipelined help privacy sweep) runs
hourly, on one replica at a time. PIPELINE_WEBHOOK_WORKERS deliveries run at once.

SIGINT or SIGTERM makes /readyz answer 503 ({"status":"stopping"}); after
PIPELINE_SHUTDOWN_DELAY it stops accepting connections and lets the requests
in flight finish within PIPELINE_SHUTDOWN_TIMEOUT. Those still running then
(an upload that stopped arriving, say) are cut, answered 503 unavailable
where they can still be; deliveries in flight finish; it exits 0.

/healthz answers 200 while the process is up, /readyz 200 while the database
answers and the server is not stopping; neither needs a token or spends a
rate budget. Point a load balancer's health checks at GET or HEAD /readyz
and liveness at /healthz.

Behind a reverse proxy, set PIPELINE_TRUSTED_PROXIES to the proxies'
addresses: the client IP (which the rate limit counts requests without a
valid token by, and the activity and access logs record) is then the last
address of X-Forwarded-For that is not a trusted proxy, walking back from
the socket peer; a hop that is not trusted ends the walk, so a client cannot
forge its address. Without it the client IP is the socket peer. X-Real-IP
and Forwarded are not read. Set PIPELINE_BASE_URL to the public URL so that
links and Location name it (X-Forwarded-Proto is not trusted for that).

With PIPELINE_METRICS_ADDR set, a second listener serves Prometheus metrics
at /metrics and Go's profiler below /debug/pprof/; keep it private. Metrics:
  pipeline_http_requests_total{route,method,status}  requests answered;
      route is the pattern (/api/v1/jobs/:job), "unmatched" for none
  pipeline_http_request_duration_seconds{route,method}  arrival to answer
  pipeline_http_requests_in_flight  requests being answered
  pipeline_rate_limited_total{route,bucket}  429s; bucket user or ip
  pipeline_idempotent_replays_total{route}  writes answered by replay
  go_sql_*{db_name}  the pools (postgres; sqlite_writer, sqlite_readers)
  go_*, process_*  the Go runtime and the process

With OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set,
it exports OpenTelemetry traces over OTLP, http/protobuf by default or grpc
with OTEL_EXPORTER_OTLP_PROTOCOL=grpc; the other standard variables apply
(OTEL_EXPORTER_OTLP_HEADERS, certificates, timeouts, OTEL_SERVICE_NAME,
default pipelined, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER,
OTEL_SDK_DISABLED). Each request below /api/ is a server span named after
its method and route (the probes are not traced), continuing a W3C
traceparent the client sent, with a child span per database statement (its
SQL without arguments); the access log carries request_id, trace_id and
span_id.`

const seedDoc = `
Load a world from a JSON file ("-" reads stdin) and print one JSON object
with the ids it created: {"teams", "users", "jobs", "stages", "candidates",
"tokens"}, stage ids by job and name, and the token values.

A file that fails validation, or names a team key or a user email that
exists, loads nothing; a file that is not JSON is named with the line and
column where it goes wrong. The file names what it creates by keys and
refers to them by key:
  {"teams": [{"key": "acme", "name": "Acme", "job_limit": 20}],
   "users": [{"key": "olivia", "name": "Olivia Owner",
              "email": "olivia@acme.test", "current_team": "acme",
              "memberships": [{"team": "acme", "role": "owner"}]}],
   "jobs": [{"key": "backend", "team": "acme", "owner": "olivia",
             "assignees": [], "title": "Backend Engineer",
             "status": "open", "description": "<p>Go</p>",
             "created_at": "2026-01-02T10:00:00Z",
             "stages": ["Applied", "Screening", "Interview", "Offer",
                        "Hired"],
             "candidates": [{"key": "ada", "name": "Ada Lovelace",
                             "email": "ada@example.test",
                             "applied": "2026-01-05", "stage": "Screening",
                             "status": "active",
                             "resume_url": "https://example.test/a.pdf"}]}],
   "tokens": [{"key": "olivia_bot", "user": "olivia",
               "name": "pipeline bot",
               "scopes": ["jobs:read", "candidates:read"],
               "created_at": "2026-11-01T00:00:00Z", "revoked": false}]}

Optional: job_limit (none: unlimited), assignees, description, created_at
(default now), stages (default the pipeline Applied, Screening, Interview,
Offer, Hired), a candidate's stage (default the first) and status (default
active), resume_url, a token's created_at, revoked and approval (the
writes it may only propose, as "pipelined token create --approval" takes
them: ["move_candidate"], or ["*"]; a read, an unknown name, or a policy
with proposals:review fails the file). Unknown fields are
an error. A reference to a key the file does not define (a team, an owner,
an assignee, a stage, a token's user) fails the whole file, naming the
field. A token may carry no scope ("scopes": []): it reaches GET /api/v1/me
and nothing else. The key of a user only names them within the file; to add
people to an existing team use "pipelined user add". Seeding writes no
activity.`

// line is the command with its arguments.
func (c command) line() string { return strings.TrimSpace("pipelined " + c.name + " " + c.synopsis) }

// findCommand returns the command of that name.
func findCommand(all []command, name string) (command, bool) {
	for _, c := range all {
		if c.name == name && c.run != nil {
			return c, true
		}
	}
	return command{}, false
}

// hasCommand reports whether name is a command's name.
func hasCommand(all []command, name string) bool {
	_, ok := findCommand(all, name)
	return ok
}

// usage is the command's own usage text.
func (c command) usage() string {
	return fmt.Sprintf("Usage: %s\n%s\n", c.line(), indent(c.doc, "  "))
}

// groupUsage is the usage of the commands of a group such as "token", or ""
// when there is no such group.
func groupUsage(all []command, group string) string {
	var b strings.Builder
	for _, c := range all {
		if strings.HasPrefix(c.name, group+" ") {
			fmt.Fprintf(&b, "  %s\n%s\n", c.line(), indent(c.summary(), "        "))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "Usage:\n" + b.String() + "Run \"pipelined " + group + " SUBCOMMAND -h\" for its flags.\n"
}

// indent wraps doc into lines of at most 79 characters, each starting
// with prefix: paragraphs, separated by an empty line, are reflowed; a line
// that starts with a space is kept as it stands.
func indent(doc, prefix string) string {
	var b strings.Builder
	for i, para := range paragraphs(doc) {
		if i > 0 {
			b.WriteString("\n")
		}
		var words []string
		flush := func() {
			if len(words) > 0 {
				b.WriteString(reflow(words, prefix))
				words = nil
			}
		}
		for _, line := range strings.Split(para, "\n") {
			if strings.HasPrefix(line, " ") {
				flush()
				b.WriteString(prefix + line + "\n")
				continue
			}
			words = append(words, strings.Fields(line)...)
		}
		flush()
	}
	return b.String()
}

// paragraphs splits doc at its empty lines.
func paragraphs(doc string) []string {
	var out []string
	for _, p := range strings.Split(strings.Trim(doc, "\n"), "\n\n") {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return out
}

// reflow fills lines of at most 79 characters with words.
func reflow(words []string, prefix string) string {
	var b strings.Builder
	line := prefix
	for _, word := range words {
		if len(line) > len(prefix) && len(line)+1+len(word) > 79 {
			b.WriteString(line + "\n")
			line = prefix
		}
		if len(line) > len(prefix) {
			line += " "
		}
		line += word
	}
	return b.String() + line + "\n"
}

// summary is the first paragraph of the command's doc.
func (c command) summary() string {
	if ps := paragraphs(c.doc); len(ps) > 0 {
		return ps[0]
	}
	return ""
}

// usage is the whole usage text of pipelined.
func usage() string {
	var b strings.Builder
	b.WriteString("pipelined serves the recruitment-pipeline API and runs its operator commands.\n\nUsage:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %s\n%s\n", c.line(), indent(c.summary(), "        "))
	}
	b.WriteString(usageFooter)
	return b.String()
}

const usageFooter = `Run "pipelined help COMMAND" (or "pipelined COMMAND -h", with its flags)
for all of a command's usage. TEAM is a team's id or key. Flags may stand
anywhere after the command's name, and "--" ends them. Each command that
opens the database takes -db DSN, which overrides PIPELINE_DB.

Output and exit status: results go to stdout as JSON (lists as JSON lines;
proposal list prints a table unless --json), errors to stderr. A failure
exits 1; a domain error prints its code, its message and its field details,
and every conflict names its record ("conflict: Team acme (teams[0].key)
already exists."). A mistake in the command line exits 2: an unknown command
or flag, a missing argument or required flag (with the command's usage), or
a value that the domain refuses as invalid (with the domain's field
messages).

Migrations: the commands that write (serve, demo, seed, token create and
revoke, team create and set, user add, set-role and remove, privacy sweep,
proposal approve and reject) apply pending migrations first unless
PIPELINE_AUTO_MIGRATE is false; then they refuse a schema that is behind and
name "pipelined migrate". The commands that only read (activity, the list
commands, migrate status) never change the schema and never create a SQLite
file: on a schema that is behind they refuse with exit status 1 and name
"pipelined migrate", whatever PIPELINE_AUTO_MIGRATE says (migrate status
reports it instead). A command finds out what is pending by reading alone,
so a database role with nothing but USAGE on the schema and SELECT on its
tables runs the commands that read. A schema ahead of the binary (a newer
version migrated it) is accepted: migrations only add. On PostgreSQL every
command, migrate included, works through a transaction pooler such as
PgBouncer (pool_mode = transaction) as on a direct connection.

Teams and users: a team's key is stored with it, unique and for good (teams
from before keys existed got team-<id>); it is how seed files, --team and
operators name the team, 1 to 64 characters without spaces, and not a
number (--team 12 is the team with id 12). A user's identity is their email,
unique in any letter case. A team keeps at least one owner and a user at
least one team: set-role and remove refuse otherwise, naming the field.

Environment (a flag of the same meaning overrides it; an empty variable
takes the default; durations as Go writes them, 500ms, 30s, 1m30s, or a
whole number of seconds):
  PIPELINE_DB          postgres://... or postgresql://... selects PostgreSQL;
                       anything else is a SQLite file path, an optional
                       "sqlite:" prefix allowed (default pipeline.db)
  PIPELINE_ADDR        listen address (default 127.0.0.1:8080)
  PIPELINE_BASE_URL    where clients reach the server, for pagination links
                       and Location: a scheme (http or https), a host and
                       optionally a path when a proxy serves the API below
                       one, e.g. https://api.example.com or
                       https://example.com/hiring; a query or fragment is
                       refused (default: taken from the request)
  PIPELINE_RATE_LIMIT  requests per minute per user, a whole number of at
                       least 1 (default 60)
  PIPELINE_DB_MAX_CONNS
                       database connections held open, idle ones included
                       (PostgreSQL: the pool; SQLite: the readers beside the
                       one writer) (default: PostgreSQL max(32, 4 x CPUs),
                       SQLite max(4, CPUs))
  PIPELINE_DB_POOLER   transaction when PostgreSQL is reached through a
                       transaction pooler (PgBouncer's pool_mode =
                       transaction): the server then keeps nothing on a
                       server connection and parses and plans every
                       statement, and its queue of webhooks and mail polls
                       every 200ms instead of listening (LISTEN/NOTIFY) for
                       what a write enqueues; none (the default) prepares
                       the reads on each connection and listens, for a
                       direct connection or a session pooler (default none)
  PIPELINE_AUTO_MIGRATE
                       true or false: whether the commands that write apply
                       pending migrations first (default true)
  PIPELINE_TRUSTED_PROXIES
                       comma-separated IP addresses or CIDR prefixes of
                       reverse proxies whose X-Forwarded-For is believed for
                       the client IP, e.g. 10.0.0.0/8 (default: none)
  PIPELINE_METRICS_ADDR
                       listen address of /metrics and /debug/pprof/ (default:
                       off); keep it off the public network
  PIPELINE_SECRET_KEY  the key webhook signing secrets are stored encrypted
                       under (AES-256-GCM): 32 bytes as base64 (openssl rand
                       -base64 32) or 64 hex digits; every replica needs the
                       same key. Without one, serve makes a key and keeps it
                       in the database, where every replica reads it: a copy
                       of the database then holds both the secrets and their
                       key, so set one in production. Setting one later keeps
                       the webhooks made before working (default: a key kept
                       in the database)
  PIPELINE_WEBHOOK_WORKERS
                       webhook deliveries serve makes at once, and as many
                       messages to candidates; 0: this replica delivers
                       none (default 4)
  PIPELINE_SMTP_URL    where email to candidates goes: smtp://[user:password@]
                       host[:port] (STARTTLS required, port 587), smtps://…
                       (TLS from the start, port 465), smtp+insecure://…
                       (no TLS: a relay on the same host, port 25), or log:
                       (each message written to the log as JSON and marked
                       sent; demo uses it). Messages are sent by the
                       PIPELINE_WEBHOOK_WORKERS workers (default: mail is
                       not configured, and sending a message is forbidden)
  PIPELINE_MAIL_FROM   the From address of email, such as
                       Acme Hiring <jobs@acme.example>; required with
                       PIPELINE_SMTP_URL. Message-IDs are
                       <message-{id}@{its domain}>
  PIPELINE_DOCUMENT_MAX_BYTES
                       the largest file a candidate's document may be, in
                       bytes; an upload's whole body may exceed it by 64 KiB
                       of form (default 10485760, 10 MiB)
  PIPELINE_BLOB_URL    keeps documents' bytes in an S3-compatible bucket
                       instead of the database:
                       s3://BUCKET?endpoint=http://HOST:PORT&region=REGION
                       (endpoint default: AWS; a /PREFIX after BUCKET keeps
                       the keys under it), signed with AWS_ACCESS_KEY_ID and
                       AWS_SECRET_ACCESS_KEY, both required. serve checks the
                       bucket at its start, and every hour removes the bytes
                       that no document holds and that were written more
                       than an hour before (default: in the database, so one
                       backup holds everything)
  PIPELINE_WEBHOOK_ALLOW_HTTP
                       true: webhook URLs may be http:// as well as https://
                       (default false)
  PIPELINE_WEBHOOK_ALLOW_PRIVATE
                       true: webhooks may be sent to hosts that resolve to
                       loopback, private, link-local or unspecified addresses
                       (default false)
  PIPELINE_READ_TIMEOUT
                       how long a client has to send a whole request, headers
                       and body (its headers: at most 10s); a body not in by
                       then answers 408, a client whose headers are not in is
                       disconnected. No shorter than PIPELINE_REQUEST_TIMEOUT:
                       Go's server also ends a request still running when it
                       passes (default 30s)
  PIPELINE_REQUEST_TIMEOUT
                       each request's deadline: a body not in by then answers
                       408, a database that does not answer by then 503
                       unavailable; also the database's own statement timeout
                       (PostgreSQL statement_timeout, and at least a second
                       of idle_in_transaction_session_timeout; SQLite's busy
                       timeout), which migrating, seeding and purging lift
                       (default 10s)
  PIPELINE_SHUTDOWN_TIMEOUT
                       after SIGINT or SIGTERM, how long the requests in
                       flight may take to finish (default 20s)
  PIPELINE_SHUTDOWN_DELAY
                       after SIGINT or SIGTERM, how long to keep serving with
                       /readyz answering 503 before no longer accepting
                       connections, so that a load balancer takes the replica
                       out first: once it stops accepting, a probe meets a
                       refused connection, not the 503 (default 0)
  OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
                       when either is set, serve exports traces over OTLP
                       (OTEL_EXPORTER_OTLP_PROTOCOL http/protobuf, the
                       default, or grpc; the other OTEL_* variables apply;
                       see "pipelined help serve")

On PostgreSQL a transaction left open anywhere on the server holds back the
activity feed's entries that follow it until it ends: set
idle_in_transaction_session_timeout on the server.

Scopes: jobs:read, jobs:write, candidates:read, candidates:write,
messages:send (messages to candidates), scheduling:write (interviews and
availability), activity:read, webhooks:write, privacy:manage (exporting and
erasing a person's data: POST /api/v1/privacy/exports and erasures),
proposals:review (approving and rejecting the proposals of agents' tokens).
The webhook and privacy endpoints also need an owner or admin of the token's
current team.
`
