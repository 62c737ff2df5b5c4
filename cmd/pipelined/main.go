// Command pipelined serves the recruitment-pipeline API and carries the
// operator commands that load a world, issue and revoke tokens and read the
// activity log. Run "pipelined help" for the commands and their
// configuration.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		os.Exit(1) // run has written the error to stderr
	}
}

// env is what a command works with: the configuration and the standard
// streams.
type env struct {
	cfg    config
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// run executes the command named by args and writes any error to stderr
// before returning it. Serving commands return when ctx is cancelled and
// in-flight requests have drained.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	err := dispatch(ctx, args, getenv, stdin, stdout, stderr)
	if err != nil {
		report(stderr, err)
	}
	return err
}

func dispatch(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	name, rest := "serve", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, rest = args[0], args[1:]
	}
	commands := map[string]func(context.Context, env, []string) error{
		"serve":    runServe,
		"demo":     runDemo,
		"seed":     runSeed,
		"token":    runToken,
		"activity": runActivity,
	}
	cmd, ok := commands[name]
	switch {
	case name == "help" || name == "-h" || name == "--help":
		fmt.Fprint(stderr, usage)
		return nil
	case !ok:
		fmt.Fprintf(stderr, "pipelined: unknown command %q\n\n%s", name, usage)
		return errUsage
	}
	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	return cmd(ctx, env{cfg: cfg, stdin: stdin, stdout: stdout, stderr: stderr}, rest)
}

const usage = `pipelined serves the recruitment-pipeline API and runs its operator commands.

Usage:
  pipelined [serve] [-addr ADDR] [-db DSN]
        Serve the API. SIGINT or SIGTERM makes /readyz answer 503, stops
        accepting connections and lets in-flight requests finish within
        PIPELINE_SHUTDOWN_TIMEOUT; those still running then are cut (503).
        It exits 0.
  pipelined demo [-addr ADDR]
        Serve a demo world on a fresh SQLite database in a temporary directory
        (PIPELINE_DB is ignored; the directory is removed on exit), after
        printing a token with every scope and curl lines to try.
  pipelined seed [-db DSN] FILE
        Load a world from a JSON file ("-" reads stdin) and print the ids it
        created and the token values as one JSON object. A file that fails
        validation loads nothing.
  pipelined token create [-db DSN] --user EMAIL --name NAME --scopes a,b
        Issue a token in the user's current team; prints it as JSON, its value
        included (shown this once).
  pipelined token list [-db DSN] --team ID
        The tokens created inside a team, as JSON lines, without their values.
  pipelined token revoke [-db DSN] ID
        Revoke a token at once.
  pipelined activity [-db DSN] [--team ID]
        The activity log as JSON lines, oldest first.
  pipelined help
        This text.

Every command applies pending database migrations first. Errors go to stderr
with a non-zero exit status.

Environment (a flag of the same meaning overrides it):
  PIPELINE_DB          postgres://... or postgresql://... selects PostgreSQL;
                       anything else is a SQLite file path, an optional
                       "sqlite:" prefix allowed (default pipeline.db)
  PIPELINE_ADDR        listen address (default 127.0.0.1:8080)
  PIPELINE_BASE_URL    scheme and host of pagination links (default: taken
                       from the request)
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

Scopes: jobs:read, jobs:write, candidates:read, candidates:write,
messages:send, scheduling:write.
`

// newFlagSet returns a flag set for a command that reports its mistakes on
// stderr.
func newFlagSet(e env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("pipelined "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: pipelined %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs. Asking for help is not an error; a
// mistake has been explained on stderr by the flag package.
func parseFlags(fs *flag.FlagSet, args []string) (help bool, err error) {
	err = fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return true, nil
	}
	if err != nil {
		return false, errUsage
	}
	return false, nil
}

// usageErrorf explains a command-line mistake on stderr along with the
// command's usage.
func usageErrorf(e env, fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintf(e.stderr, "pipelined: "+format+"\n", args...)
	fs.Usage()
	return errUsage
}
