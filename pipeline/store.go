package pipeline

import (
	"context"
	"errors"
)

// ErrStageNotInJob is what CandidateStore.List returns for a stage filter
// that names no stage of the job.
var ErrStageNotInJob = errors.New("pipeline: the stage is not a stage of the job")

// Store is the storage the Service needs. Read methods that take a viewer
// apply the visibility rule for that user id: the jobs of teams where the
// viewer is owner or admin, and on the viewer's other teams the jobs the
// viewer owns or is assigned to; a job's owner or assignee who is no member
// of its team reaches nothing of it. Anything else, and everything nested
// under it, is reported as not found, as is a record asked for under a job
// or candidate it is not of. A list's Total is the exact number of records
// it selects, on a page past the last too, however many writes commit
// beside the read. Implementations return *Error values with code
// not_found (and conflict for unique violations); any other error is an
// internal fault. Inputs arrive validated and with their defaults applied.
// storetest.Conformance checks these rules and those of the methods.
type Store interface {
	// Tokens reads tokens and records their use.
	Tokens() TokenStore

	// Jobs reads jobs and their stages.
	Jobs() JobStore
	// Candidates reads candidates.
	Candidates() CandidateStore

	// Write runs fn in one transaction, committed when fn returns nil and
	// rolled back otherwise; fn's error is returned as is.
	Write(ctx context.Context, fn func(Tx) error) error

	// Users reads users and their teams.
	Users() UserStore
	// Activity reads the activity log and its feed.
	Activity() ActivityStore
	// Teams reads and creates teams.
	Teams() TeamStore
	// Members reads users with their memberships.
	Members() MemberStore
	// Seed stores, in one transaction, a world that Operator.Seed validated
	// and completed: every default and time is set.
	Seed(ctx context.Context, w *SeedWorld) (SeedResult, error)
	// Idempotency purges idempotency records.
	Idempotency() IdempotencyStore
	// Ping reports whether the database answers.
	Ping(ctx context.Context) error

	// Webhooks reads webhooks and records their deliveries.
	Webhooks() WebhookStore

	// Notes reads notes.
	Notes() NoteStore

	// Messages reads messages.
	Messages() MessageStore
	// Invitations reads and records invitation mails.
	Invitations() InvitationStore
	// Interviews reads interviews.
	Interviews() InterviewStore
	// Documents reads documents, and records their texts.
	Documents() DocumentStore

	// Privacy reads a person's candidates.
	Privacy() PrivacyStore
	// Ratings reads ratings.
	Ratings() RatingStore
	// Scrub makes what an erasure deleted unreadable in the database's
	// files, once it committed: a checkpoint on SQLite (which runs with
	// secure_delete), a vacuum of the tables erasures touch on
	// PostgreSQL. Its failure is logged, not returned: the erasure stands.
	Scrub(ctx context.Context)

	// Sessions holds the people's sign-in links and sessions
	// (session.go).
	Sessions() SessionStore

	// Proposals reads proposals.
	Proposals() ProposalStore

	// Tags reads a team's tags.
	Tags() TagStore
}

// Tx is the part of the store used inside a write transaction. Rows read
// through it for change (jobs, candidates, ratings) stay locked until the
// transaction ends.
type Tx interface {
	// Idempotency claims keys and keeps their records.
	Idempotency() IdempotencyTx

	// Jobs writes jobs.
	Jobs() JobTx

	// Candidates writes candidates.
	Candidates() CandidateTx

	// Notes writes notes.
	Notes() NoteTx
	// Ratings reads and writes ratings.
	Ratings() RatingTx

	// Tokens writes tokens.
	Tokens() TokenTx

	// Activity writes the activity log.
	Activity() ActivityTx

	// Webhooks writes webhooks.
	Webhooks() WebhookTx

	// Membership changes (Operator.AddUser, SetRole, RemoveUser): the
	// Operator locks the team (Teams), then the user (Members), and
	// decides.

	// Teams locks teams and writes their retention.
	Teams() TeamTx
	// Users writes users.
	Users() UserTx
	// Members locks users with their memberships and changes the
	// memberships.
	Members() MemberTx

	// Privacy erases people and finds whom retention erases.
	Privacy() PrivacyTx
	// Proposals writes proposals.
	Proposals() ProposalTx

	// Messages writes messages.
	Messages() MessageTx
	// Interviews writes interviews.
	Interviews() InterviewTx
	// Invitations queues invitation mails.
	Invitations() InvitationTx
	// Documents writes documents.
	Documents() DocumentTx
	// Tags writes a team's tags.
	Tags() TagTx
}
