package pipeline

import (
	"context"
	"errors"
	"time"
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
	// TokenByHash returns the token with the given hash, its user and the
	// team it was made in, which it acts in, revoked and expired tokens
	// included; ErrNotFound when the user is no longer a member of that
	// team (decisions §7).
	TokenByHash(ctx context.Context, hash string) (TokenAuth, error)
	// TokenByID is TokenByHash by the token's id.
	TokenByID(ctx context.Context, id int64) (TokenAuth, error)
	// TouchToken records the last use of a token.
	TouchToken(ctx context.Context, id int64, at time.Time) error

	// ListJobs returns a page of the jobs viewer can reach, newest first
	// (created_at, then id, descending).
	ListJobs(ctx context.Context, viewer int64, f JobFilter) (List[Job], error)
	// Job returns a job viewer can reach.
	Job(ctx context.Context, viewer, id int64) (Job, error)
	// Stages returns the stages of a job viewer can reach, in pipeline order.
	Stages(ctx context.Context, viewer, jobID int64) ([]Stage, error)
	// Candidates reads candidates.
	Candidates() CandidateStore

	// Write runs fn in one transaction, committed when fn returns nil and
	// rolled back otherwise; fn's error is returned as is.
	Write(ctx context.Context, fn func(Tx) error) error

	// UserWithTeam returns a user and the user's current team.
	UserWithTeam(ctx context.Context, userID int64) (User, Team, error)
	// UserByEmail returns the user with that email, in any letter case
	// (compared folded, see Fold: the sign-in limit counts emails so).
	UserByEmail(ctx context.Context, email string) (User, error)
	// TeamTokens returns the tokens created inside a team, with creators,
	// oldest first.
	TeamTokens(ctx context.Context, teamID int64) ([]Token, error)
	// Activity returns the activity entries f selects in commit order (by
	// id).
	Activity(ctx context.Context, f ActivityFilter) ([]Activity, error)
	// Teams returns every team, by id, with its key.
	Teams(ctx context.Context) ([]Team, error)
	// CreateTeam stores a team; a key that exists is a conflict naming it.
	CreateTeam(ctx context.Context, t Team) (Team, error)
	// Members returns users by id with their memberships (ordered by team
	// id): all users, or those on one team.
	Members(ctx context.Context, teamID *int64) ([]Member, error)
	// Seed stores, in one transaction, a world that Operator.Seed validated
	// and completed: every default and time is set.
	Seed(ctx context.Context, w *SeedWorld) (SeedResult, error)
	// PurgeIdempotency deletes idempotency records created before a time.
	PurgeIdempotency(ctx context.Context, before time.Time) (int64, error)
	// Ping reports whether the database answers.
	Ping(ctx context.Context) error

	// Feed returns entries of the activity feed that viewer may read now
	// (see FeedResult): of the jobs viewer reaches, and of the webhooks of
	// the teams viewer owns or administers.
	Feed(ctx context.Context, viewer int64, q FeedQuery) (FeedResult, error)
	// MemberRole returns the role of a user on a team, "" when the user is
	// no member of it.
	MemberRole(ctx context.Context, userID, teamID int64) (Role, error)
	// Webhooks returns a page of a team's webhooks, newest first.
	Webhooks(ctx context.Context, teamID int64, page int) (List[Webhook], error)
	// Webhook returns a webhook of a team.
	Webhook(ctx context.Context, teamID, id int64) (Webhook, error)
	// Deliveries returns a page of the delivery attempts of a webhook of a
	// team, newest first.
	Deliveries(ctx context.Context, teamID, webhookID int64, page int) (List[Delivery], error)
	// DeliveryTarget returns what delivering m needs; not_found when its
	// webhook is gone.
	DeliveryTarget(ctx context.Context, m WebhookMessage) (DeliveryTarget, error)
	// RecordDelivery stores a delivery attempt, with the action of its
	// entry; an attempt of a webhook that is gone is dropped.
	RecordDelivery(ctx context.Context, d Delivery) error
	// PurgeDeliveries deletes delivery attempts made before a time.
	PurgeDeliveries(ctx context.Context, before time.Time) (int64, error)

	// ListNotes returns a page of the notes of a candidate of a job viewer
	// can reach, newest first (created_at, then id, descending); its Total
	// equals the candidate's notes count.
	ListNotes(ctx context.Context, viewer, jobID, candidateID int64, page int) (List[Note], error)

	// Messages reads messages.
	Messages() MessageStore
	// Invitations reads and records invitation mails.
	Invitations() InvitationStore
	// Interviews reads interviews.
	Interviews() InterviewStore
	// TeamUsers returns the users among ids who are members of a team, in
	// the order of ids.
	TeamUsers(ctx context.Context, teamID int64, ids []int64) ([]User, error)

	// Documents reads documents, and records their texts.
	Documents() DocumentStore

	// Person returns the candidates of a team's jobs whose email equals
	// email in any letter case, by id.
	Person(ctx context.Context, teamID int64, email string) ([]Candidate, error)
	// Ratings returns the ratings of a candidate with their users, by
	// user id.
	Ratings(ctx context.Context, candidateID int64) ([]UserRating, error)
	// CandidateActivity returns the entries whose subject is one of the
	// candidates, in commit order, with their actors.
	CandidateActivity(ctx context.Context, candidateIDs []int64) ([]FeedEntry, error)
	// Scrub makes what an erasure deleted unreadable in the database's
	// files, once it committed: a checkpoint on SQLite (which runs with
	// secure_delete), a vacuum of the tables erasures touch on
	// PostgreSQL. Its failure is logged, not returned: the erasure stands.
	Scrub(ctx context.Context)

	// The people's sign-in and tokens (session.go).

	// CreateSignInLink stores a sign-in link (its hash, never its secret).
	CreateSignInLink(ctx context.Context, l SignInLink) error
	// SignInLink returns the sign-in link with the given hash, used and
	// expired ones included, with its user.
	SignInLink(ctx context.Context, hash string) (SignInLink, error)
	// UseSignInLink marks a link used at the given time; not_found when
	// it was used already, so that only one use succeeds.
	UseSignInLink(ctx context.Context, id int64, at time.Time) error
	// CreateSession stores a session (its hash, never its value) and
	// returns it with its id.
	CreateSession(ctx context.Context, s Session) (Session, error)
	// SessionByHash returns a session with its user and the team it acts
	// in: its team while the user is a member of it, else the user's
	// current team; with the user's role there.
	SessionByHash(ctx context.Context, hash string) (SessionAuth, error)
	// TouchSession records the last use of a session.
	TouchSession(ctx context.Context, id int64, at time.Time) error
	// SetSessionTeam sets the team of the session with the given hash and
	// user; not_found when there is none such.
	SetSessionTeam(ctx context.Context, hash string, userID, teamID int64) error
	// DeleteSession deletes the session with the given hash, if any.
	DeleteSession(ctx context.Context, hash string) error
	// UserTeams returns the teams of a user, by id, with the user's roles.
	UserTeams(ctx context.Context, userID int64) ([]TeamRole, error)
	// UserTokens returns a user's tokens in every team, oldest first.
	UserTokens(ctx context.Context, userID int64) ([]Token, error)

	// Proposal returns a proposal with the names of its requester and
	// decider (and their tokens), as stored: a pending one may be past
	// its expiry.
	Proposal(ctx context.Context, id int64) (Proposal, error)
	// ListProposals returns a page of the proposals q selects, newest
	// first (created_at, then id, descending); a status filter of
	// expired or pending reads the expiry at q.Now.
	ListProposals(ctx context.Context, q ProposalQuery) (List[Proposal], error)
	// TeamProposals returns every proposal of a team, newest first
	// (created_at, then id, descending); status, unless "", keeps those
	// that read so at now.
	TeamProposals(ctx context.Context, teamID int64, status string, now time.Time) ([]Proposal, error)
	// CandidateProposals returns the proposals about a candidate (those
	// whose path names it), oldest first.
	CandidateProposals(ctx context.Context, candidateID int64) ([]Proposal, error)
}

// KeyClaim is a team's idempotency key claimed by a write transaction
// (see Tx.ClaimIdempotencyKey).
type KeyClaim interface {
	// Outcome reports whether the key was free (false: another
	// transaction holds it) and the record stored under it, or nil. The
	// claim's error, if any, is returned here.
	Outcome(ctx context.Context) (free bool, rec *IdempotencyRecord, err error)
}

// Tx is the part of the store used inside a write transaction. Rows read
// through it for change (jobs, candidates, ratings) stay locked until the
// transaction ends.
type Tx interface {
	// ClaimIdempotencyKey claims a team's key for the rest of the
	// transaction, without waiting for another transaction that holds it,
	// and reads the record stored under the key and created at or after
	// since. The key is claimed before any row the transaction locks
	// after this call, so that a write whose key another transaction
	// holds does not wait for that row; the outcome may be asked for
	// later, once those rows are read.
	ClaimIdempotencyKey(ctx context.Context, teamID int64, key string, since time.Time) KeyClaim
	// SaveIdempotencyRecord stores a record, replacing an expired one under
	// the same team and key.
	SaveIdempotencyRecord(ctx context.Context, r IdempotencyRecord) error

	// LockTeam returns the team and holds it against concurrent job creation
	// until the transaction ends.
	LockTeam(ctx context.Context, teamID int64) (Team, error)
	// CountActiveJobs counts the team's jobs that are not closed (open
	// and draft), each as the last committed change of its status left it.
	CountActiveJobs(ctx context.Context, teamID int64) (int, error)
	// InsertJob stores a job with its stages, named in pipeline order, and
	// returns it with its id.
	InsertJob(ctx context.Context, j Job, stages []string) (Job, error)
	// JobForUpdate returns a job viewer can reach, locked.
	JobForUpdate(ctx context.Context, viewer, id int64) (Job, error)
	// UpdateJob stores the title, description, status and updated_at of a
	// job locked by JobForUpdate, and when it last changed to closed: set
	// when it becomes closed, cleared when it is reopened.
	UpdateJob(ctx context.Context, j Job) error

	// Candidates writes candidates.
	Candidates() CandidateTx

	// InsertNote stores a note and returns it with its id; the
	// candidate's notes count follows in the same transaction, exact
	// however many notes commit at once.
	InsertNote(ctx context.Context, n Note) (Note, error)
	// Rating returns a user's rating of a candidate, or nil.
	Rating(ctx context.Context, candidateID, userID int64) (*Rating, error)
	// SaveRating stores a user's rating of a candidate, replacing theirs.
	SaveRating(ctx context.Context, r Rating) error

	// InsertToken stores a token (its hash, never its value) inside
	// t.TeamID or, when it is 0, inside its user's current team, and
	// returns it with its id and team. Errors: not_found (user).
	InsertToken(ctx context.Context, t Token) (Token, error)
	// InsertTokenOnce stores a token inside t.TeamID, once per form: a
	// second token with the same user and form hash is a conflict, and
	// nothing is stored.
	InsertTokenOnce(ctx context.Context, t Token, formHash string) (Token, error)
	// TokenForUpdate returns a token, locked. Errors: not_found.
	TokenForUpdate(ctx context.Context, id int64) (Token, error)
	// RevokeToken marks a token locked by TokenForUpdate revoked at the
	// given time; a revoked token keeps its first time.
	RevokeToken(ctx context.Context, id int64, at time.Time) error
	// SetTokenApproval replaces the approval policy of a token locked by
	// TokenForUpdate.
	SetTokenApproval(ctx context.Context, id int64, approval []Op) error

	// InsertActivity appends an activity entry (a TokenID or JobID of 0 is
	// stored as none) and enqueues, in the same transaction, a WebhookMessage to
	// each webhook of the entry's team that selects its action.
	InsertActivity(ctx context.Context, a Activity) error

	// InsertWebhook stores a webhook and returns it with its id.
	InsertWebhook(ctx context.Context, w Webhook) (Webhook, error)
	// WebhookForDelete returns a webhook of a team, locked.
	WebhookForDelete(ctx context.Context, teamID, id int64) (Webhook, error)
	// DeleteWebhook deletes a webhook locked by WebhookForDelete, with its
	// deliveries; its messages still queued find it gone.
	DeleteWebhook(ctx context.Context, id int64) error

	// Membership changes (Operator.AddUser, SetRole, RemoveUser): the
	// Operator locks the team, then the user, and decides.

	// TeamForMembers returns a team with its key, held against concurrent
	// changes of its members (and job creation) until the transaction
	// ends.
	TeamForMembers(ctx context.Context, teamID int64) (Team, error)
	// MemberForChange returns the user with that email, in any letter
	// case, with their memberships, and holds the user against concurrent
	// changes until the transaction ends. Errors: not_found.
	MemberForChange(ctx context.Context, email string) (Member, error)
	// InsertUser stores a user whose current team is teamID, and returns
	// it with its id. A user's email is unique over the whole store, every
	// team, in any letter case. Errors: conflict (a user has the email),
	// here or when the transaction ends: of concurrent inserts of one
	// email, one is stored.
	InsertUser(ctx context.Context, u User, teamID int64) (User, error)
	// InsertMembership gives a user a role on a team.
	InsertMembership(ctx context.Context, userID, teamID int64, role Role) error
	// UpdateRole changes a user's role on a team.
	UpdateRole(ctx context.Context, userID, teamID int64, role Role) error
	// CountOwners counts the owners of a team.
	CountOwners(ctx context.Context, teamID int64) (int, error)
	// DeleteAssignments ends a user's assignments to the jobs of a team.
	DeleteAssignments(ctx context.Context, userID, teamID int64) error
	// DeleteMembership ends a user's membership of a team.
	DeleteMembership(ctx context.Context, userID, teamID int64) error
	// SetCurrentTeam sets a user's current team.
	SetCurrentTeam(ctx context.Context, userID, teamID int64) error

	// Messages writes messages.
	Messages() MessageTx
	// Interviews writes interviews.
	Interviews() InterviewTx
	// Invitations queues invitation mails.
	Invitations() InvitationTx
	// Documents writes documents.
	Documents() DocumentTx

	// PersonForErasure returns, locked, the candidates of a team's jobs
	// whose email equals email in any letter case and that are not erased.
	// Before it locks them it takes the locks the writers of each of their
	// interviews take first, as LockInterviewsWithCandidate: the erasure
	// cancels those to come, after any change of one under way.
	PersonForErasure(ctx context.Context, teamID int64, email string) ([]Candidate, error)
	// EraseCandidate erases a locked candidate's row (name, email, resume
	// URL, erased_at), deletes its notes, ratings and invitation mails,
	// empties its messages (cancelling queued ones), deletes the queued
	// jobs of those messages and mails, and deletes its documents as
	// DocumentTx.Delete does. It locks the candidate's interviews first: a
	// change of one that committed before has its mails deleted with the
	// others, and one that waits for the lock reads the candidate erased
	// (InterviewTx.Lock).
	EraseCandidate(ctx context.Context, candidateID int64, at time.Time) error
	// CandidateEntries returns the activity entries about a candidate and
	// its interviews.
	CandidateEntries(ctx context.Context, candidateID int64) ([]Activity, error)
	// SetActivityChanges replaces the changes of an entry.
	SetActivityChanges(ctx context.Context, id int64, changes []byte) error
	// IdempotencyRecords returns the records of a team's keys.
	IdempotencyRecords(ctx context.Context, teamID int64) ([]IdempotencyRecord, error)
	// InsertProposal stores a proposal and returns it with its id.
	InsertProposal(ctx context.Context, p Proposal) (Proposal, error)
	// ProposalByID is Store.Proposal inside the transaction.
	ProposalByID(ctx context.Context, id int64) (Proposal, error)
	// PendingProposal returns the proposal of a token with that request
	// digest that is pending and not expired at now, or nil.
	PendingProposal(ctx context.Context, tokenID int64, digest string, now time.Time) (*Proposal, error)
	// CountPendingProposals counts a token's proposals pending and not
	// expired at now.
	CountPendingProposals(ctx context.Context, tokenID int64, now time.Time) (int, error)
	// DecideProposal stores a decision of a proposal if it is pending and
	// not expired at d.Now, in one conditional update, and reports
	// whether it was.
	DecideProposal(ctx context.Context, d ProposalDecisionRecord) (bool, error)
	// SetProposalResult stores what an applied proposal's run answered.
	SetProposalResult(ctx context.Context, id int64, r ProposalResult) error
	// ProposalsToClose returns pending proposals past their expiry at now,
	// or whose requesting token was revoked or expired, oldest first; at
	// most a few hundred, so that a pass is short.
	ProposalsToClose(ctx context.Context, now time.Time) ([]Proposal, error)
	// CloseProposal ends a proposal in status at if it is still pending,
	// and reports whether it was: of concurrent passes, one closes it.
	CloseProposal(ctx context.Context, id int64, status string, at time.Time) (bool, error)
	// ProposalsAbout returns a team's proposals on the candidates given,
	// and those on no candidate.
	ProposalsAbout(ctx context.Context, teamID int64, candidateIDs []int64) ([]Proposal, error)
	// EraseProposal drops a proposal's input (to {}), reason and note,
	// sets its result to result (nil: none), and makes the reasons of its
	// activity entries ErasedValue.
	EraseProposal(ctx context.Context, id int64, result *ProposalResult) error

	// SetIdempotencyResult replaces the stored result of a team's key.
	SetIdempotencyResult(ctx context.Context, teamID int64, key string, result []byte) error

	// SetRetention stores the retention period of a team locked by
	// TeamForMembers.
	SetRetention(ctx context.Context, teamID int64, r Retention) error
	// ExpiredCandidates returns, locked and by id, up to limit candidates
	// of a team with ids above afterID that are not erased and that the
	// retention pass erases at cutoff (see Service.SweepRetention): not
	// hired, and on a job closed at or before cutoff, or rejected or
	// withdrawn with no activity entry about them after it.
	ExpiredCandidates(ctx context.Context, teamID int64, cutoff time.Time, afterID int64, limit int) ([]Expired, error)
}
