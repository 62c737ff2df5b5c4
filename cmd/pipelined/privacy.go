package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/pipeline-dev/pipeline/pipeline"
)

const privacySweepDoc = `
Run the retention pass now, as the server runs it hourly, and print what it
erased as JSON lines: {"team", "candidate_id", "job_id", "why"}, why being
job_closed, rejected or withdrawn. --dry-run erases nothing and prints what
the pass would erase.

A team with a retention period (pipelined team set --retention-days N) has
each candidate that is not hired erased, that candidate alone, once it is
on a job closed N days ago, or is rejected or withdrawn with no activity
about it for N days. The erasure is the one of POST /api/v1/privacy/erasures
and is logged the same way (candidate.erased for each, privacy.erased with
the count), as the server's own act, with no user, token or IP. A pass
running on a server at the same time erases each candidate once.`

// sweepJSON is a candidate the pass erased, as privacy sweep prints it.
type sweepJSON struct {
	Team        string `json:"team"`
	CandidateID int64  `json:"candidate_id"`
	JobID       int64  `json:"job_id"`
	Why         string `json:"why"`
}

func runPrivacySweep(ctx context.Context, e env, args []string) (err error) {
	fs := newFlagSet(e)
	withDB(&e, fs)
	dry := fs.Bool("dry-run", false, "print what the pass would erase, and erase nothing")
	if err := parseFlagsOnly(e, fs, args); err != nil {
		return err
	}
	// Interviewers of a cancelled interview are mailed as after any
	// erasure: the server's queue sends what the pass enqueues.
	cfg, err := e.cfg.withMailer(slog.New(slog.NewJSONHandler(e.stderr, nil)))
	if err != nil {
		return err
	}
	db, _, err := openStore(ctx, cfg, writes)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, db.Close()) }()
	swept, err := pipeline.NewService(db, cfg.domainOptions()...).SweepRetention(ctx, *dry)
	if perr := printJSONLines(e.stdout, swept, func(x pipeline.Swept) sweepJSON {
		return sweepJSON{Team: x.TeamKey, CandidateID: x.CandidateID, JobID: x.JobID, Why: x.Why}
	}); perr != nil {
		return errors.Join(err, perr)
	}
	return err
}
