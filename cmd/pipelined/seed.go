package main

import (
	"bytes"
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
	// A file that does not decode leaves the database untouched.
	w, err := readSeedFile(fs.Arg(0), e.stdin)
	if err != nil {
		return err
	}
	return withOperator(ctx, e.cfg, writes, func(op *pipeline.Operator) error {
		res, err := op.Seed(ctx, &w)
		if err != nil {
			return err
		}
		return json.NewEncoder(e.stdout).Encode(res)
	})
}

// readSeedFile decodes a seed file strictly: an unknown field, a wrong type
// or anything after the object is an error, which names the line and
// column where the file goes wrong when the decoder knows it (the decoder
// reports the offset after the byte in error). "-" reads
// stdin.
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
	data, err := io.ReadAll(r)
	if err != nil {
		return pipeline.SeedWorld{}, fmt.Errorf("%s: %w", path, err)
	}
	var w pipeline.SeedWorld
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syntax):
			return pipeline.SeedWorld{}, fmt.Errorf("%s:%s: %w", path, position(data, syntax.Offset-1), err)
		case errors.As(err, &typ):
			return pipeline.SeedWorld{}, fmt.Errorf("%s:%s: %w", path, position(data, typ.Offset-1), err)
		case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
			return pipeline.SeedWorld{}, fmt.Errorf("%s:%s: the JSON ends before the seed object does", path, position(data, int64(len(data))))
		}
		return pipeline.SeedWorld{}, fmt.Errorf("%s: %w", path, err)
	}
	at := dec.InputOffset()
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		at += int64(len(data[at:]) - len(bytes.TrimLeft(data[at:], " \t\r\n")))
		return pipeline.SeedWorld{}, fmt.Errorf("%s:%s: unexpected data after the seed object", path, position(data, at))
	}
	return w, nil
}

// position is the line and column ("3:14", both from 1, the column in
// bytes) of the byte at offset in data.
func position(data []byte, offset int64) string {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("%d:%d", line, col)
}
