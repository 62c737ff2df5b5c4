package storetest

import (
	"context"
	"testing"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// IP is the client address of the callers As makes.
const IP = "192.0.2.7"

// Fixture is a database seeded with World, and the Service and Operator on
// it.
type Fixture struct {
	DB  *pipelinestore.DB
	Svc *pipeline.Service
	Op  *pipeline.Operator
	Res pipeline.SeedResult
}

// Seeded builds a Service and an Operator on db with opts and seeds World
// through the Operator.
func Seeded(tb testing.TB, db *pipelinestore.DB, opts ...pipeline.Option) Fixture {
	tb.Helper()
	op := pipeline.NewOperator(db, opts...)
	return Fixture{DB: db, Svc: pipeline.NewService(db, opts...), Op: op, Res: Seed(tb, op)}
}

// As returns a context carrying the caller of the fixture token key, from
// address IP, as the HTTP layer would make it.
func (f Fixture) As(tb testing.TB, key string) context.Context {
	tb.Helper()
	c, err := f.Svc.Authenticate(context.Background(), f.Res.Tokens[key])
	if err != nil {
		tb.Fatalf("storetest: authenticate %s: %v", key, err)
	}
	return pipeline.NewContext(context.Background(), c.WithIP(IP))
}

// Activity returns the whole activity log.
func (f Fixture) Activity(tb testing.TB) []pipeline.Activity {
	tb.Helper()
	a, err := f.Op.ActivityLog(context.Background(), nil)
	if err != nil {
		tb.Fatalf("storetest: activity: %v", err)
	}
	return a
}

// User is the id of the fixture user key.
func (f Fixture) User(key string) int64 { return f.Res.Users[key] }

// Job is the id of the fixture job key.
func (f Fixture) Job(key string) int64 { return f.Res.Jobs[key] }
