package pipeline

import (
	"context"
	"fmt"
	"time"
)

// The retention pass (privacy.md §2): with a team's retention period of
// N days in effect, each of its candidates that is not hired and either
// is on a job closed N days ago or is rejected or withdrawn with no
// activity entry about them for N days is erased, as ErasePerson erases,
// that candidate alone.

// Why a candidate was swept.
const (
	SweptJobClosed = "job_closed"
	SweptRejected  = CandidateRejected
	SweptWithdrawn = CandidateWithdrawn
)

// RetentionBatch is how many candidates one transaction of the pass
// erases, so that its locks and its privacy.erased entry stay small.
const RetentionBatch = 100

// Expired is a candidate the retention pass erases, and why: SweptJobClosed,
// SweptRejected or SweptWithdrawn.
type Expired struct {
	Candidate Candidate
	Why       string
}

// Swept is a candidate the retention pass erased (or, dry, would erase).
type Swept struct {
	TeamID      int64
	TeamKey     string
	CandidateID int64
	JobID       int64
	Why         string
}

// SetRetention sets a team's retention period in days: 0 turns it off,
// else 30 to 3,650. Turning it off or lengthening the period in effect
// applies at once; a new or shorter period RetentionDelay later, the one
// in effect kept until then. It returns the team as it reads after.
// Errors: validation_failed (retention_days), not_found (team).
func (o *Operator) SetRetention(ctx context.Context, teamID int64, days int) (Team, error) {
	if days != 0 && (days < MinRetentionDays || days > MaxRetentionDays) {
		return Team{}, Invalid("retention_days", "The retention period must be 0 (off) or 30 to 3650 days.")
	}
	var out Team
	err := o.store.Write(ctx, func(tx Tx) error {
		t, err := tx.Teams().Lock(ctx, TeamParams{ID: teamID})
		if err != nil {
			return err
		}
		t.Retention = t.Retention.set(days, o.now())
		out = t
		return tx.Teams().SetRetention(ctx, SetRetentionParams{TeamID: t.ID, Retention: t.Retention})
	})
	return out, err
}

// SweepRetention runs the retention pass once, now: for each team with a
// retention period in effect, it erases each candidate the period has
// expired, as ErasePerson does (its notes, ratings, messages' text,
// invitations and activity values; its future interviews cancelled) but
// that candidate alone, in batches of RetentionBatch, each logged as any
// erasure is (candidate.erased for each, privacy.erased with the count) as
// the server's own act, with no user, token or address, and the period as
// its reason. With dryRun it
// erases nothing and returns what it would erase. Two passes running at
// once, on one database or on two replicas, erase each candidate once:
// each batch locks its candidates and skips those erased meanwhile.
//
// It takes no caller and checks no scope: the server's background queue
// and "pipelined privacy sweep" run it, never a request. Errors: none of
// the API's codes; a storage failure is returned as is, with what the
// batches committed before it erased.
func (s *Service) SweepRetention(ctx context.Context, dryRun bool) ([]Swept, error) {
	teams, err := s.store.Teams().List(ctx)
	if err != nil {
		return nil, err
	}
	out := []Swept{}
	now := s.now()
	for _, t := range teams {
		days := t.Retention.At(now)
		if days == 0 {
			continue
		}
		cutoff := now.Add(-time.Duration(days) * 24 * time.Hour)
		swept, err := s.sweepTeam(ctx, t, days, cutoff, dryRun)
		out = append(out, swept...)
		if err != nil {
			return out, err
		}
	}
	if !dryRun && len(out) > 0 {
		s.store.Scrub(ctx)
	}
	return out, nil
}

// sweepTeam erases the candidates of team t whose retention of days
// expired at cutoff, a batch per transaction. The period is the reason
// every entry of the erasure carries (oversight.md §1).
func (s *Service) sweepTeam(ctx context.Context, t Team, days int, cutoff time.Time, dryRun bool) ([]Swept, error) {
	reason := fmt.Sprintf("Retention period of %d days.", days)
	var out []Swept
	for after := int64(0); ; {
		var batch []Expired
		err := s.store.Write(ctx, func(tx Tx) error {
			var err error
			if batch, err = tx.Privacy().Expired(ctx, ExpiredParams{TeamID: t.ID, Cutoff: cutoff, AfterID: after, Limit: RetentionBatch}); err != nil || dryRun || len(batch) == 0 {
				return err
			}
			cands := make([]Candidate, len(batch))
			for i, x := range batch {
				cands[i] = x.Candidate
			}
			_, err = s.erase(ctx, reasonTx{Tx: tx, reason: &reason}, Caller{}, t.ID, cands)
			return err
		})
		if err != nil {
			return out, err
		}
		for _, x := range batch {
			out = append(out, Swept{TeamID: t.ID, TeamKey: t.Key, CandidateID: x.Candidate.ID, JobID: x.Candidate.JobID, Why: x.Why})
		}
		if len(batch) < RetentionBatch {
			return out, nil
		}
		after = batch[len(batch)-1].Candidate.ID
	}
}
