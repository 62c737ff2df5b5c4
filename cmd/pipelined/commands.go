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

// commands lists every command in the order the usage shows them.
func commands() []command {
	return []command{
		{name: "serve", synopsis: "[-addr ADDR]", run: runServe, doc: `
Serve the API and deliver webhooks (the default command). SIGINT or SIGTERM
makes /readyz answer 503, after PIPELINE_SHUTDOWN_DELAY stops accepting
connections, and lets in-flight requests finish within
PIPELINE_SHUTDOWN_TIMEOUT; those still running then
are cut (503). Deliveries in flight finish, and it exits 0. With
PIPELINE_METRICS_ADDR set, a second listener serves Prometheus metrics at
/metrics and the Go profiler at /debug/pprof/.`},
		{name: "demo", synopsis: "[-addr ADDR]", run: runDemo, doc: `
Serve a demo world on a fresh SQLite database in a temporary directory
(PIPELINE_DB is ignored; the directory is removed on exit), after printing a
token with every scope and curl lines to try.`},
		{name: "migrate", synopsis: "", run: runMigrate, doc: `
Apply the pending database migrations and print, as JSON, those applied.`},
		{name: "migrate status", synopsis: "", run: runMigrateStatus, doc: `
Print, as JSON, the migrations applied (with when) and those pending. Reads
only.`},
		{name: "seed", synopsis: "FILE", run: runSeed, doc: `
Load a world from a JSON file ("-" reads stdin) and print the ids it created
and the token values as one JSON object. A file that fails validation, or
whose team key or user email exists, loads nothing.`},
		{name: "token create", synopsis: "--user EMAIL --name NAME --scopes a,b", run: runTokenCreate, doc: `
Issue a token in the user's current team; prints it as JSON, its value
included (shown this once). --scopes "" issues a token without scopes, which
reaches GET /api/v1/me only.`},
		{name: "token list", synopsis: "--team TEAM", run: runTokenList, doc: `
The tokens created inside a team, as JSON lines, without their values.`},
		{name: "token revoke", synopsis: "ID", run: runTokenRevoke, doc: `
Revoke a token; a running server refuses it within a second (it trusts what
it read of a token for that long).`},
		{name: "team list", synopsis: "", run: runTeamList, doc: `
Every team as JSON lines: id, key, name, job limit.`},
		{name: "team create", synopsis: "--key KEY --name NAME [--job-limit N]", run: runTeamCreate, doc: `
Create a team; prints it as JSON. The key names the team for good.`},
		{name: "user list", synopsis: "[--team TEAM]", run: runUserList, doc: `
Users as JSON lines with their current team and their teams and roles: all of
them, or the members of a team.`},
		{name: "user add", synopsis: "--email EMAIL [--name NAME] --team TEAM --role ROLE", run: runUserAdd, doc: `
Add a user to a team with a role (owner, admin or member), creating the user
when the email is new (--name is then required, and the team becomes their
current team); prints the user as JSON.`},
		{name: "user set-role", synopsis: "--email EMAIL --team TEAM --role ROLE", run: runUserSetRole, doc: `
Change a user's role on a team. A team keeps at least one owner.`},
		{name: "user remove", synopsis: "--email EMAIL --team TEAM", run: runUserRemove, doc: `
Take a user off a team, with their assignments to its jobs; their current
team moves to another of theirs. A team keeps an owner, a user a team.`},
		{name: "activity", synopsis: "[--team TEAM] [--since-id ID] [--limit N]", run: runActivity, doc: `
The activity log as JSON lines, oldest first (by id): of one team or all,
after an entry id (to resume where a previous read stopped), at most N
entries. It shows every committed entry at once. On PostgreSQL an entry
may commit after one with a larger id: while writes run, a read resumed
with --since-id can pass over it. GET /api/v1/activity never does.`},
		{name: "version", synopsis: "[-json]", run: runVersion, noConfig: true, doc: `
The version of pipelined: module version, VCS revision and time, Go version.`},
		{name: "help", synopsis: "[COMMAND]", noConfig: true, doc: `
This text, or the usage of one command (as COMMAND -h prints it).`},
	}
}

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
			fmt.Fprintf(&b, "  %s\n%s\n", c.line(), indent(c.doc, "        "))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "Usage:\n" + b.String() + "Run \"pipelined " + group + " SUBCOMMAND -h\" for its flags.\n"
}

// indent wraps doc into lines of at most 79 characters, each starting
// with prefix.
func indent(doc, prefix string) string {
	var b strings.Builder
	line := prefix
	for _, word := range strings.Fields(doc) {
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

// usage is the whole usage text of pipelined.
func usage() string {
	var b strings.Builder
	b.WriteString("pipelined serves the recruitment-pipeline API and runs its operator commands.\n\nUsage:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %s\n%s\n", c.line(), indent(c.doc, "        "))
	}
	b.WriteString(usageFooter)
	return b.String()
}

const usageFooter = `TEAM is a team's id or key. Each command takes -h for its flags, and each
that opens the database takes -db DSN, which overrides PIPELINE_DB.

Every command that opens the database applies pending migrations first
unless PIPELINE_AUTO_MIGRATE is false; then it refuses to run on a schema
that is behind and names "pipelined migrate", which applies them in any
case (demo migrates its own fresh database; migrate status only reads). On
a current schema no command but migrate changes it, so a database role
without DDL rights can run those that only read (activity, the list
commands). Output goes to stdout; errors go to stderr with exit status 1,
mistakes in the command line with exit status 2.

Environment (a flag of the same meaning overrides it):
  PIPELINE_DB          postgres://... or postgresql://... selects PostgreSQL;
                       anything else is a SQLite file path, an optional
                       "sqlite:" prefix allowed (default pipeline.db)
  PIPELINE_ADDR        listen address (default 127.0.0.1:8080)
  PIPELINE_BASE_URL    where clients reach the server, for pagination links
                       and Location (default: taken from the request)
  PIPELINE_RATE_LIMIT  requests per minute per user (default 60)
  PIPELINE_DB_MAX_CONNS
                       database connections held open (default: PostgreSQL
                       max(32, 4 x CPUs), SQLite max(4, CPUs) readers)
  PIPELINE_READ_TIMEOUT
                       to receive a whole request, headers and body; no
                       shorter than PIPELINE_REQUEST_TIMEOUT (default 30s;
                       durations such as 500ms, 30s or 30)
  PIPELINE_REQUEST_TIMEOUT
                       each request's deadline, also the database's
                       statement timeout: a database that does not answer
                       by then makes the request answer 503 (default 10s)
  PIPELINE_SHUTDOWN_TIMEOUT
                       how long in-flight requests may finish after SIGINT
                       or SIGTERM (default 20s)
  PIPELINE_SHUTDOWN_DELAY
                       after SIGINT or SIGTERM, how long to keep serving with
                       /readyz answering 503 before no longer accepting
                       connections, for load balancers to notice (default 0)
  PIPELINE_AUTO_MIGRATE
                       true or false: whether commands apply pending
                       migrations first (default true)
  PIPELINE_TRUSTED_PROXIES
                       comma-separated addresses or CIDR prefixes of reverse
                       proxies whose X-Forwarded-For is believed for the
                       client IP (default: none)
  PIPELINE_METRICS_ADDR
                       listen address of /metrics and /debug/pprof/ (default:
                       off); keep it off the public network
  PIPELINE_SECRET_KEY  32 bytes in base64 or hex (openssl rand -base64 32)
                       that webhook secrets are stored encrypted under
                       (default: a key kept in the database, made on first
                       use; set one to keep it apart from the secrets)
  PIPELINE_WEBHOOK_WORKERS
                       webhook deliveries made at once by serve (default 4;
                       0: this replica delivers none)
  PIPELINE_WEBHOOK_ALLOW_HTTP
                       true: webhook URLs may be http:// (default false)
  PIPELINE_WEBHOOK_ALLOW_PRIVATE
                       true: webhooks may reach loopback, private and
                       link-local addresses (default false)
  OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
                       when either is set, serve exports traces over OTLP
                       (OTEL_EXPORTER_OTLP_PROTOCOL http/protobuf, the
                       default, or grpc; the other OTEL_* variables apply)

Scopes: jobs:read, jobs:write, candidates:read, candidates:write,
messages:send, scheduling:write, activity:read, webhooks:write.
`
