package pipelinestore

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The retention pass (privacy.md §2) reads a team's expired candidates
// through its jobs (jobs_team_status_created_idx), their candidates
// (candidates_job_applied_idx) and the activity about each
// (activity_subject_idx), and locks what it returns on PostgreSQL, so that
// of two passes at once the second waits and then finds them erased.

// SetRetention stores a team's retention period.
func (t teamTx) SetRetention(ctx context.Context, p pipeline.SetRetentionParams) error {
	r := p.Retention
	return formatError(t.run.deferred(ctx, t.q.SetRetention, r.Days, r.PreviousDays, tsPtr(r.SetAt), p.TeamID), "Team")
}

// Expired returns a team's candidates whose retention expired at
// p.Cutoff, locked on PostgreSQL: a candidate erased by a pass that held
// the lock first no longer matches once it is released. The record locks
// of the candidates and of their interviews come first, as LockPerson's.
func (t privacyTx) Expired(ctx context.Context, p pipeline.ExpiredParams) ([]pipeline.Expired, error) {
	var rows []struct {
		candidateRow
		Why string `bun:"why"`
	}
	if err := t.run.all(ctx, t.q.ExpiredCandidatesLocked, args(p.TeamID, ts(p.Cutoff), p.AfterID, p.Limit), &rows); err != nil {
		return nil, formatError(err, "Candidate")
	}
	out := make([]pipeline.Expired, len(rows))
	for i, r := range rows {
		out[i] = pipeline.Expired{Candidate: r.toCandidate(), Why: r.Why}
	}
	return out, nil
}

// Sweeper runs the server's own passes: the retention pass and the one
// that closes pending proposals past their time (pipeline.Service).
type Sweeper interface {
	SweepRetention(ctx context.Context, dryRun bool) ([]pipeline.Swept, error)
	CloseProposals(ctx context.Context) (int, error)
}

// RetentionInterval is how often the queue runs the retention pass when
// DeliveryConfig.Sweeper is set.
const RetentionInterval = time.Hour

// retentionArgs is the periodic retention pass as a River job's arguments.
type retentionArgs struct{}

// Kind names the job kind.
func (retentionArgs) Kind() string { return "pipeline_retention" }

// InsertOpts puts passes on the maintenance queue; one that fails is not
// retried: the next one comes.
func (retentionArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: purgeQueue, MaxAttempts: 1}
}

// retentionJob is the periodic retention pass, every interval (0:
// RetentionInterval) and once when a client becomes River's leader. Only
// the leader schedules periodic jobs, so each pass is inserted once
// across replicas, and one worker takes it; two passes that meet all the
// same (a leader elected anew, pipelined privacy sweep) erase each
// candidate once, as PrivacyTx.Expired locks.
func retentionJob(interval time.Duration) *river.PeriodicJob {
	if interval <= 0 {
		interval = RetentionInterval
	}
	return river.NewPeriodicJob(river.PeriodicInterval(interval),
		func() (river.JobArgs, *river.InsertOpts) { return retentionArgs{}, nil },
		&river.PeriodicJobOpts{ID: "pipeline_retention", RunOnStart: true})
}

// retentionWorker works River's retention passes.
type retentionWorker struct {
	river.WorkerDefaults[retentionArgs]
	s   Sweeper
	log *slog.Logger
}

func (w *retentionWorker) Work(ctx context.Context, _ *river.Job[retentionArgs]) error {
	swept, err := w.s.SweepRetention(ctx, false)
	if len(swept) > 0 {
		// Counts only: a log line holds no personal data.
		w.log.Info("retention pass erased candidates", "count", len(swept))
	}
	return err
}

func (w *retentionWorker) Timeout(*river.Job[retentionArgs]) time.Duration { return purgeJobTimeout }

// proposalsArgs is the periodic pass that closes pending proposals past
// their time, as a River job's arguments.
type proposalsArgs struct{}

// Kind names the job kind.
func (proposalsArgs) Kind() string { return "pipeline_proposals" }

// InsertOpts puts passes on the maintenance queue, not retried: the next
// one comes.
func (proposalsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: purgeQueue, MaxAttempts: 1}
}

// proposalsJob closes proposals every pipeline.ProposalSweepInterval, so
// that an expiry is logged within a minute; as retentionJob, only the
// leader schedules it, and a proposal closed twice is logged once.
func proposalsJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(pipeline.ProposalSweepInterval),
		func() (river.JobArgs, *river.InsertOpts) { return proposalsArgs{}, nil },
		&river.PeriodicJobOpts{ID: "pipeline_proposals", RunOnStart: true})
}

// proposalsWorker works River's proposal passes.
type proposalsWorker struct {
	river.WorkerDefaults[proposalsArgs]
	s Sweeper
}

func (w *proposalsWorker) Work(ctx context.Context, _ *river.Job[proposalsArgs]) error {
	_, err := w.s.CloseProposals(ctx)
	return err
}

func (w *proposalsWorker) Timeout(*river.Job[proposalsArgs]) time.Duration { return purgeJobTimeout }
