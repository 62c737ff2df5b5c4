// Command pipelined serves the recruitment-pipeline API and carries the
// operator commands that migrate the database, load a world, manage teams,
// users and tokens and read the activity log. Run "pipelined help" for the
// commands and their configuration.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/doctext"
)

// Exit statuses: a runtime failure, and a mistake in the command line.
const (
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	// Run again as the child that reads a document's text, this process
	// parses one file under limits and exits here.
	doctext.ServeChildIfAsked()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitStatus(err)) // run has written any error to stderr
}

// exitStatus is the process's exit status after run returned err.
func exitStatus(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage), errors.As(err, new(*lineError)):
		return exitUsage
	}
	return exitFailure
}

// env is what a command works with: the configuration, the standard
// streams and the command being run.
type env struct {
	cfg    config
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	cmd    command
}

// run executes the command named by args and writes any error to stderr
// before returning it. Serving commands return when ctx is cancelled and
// in-flight requests have drained.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	err := dispatch(ctx, e, args)
	if errors.Is(err, errHelped) {
		return nil
	}
	if err != nil {
		report(stderr, err)
	}
	return err
}

// dispatch finds the command that args name, "serve" when they name none,
// and runs it.
func dispatch(ctx context.Context, e env, args []string) error {
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprint(e.stdout, usage())
		return nil
	}
	if len(args) > 0 && args[0] == "help" {
		return runHelp(e, args[1:])
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		args = append([]string{"serve"}, args...)
	}
	cmd, rest, err := lookup(e, args)
	if err != nil {
		return err
	}
	e.cmd = cmd
	if cmd.noConfig {
		return cmd.run(ctx, e, rest)
	}
	if e.cfg, err = loadConfig(e.getenv); err != nil {
		return err
	}
	return cmd.run(ctx, e, rest)
}

// lookup returns the command args name and the arguments after its name.
// A group's name alone, or with -h, explains the group.
func lookup(e env, args []string) (command, []string, error) {
	all := commands()
	if len(args) > 1 {
		if c, ok := findCommand(all, args[0]+" "+args[1]); ok {
			return c, args[2:], nil
		}
	}
	if c, ok := findCommand(all, args[0]); ok {
		return c, args[1:], nil
	}
	group := groupUsage(all, args[0])
	switch {
	case group == "":
		fmt.Fprintf(e.stderr, "pipelined: unknown command %q; run \"pipelined help\" for the commands\n", args[0])
	case len(args) > 1 && isHelp(args[1]):
		fmt.Fprint(e.stdout, group)
		return command{}, nil, errHelped
	case len(args) > 1:
		fmt.Fprintf(e.stderr, "pipelined: unknown %s subcommand %q\n\n%s", args[0], args[1], group)
	default:
		fmt.Fprintf(e.stderr, "pipelined: %s needs a subcommand\n\n%s", args[0], group)
	}
	return command{}, nil, errUsage
}

func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

// runHelp prints the whole usage, that of the commands named, or the
// table of operations ("help operations").
func runHelp(e env, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(e.stdout, usage())
		return nil
	}
	if len(args) == 1 && args[0] == "operations" {
		return printOperations(e.stdout)
	}
	all := commands()
	for _, c := range all {
		if c.name == strings.Join(args, " ") {
			fmt.Fprint(e.stdout, c.usage())
			return nil
		}
	}
	if g := groupUsage(all, args[0]); g != "" && len(args) == 1 {
		fmt.Fprint(e.stdout, g)
		return nil
	}
	fmt.Fprintf(e.stderr, "pipelined: no command %q; run \"pipelined help\" for the commands\n", strings.Join(args, " "))
	return errUsage
}

// newFlagSet returns the flag set of the command being run. Its mistakes
// are reported by parseFlags.
func newFlagSet(e env) *flag.FlagSet {
	fs := flag.NewFlagSet("pipelined "+e.cmd.name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {}
	return fs
}

// withDB adds the -db flag, which overrides PIPELINE_DB.
func withDB(e *env, fs *flag.FlagSet) {
	fs.StringVar(&e.cfg.DB, "db", e.cfg.DB, "database (PIPELINE_DB)")
}

// parseFlags parses args into fs, flags wherever they stand among the
// arguments ("seed FILE -db x.db" as "seed -db x.db FILE"); after "--"
// everything is an argument. fs.Args then holds the arguments. Asked for
// help, it prints the command's usage on stdout and returns errHelped; on a
// mistake, which the flag package has explained on stderr, it adds the
// usage there and returns errUsage.
func parseFlags(e env, fs *flag.FlagSet, args []string) error {
	err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, e.cmd.usage())
		printFlags(e.stdout, fs)
		return errHelped
	}
	if err != nil {
		fmt.Fprint(e.stderr, e.cmd.usage())
		printFlags(e.stderr, fs)
		return errUsage
	}
	return nil
}

// parseInterspersed parses the flags among args and leaves the other
// arguments, in their order, as fs.Args.
func parseInterspersed(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		// The flag package stops at the first argument that is not a
		// flag: keep it and read on.
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	// "--" alone ends the flags: what follows becomes fs.Args.
	return fs.Parse(append([]string{"--"}, positional...))
}

// requireFlags returns a usage error naming the flags of names that the
// command line does not set; an empty value counts as set.
func requireFlags(e env, fs *flag.FlagSet, names ...string) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var missing []string
	for _, n := range names {
		if !set[n] {
			missing = append(missing, "--"+n)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return usageErrorf(e, fs, "%s needs %s", e.cmd.name, strings.Join(missing, ", "))
}

// parseFlagsOnly parses the flags of a command that takes no arguments,
// and returns a usage error when a flag named in required is not set.
func parseFlagsOnly(e env, fs *flag.FlagSet, args []string, required ...string) error {
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if err := requireFlags(e, fs, required...); err != nil {
		return err
	}
	return noArgs(e, fs)
}

// noArgs returns a usage error when fs has arguments besides its flags.
func noArgs(e env, fs *flag.FlagSet) error {
	if fs.NArg() == 0 {
		return nil
	}
	return usageErrorf(e, fs, "%s takes no arguments (got %q)", e.cmd.name, fs.Arg(0))
}

// printJSONLines prints each of items on w as a JSON line, as show renders
// it.
func printJSONLines[T, J any](w io.Writer, items []T, show func(T) J) error {
	enc := json.NewEncoder(w)
	for _, it := range items {
		if err := enc.Encode(show(it)); err != nil {
			return err
		}
	}
	return nil
}

// lineError is a value of the command line that the domain refused
// (validation_failed): a mistake in the command line, reported as the
// domain worded it.
type lineError struct {
	cmd string
	err error
}

func (l *lineError) Error() string { return l.err.Error() }
func (l *lineError) Unwrap() error { return l.err }

// lineValues marks a validation failure of the values the command line
// gave as a mistake in the command line.
func lineValues(e env, err error) error {
	if pipeline.ErrorCode(err) == pipeline.EValidation {
		return &lineError{cmd: e.cmd.name, err: err}
	}
	return err
}

// printFlags lists the flags of fs, if it has any.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprintln(w, "Flags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// usageErrorf explains a command-line mistake on stderr along with the
// command's usage.
func usageErrorf(e env, fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintf(e.stderr, "pipelined: "+format+"\n\n", args...)
	fmt.Fprint(e.stderr, e.cmd.usage())
	printFlags(e.stderr, fs)
	return errUsage
}
