package pipelinestore

import "github.com/pipeline-dev/pipeline/pipeline"

// SetSweepEvery makes a PostgreSQL limiter sweep ended windows every n
// Takes, so that a test need not make a thousand requests.
func SetSweepEvery(l pipeline.Limiter, n uint64) {
	if pl, ok := l.(*pgLimiter); ok {
		pl.sweepEvery = n
	}
}

// WaitBackground waits for the background work of db, such as a sweep.
func WaitBackground(db *DB) { db.bg.Wait() }
