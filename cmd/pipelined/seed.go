package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// runSeed loads a world from a JSON file and prints what it created.
func runSeed(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	withDB(&e, fs)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf(e, fs, "seed takes exactly one FILE")
	}
	path := fs.Arg(0)
	return withOperator(ctx, e.cfg, current, func(op *pipeline.Operator) error {
		w, err := readSeedFile(path, e.stdin)
		if err != nil {
			return err
		}
		res, err := op.Seed(ctx, &w)
		if err != nil {
			return err
		}
		return json.NewEncoder(e.stdout).Encode(res)
	})
}

// readSeedFile decodes a seed file strictly: an unknown field, a wrong type
// or anything after the object is an error. "-" reads stdin.
func readSeedFile(path string, stdin io.Reader) (pipeline.SeedWorld, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return pipeline.SeedWorld{}, err
		}
		defer f.Close()
		r = f
	}
	var w pipeline.SeedWorld
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return pipeline.SeedWorld{}, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return pipeline.SeedWorld{}, fmt.Errorf("%s: unexpected data after the seed object", path)
	}
	return w, nil
}
