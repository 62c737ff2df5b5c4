package pipeline

import (
	"context"
	"fmt"
)

// Op names an operation of the Service. The names are those of the MCP
// tools; the HTTP routes map one to one onto them.
type Op string

// The operations.
const (
	OpGetMe          Op = "get_me"
	OpListJobs       Op = "list_jobs"
	OpGetJob         Op = "get_job"
	OpCreateJob      Op = "create_job"
	OpUpdateJob      Op = "update_job"
	OpListStages     Op = "list_stages"
	OpListCandidates Op = "list_candidates"
	OpGetCandidate   Op = "get_candidate"
	OpMoveCandidate  Op = "move_candidate"
	OpAddNote        Op = "add_note"
	OpRateCandidate  Op = "rate_candidate"
	OpListActivity   Op = "list_activity"

	OpCreateWebhook         Op = "create_webhook"
	OpListWebhooks          Op = "list_webhooks"
	OpGetWebhook            Op = "get_webhook"
	OpDeleteWebhook         Op = "delete_webhook"
	OpListWebhookDeliveries Op = "list_webhook_deliveries"
)

// Ref names the records an operation is about: its job and candidate ids,
// or its webhook's, zero where the operation takes none.
type Ref struct {
	Job       int64
	Candidate int64
	Webhook   int64
}

// opSpec is what the checks before an operation reads its input need: the
// scope, whether only team owners and admins may call it, whether it
// writes, and how its record is found.
type opSpec struct {
	scope  Scope
	admin  bool
	writes bool
	find   func(ctx context.Context, s Store, c Caller, r Ref) error // reads
	lock   func(ctx context.Context, tx Tx, c Caller, r Ref) error   // writes
}

func findJob(ctx context.Context, s Store, c Caller, r Ref) error {
	_, err := s.Job(ctx, c.user.ID, r.Job)
	return err
}

func findCandidate(ctx context.Context, s Store, c Caller, r Ref) error {
	_, err := s.Candidate(ctx, c.user.ID, r.Job, r.Candidate)
	return err
}

func findWebhook(ctx context.Context, s Store, c Caller, r Ref) error {
	_, err := s.Webhook(ctx, c.team.ID, r.Webhook)
	return err
}

func lockJob(ctx context.Context, tx Tx, c Caller, r Ref) error {
	_, err := tx.JobForUpdate(ctx, c.user.ID, r.Job)
	return err
}

func lockCandidate(ctx context.Context, tx Tx, c Caller, r Ref) error {
	_, err := tx.CandidateForUpdate(ctx, c.user.ID, r.Job, r.Candidate)
	return err
}

func lockWebhook(ctx context.Context, tx Tx, c Caller, r Ref) error {
	_, err := tx.WebhookForDelete(ctx, c.team.ID, r.Webhook)
	return err
}

var ops = map[Op]opSpec{
	OpGetMe:          {},
	OpListJobs:       {scope: ScopeJobsRead},
	OpGetJob:         {scope: ScopeJobsRead, find: findJob},
	OpCreateJob:      {scope: ScopeJobsWrite, writes: true},
	OpUpdateJob:      {scope: ScopeJobsWrite, writes: true, lock: lockJob},
	OpListStages:     {scope: ScopeJobsRead, find: findJob},
	OpListCandidates: {scope: ScopeCandidatesRead, find: findJob},
	OpGetCandidate:   {scope: ScopeCandidatesRead, find: findCandidate},
	OpMoveCandidate:  {scope: ScopeCandidatesWrite, writes: true, lock: lockCandidate},
	OpAddNote:        {scope: ScopeCandidatesWrite, writes: true, lock: lockCandidate},
	OpRateCandidate:  {scope: ScopeCandidatesWrite, writes: true, lock: lockCandidate},
	OpListActivity:   {scope: ScopeActivityRead},

	OpCreateWebhook:         {scope: ScopeWebhooksWrite, admin: true, writes: true},
	OpListWebhooks:          {scope: ScopeWebhooksWrite, admin: true},
	OpGetWebhook:            {scope: ScopeWebhooksWrite, admin: true, find: findWebhook},
	OpDeleteWebhook:         {scope: ScopeWebhooksWrite, admin: true, writes: true, lock: lockWebhook},
	OpListWebhookDeliveries: {scope: ScopeWebhooksWrite, admin: true, find: findWebhook},
}

// Scope is the scope a caller needs for op; "" when any caller may call it.
func (o Op) Scope() Scope { return ops[o].scope }

// Writes reports whether op changes data.
func (o Op) Writes() bool { return ops[o].writes }

// Reject answers a call of op whose input a transport could not read (a
// malformed body or query parameter), keeping the API's check order: it
// runs the checks that come before the input (unauthenticated,
// insufficient_scope, not_found for the record at r, then the idempotency
// key of a write: validation_failed or conflict) and returns the first that
// fails, or else cause, the input's own problem.
func (s *Service) Reject(ctx context.Context, op Op, r Ref, idem *Idempotency, cause error) error {
	spec, ok := ops[op]
	if !ok {
		return fmt.Errorf("pipeline: unknown operation %q", op)
	}
	c, err := authorize(ctx, spec.scope)
	if err == nil && spec.admin {
		c, err = s.webhookAdmin(ctx)
	}
	if err != nil {
		return err
	}
	if !spec.writes {
		if spec.find != nil {
			if err := spec.find(ctx, s.store, c, r); err != nil {
				return err
			}
		}
		return cause
	}
	var k *keyed
	if idem != nil {
		k = &keyed{key: idem.Key, request: idem.Request}
	}
	busy, release := s.hold(c, k)
	defer release()
	return s.store.Write(ctx, func(tx Tx) error {
		if spec.lock != nil {
			if err := spec.lock(ctx, tx, c, r); err != nil {
				return err
			}
		}
		if k != nil {
			// A stored result cannot match: a request that could not be
			// read never succeeded.
			if _, err := s.claim(ctx, tx, c, k.key, busy).verdict(ctx, c, k); err != nil {
				return err
			}
		}
		return cause
	})
}
