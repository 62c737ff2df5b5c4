package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// errUsage marks a mistake in the command line whose explanation (the usage
// text or the flag package's message) is already on stderr.
var errUsage = errors.New("usage error")

// errHelped ends a command whose usage was asked for and printed: the
// command does nothing more, and pipelined exits 0.
var errHelped = errors.New("usage printed")

// report writes err to w for an operator: a *pipeline.Error as its code and
// message followed by its details one per line, anything else as is.
func report(w io.Writer, err error) {
	if errors.Is(err, errUsage) {
		return
	}
	if l, ok := errors.AsType[*lineError](err); ok {
		defer fmt.Fprintf(w, "Run \"pipelined %s -h\" for its usage.\n", l.cmd)
	}
	var e *pipeline.Error
	if !errors.As(err, &e) {
		fmt.Fprintf(w, "pipelined: %v\n", err)
		return
	}
	fmt.Fprintf(w, "pipelined: %s: %s\n", e.Code, e.Message)
	switch d := e.Details.(type) {
	case nil:
	case pipeline.FieldErrors:
		for _, field := range slices.Sorted(maps.Keys(d)) {
			for _, msg := range d[field] {
				fmt.Fprintf(w, "  %s: %s\n", field, msg)
			}
		}
	case map[string]string:
		for _, k := range slices.Sorted(maps.Keys(d)) {
			fmt.Fprintf(w, "  %s: %s\n", k, d[k])
		}
	default:
		b, _ := json.Marshal(d)
		fmt.Fprintf(w, "  details: %s\n", b)
	}
}
