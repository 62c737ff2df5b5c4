package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// A proposal keeps its operation's input as the domain read it: the
// input type's JSON (the REST body's field names, each value as the
// domain holds it, so a stage sent as 5e0 is kept as 5). Approving it
// decodes that JSON into the same type and calls the same Service method
// as the write would have, with no face in between; what a page, a tool
// or the CLI says of a proposal is read from the same decoded value.

// opRun is how the stored input of an operation a proposal may hold runs.
type opRun struct {
	// decode reads a stored input as the operation's input type.
	decode func(raw []byte) (any, error)
	// call runs a decoded input as the caller on ctx, on the records ref
	// names, and returns its answer's body (nil for none).
	call func(ctx context.Context, s *Service, ref Ref, in any) (any, error)
}

// dataBody is a single record's answer: {"data": record}.
type dataBody struct {
	Data any `json:"data"`
}

// runs is the opRun of a write whose input is In: call runs it, render
// makes its body's record of the write's value (nil: the answer has no
// body).
func runs[In, T, B any](call func(s *Service, ctx context.Context, r Ref, in In) (Result[T], error), render func(T) B) *opRun {
	return &opRun{
		decode: func(raw []byte) (any, error) {
			var in In
			d := json.NewDecoder(bytes.NewReader(raw))
			d.DisallowUnknownFields()
			if err := d.Decode(&in); err != nil {
				return nil, Errorf(EValidation, "The stored input cannot be read: %v.", err)
			}
			return in, nil
		},
		call: func(ctx context.Context, s *Service, r Ref, in any) (any, error) {
			res, err := call(s, ctx, r, in.(In))
			if err != nil || render == nil {
				return nil, err
			}
			return dataBody{Data: render(res.Value)}, nil
		},
	}
}

// storedInput is the JSON a proposal keeps of a write's input (a pointer
// to its input type).
func storedInput(input any) (json.RawMessage, error) {
	if input == nil {
		return json.RawMessage(`{}`), nil
	}
	return json.Marshal(input)
}

// Decoded is p's input as its operation's input type (CandidateMove for
// move_candidate, …): what its approval runs, and what a page says it
// would do. Errors: validation_failed when the stored input is not one
// (a proposal stored by an older server in another form).
func (p Proposal) Decoded() (any, error) {
	r := opRuns[p.Operation]
	if r == nil {
		return nil, Errorf(EValidation, "No operation %s can be proposed.", p.Operation)
	}
	return r.decode(p.Input)
}

// Ref is the records p's path names.
func (p Proposal) Ref() (Ref, error) { return pathRef(p.Operation, p.Path) }

// pathRef reads the ids of path, as op's path names them.
func pathRef(op Op, path string) (Ref, error) {
	var r Ref
	t, v := strings.Split(op.Path(), "/"), strings.Split(path, "/")
	if len(t) != len(v) {
		return r, errors.New("pipeline: path " + path + " is not " + op.Path())
	}
	for i, seg := range t {
		if !strings.HasPrefix(seg, "{") {
			if seg != v[i] {
				return r, errors.New("pipeline: path " + path + " is not " + op.Path())
			}
			continue
		}
		at := r.ID(strings.Trim(seg, "{}"))
		n, err := strconv.ParseInt(v[i], 10, 64)
		if at == nil || err != nil {
			return r, errors.New("pipeline: path " + path + " is not " + op.Path())
		}
		*at = n
	}
	return r, nil
}

// onTeam, onJob and onCandidate adapt a Service method to the records a
// Ref names: none but the caller's team, a job, a job's candidate.
func onTeam[In, T any](f func(*Service, context.Context, In) (Result[T], error)) func(*Service, context.Context, Ref, In) (Result[T], error) {
	return func(s *Service, ctx context.Context, _ Ref, in In) (Result[T], error) { return f(s, ctx, in) }
}

func onJob[In, T any](f func(*Service, context.Context, int64, In) (Result[T], error)) func(*Service, context.Context, Ref, In) (Result[T], error) {
	return func(s *Service, ctx context.Context, r Ref, in In) (Result[T], error) { return f(s, ctx, r.Job, in) }
}

func onCandidate[In, T any](f func(*Service, context.Context, int64, int64, In) (Result[T], error)) func(*Service, context.Context, Ref, In) (Result[T], error) {
	return func(s *Service, ctx context.Context, r Ref, in In) (Result[T], error) {
		return f(s, ctx, r.Job, r.Candidate, in)
	}
}

// onRecord adapts a Service method on a record of a job's candidate (an
// interview, a message, a document), which id picks of a Ref.
func onRecord[In, T any](id func(Ref) int64, f func(*Service, context.Context, int64, int64, int64, In) (Result[T], error)) func(*Service, context.Context, Ref, In) (Result[T], error) {
	return func(s *Service, ctx context.Context, r Ref, in In) (Result[T], error) {
		return f(s, ctx, r.Job, r.Candidate, id(r), in)
	}
}

func interviewOf(r Ref) int64 { return r.Interview }
func messageOf(r Ref) int64   { return r.Message }
func documentOf(r Ref) int64  { return r.Document }

// FilledPath is o's path below /api/v1 with the ids of r in place of its
// parameters ("/jobs/7/candidates/9"). The faces run it twice a request,
// so it scans the path once rather than building a strings.Replacer of
// every kind of id (a tenth of a message's allocations).
func (o Op) FilledPath(r Ref) string {
	path := o.Path()
	var b []byte
	for {
		open := strings.IndexByte(path, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(path[open:], '}')
		if end < 0 {
			break
		}
		end += open
		b = append(b, path[:open]...)
		if id := r.ID(path[open+1 : end]); id != nil {
			b = strconv.AppendInt(b, *id, 10)
		} else {
			b = append(b, path[open:end+1]...)
		}
		path = path[end+1:]
	}
	if b == nil {
		return path
	}
	return string(append(b, path...))
}
