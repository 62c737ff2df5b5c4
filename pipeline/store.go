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
	// Activity reads the activity log and its feed.
	Activity() ActivityStore
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
	// Idempotency purges idempotency records.
	Idempotency() IdempotencyStore
	// Ping reports whether the database answers.
	Ping(ctx context.Context) error

	// MemberRole returns the role of a user on a team, "" when the user is
	// no member of it.
	MemberRole(ctx context.Context, userID, teamID int64) (Role, error)
	// Webhooks reads webhooks and records their deliveries.
	Webhooks() WebhookStore

	// ListNotes returns a page of the notes of a candidate of a job viewer
	// can reach, newest first (created_at, then id, descending); its Total
	// equals the candidate's notes count.
	ListNotes(ctx context.Context, viewer, jobID, candidateID int64, page int) (List[Note], error)

	// ListMessages returns a page of the messages of a candidate of a job
	// viewer can reach, newest first (created_at, then id, descending).
	ListMessages(ctx context.Context, viewer, jobID, candidateID int64, page int) (List[Message], error)
	// Message returns a message of a candidate of a job viewer can reach.
	Message(ctx context.Context, viewer, jobID, candidateID, id int64) (Message, error)
	// MessageToSend returns a message by id, for its queue, as the last
	// committed write left it (a cancel just committed is seen); not_found
	// when it is gone.
	MessageToSend(ctx context.Context, id int64) (Message, error)
	// InvitationMailToSend returns an invitation mail by id, for its
	// queue, as the last committed write left it; not_found when it is
	// gone.
	InvitationMailToSend(ctx context.Context, id int64) (InvitationMail, error)
	// RecordInvitationAttempt stores the outcome of an attempt of an
	// invitation mail (a.MessageID is its id): its count, error and
	// status, and the time a sent one was sent. As with
	// Tx.RecordMessageAttempt, a retry or a failure changes only a queued
	// mail, and a sent outcome any: a sent outcome wins over a failure
	// reported before or after it, in whichever order the two commit.
	RecordInvitationAttempt(ctx context.Context, a MessageAttempt) error
	// Interview returns an interview of a candidate of a job viewer can
	// reach, with its interviewers.
	Interview(ctx context.Context, viewer, jobID, candidateID, id int64) (Interview, error)
	// ListInterviews returns a page of the interviews of a candidate of a
	// job viewer can reach, by start, then id.
	ListInterviews(ctx context.Context, viewer, jobID, candidateID int64, page int) (List[Interview], error)
	// BusyTimes returns the times of the scheduled interviews q selects,
	// by start; a cancelled interview books nobody.
	BusyTimes(ctx context.Context, q BusyQuery) ([]Busy, error)
	// TeamUsers returns the users among ids who are members of a team, in
	// the order of ids.
	TeamUsers(ctx context.Context, teamID int64, ids []int64) ([]User, error)

	// ListDocuments returns a page of the documents of a candidate of a job
	// viewer can reach, newest first (created_at, then id, descending).
	ListDocuments(ctx context.Context, viewer, jobID, candidateID int64, page int) (List[Document], error)
	// Document returns a document of a candidate of a job viewer can reach.
	Document(ctx context.Context, viewer, jobID, candidateID, id int64) (Document, error)
	// DocumentText is Document with the document's kept text ("" unless
	// ready).
	DocumentText(ctx context.Context, viewer, jobID, candidateID, id int64) (Document, string, error)
	// DocumentsWithText returns every document of a candidate of a job
	// viewer can reach, with its kept text, in the order of ListDocuments;
	// of a candidate viewer cannot reach, none (not_found or empty).
	DocumentsWithText(ctx context.Context, viewer, jobID, candidateID int64) ([]DocumentWithText, error)
	// OpenDocument returns the bytes of a document; not_found when they
	// are gone with it.
	OpenDocument(ctx context.Context, id int64) (Content, error)
	// DocumentForText returns a document by id, for its text's extraction;
	// not_found when it is gone.
	DocumentForText(ctx context.Context, id int64) (Document, error)
	// SetDocumentText stores the outcome of a document's extraction: its
	// status, and its text when ready. Only a pending document changes.
	SetDocumentText(ctx context.Context, id int64, status, text string, truncated bool) error

	// Privacy reads a person's candidates.
	Privacy() PrivacyStore
	// Ratings returns the ratings of a candidate with their users, by
	// user id.
	Ratings(ctx context.Context, candidateID int64) ([]UserRating, error)
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

	// Proposals reads proposals.
	Proposals() ProposalStore
}

// Tx is the part of the store used inside a write transaction. Rows read
// through it for change (jobs, candidates, ratings) stay locked until the
// transaction ends.
type Tx interface {
	// Idempotency claims keys and keeps their records.
	Idempotency() IdempotencyTx

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

	// Activity writes the activity log.
	Activity() ActivityTx

	// Webhooks writes webhooks.
	Webhooks() WebhookTx

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

	// InsertMessage stores a queued message and returns it with its id
	// (its ID when drawn), and enqueues, in the same transaction, its sending, due at its
	// SendAt.
	InsertMessage(ctx context.Context, m Message) (Message, error)
	// MessageForUpdate returns a message of a candidate, locked.
	MessageForUpdate(ctx context.Context, candidateID, id int64) (Message, error)
	// CancelMessage marks a message locked by MessageForUpdate cancelled
	// if it is still queued; a sent, failed or cancelled one stays as it
	// is. A cancel wins over a send in flight: a retry or a failure
	// reported after it changes nothing (see RecordMessageAttempt).
	CancelMessage(ctx context.Context, id int64) error
	// RequeueMessage stores a message locked by MessageForUpdate queued
	// again, due at its SendAt, with its attempts, and enqueues, in the
	// same transaction, its sending.
	RequeueMessage(ctx context.Context, m Message) error
	// RecordMessageAttempt stores the outcome of an attempt: its count,
	// error and status, and the time a sent message was sent, and reports
	// whether it changed the message. A retry (status queued) or a
	// failure changes only a queued message. A sent outcome changes the
	// message whatever it has become (a cancel that came while it was
	// being sent, a failure reported before): the mail is out. So a sent
	// message stays sent, and of a cancel and a sent outcome racing, the
	// message ends sent in either order.
	RecordMessageAttempt(ctx context.Context, a MessageAttempt) (bool, error)
	// TeamUsers is Store.TeamUsers inside the transaction.
	TeamUsers(ctx context.Context, teamID int64, ids []int64) ([]User, error)
	// InterviewForUpdate returns an interview of a candidate of a job
	// viewer can reach, with its interviewers and its candidate's name,
	// email, status and erasure, locked. When EraseCandidate or
	// ScheduledInterviewsForUpdate held the lock before, the candidate
	// reads as their transaction left it.
	InterviewForUpdate(ctx context.Context, viewer, jobID, candidateID, id int64) (Interview, error)
	// ScheduledInterviewsForUpdate returns the scheduled interviews of a
	// candidate that end after a time, by start, with their interviewers
	// and their candidate's name, email and status, locked. It locks all
	// the candidate's interviews first: a change of one that committed
	// before is read as it left it (one moved to end after the time is
	// returned), and one that waits for the lock reads the candidate as
	// this transaction left it (InterviewForUpdate).
	ScheduledInterviewsForUpdate(ctx context.Context, candidateID int64, endsAfter time.Time) ([]Interview, error)
	// InsertInterview stores an interview with its interviewers (and its
	// UID and organizer when set) and returns it with its id (its ID when
	// drawn) and its job's title. No double booking: two scheduled
	// interviews of one interviewer, or of one candidate, never overlap;
	// an interview occupies [start, end), so back-to-back ones do not, and
	// a cancelled one books nobody. Errors: ErrBooked (a scheduled
	// interview of an interviewer or of the candidate overlaps it), here or
	// when the transaction ends: of concurrent transactions booking
	// overlapping times, one commits.
	InsertInterview(ctx context.Context, iv Interview) (Interview, error)
	// SetInterviewCalendar stores the UID and the organizer of an
	// interview InsertInterview just stored.
	SetInterviewCalendar(ctx context.Context, iv Interview) error
	// UpdateInterview stores the times, time zone, location, video URL,
	// interviewers, status, sequence and updated_at of an interview locked
	// by InterviewForUpdate. Errors: ErrBooked, as InsertInterview; the
	// interview's own former time is no clash.
	UpdateInterview(ctx context.Context, iv Interview) error
	// InsertInvitationMails stores queued invitation mails and enqueues,
	// in the same transaction, the sending of each. The mails of one
	// change of an interview (its id and sequence) are all queued in one
	// transaction: a store may name a mail by its place among them.
	InsertInvitationMails(ctx context.Context, ms []InvitationMail) error

	// InsertDocument stores a document with its bytes, returns it with
	// its id, and enqueues, in the same transaction, the extraction of its
	// text when it is pending. Bytes kept outside the database are written
	// before the transaction commits.
	InsertDocument(ctx context.Context, d Document, content []byte) (Document, error)
	// DocumentForDelete returns a document of a candidate, locked.
	DocumentForDelete(ctx context.Context, candidateID, id int64) (Document, error)
	// DeleteDocument deletes a document locked by DocumentForDelete; its
	// bytes go with it, or, when kept outside the database, once the
	// transaction has committed.
	DeleteDocument(ctx context.Context, id int64) error

	// Privacy erases people and finds whom retention erases.
	Privacy() PrivacyTx
	// InterviewsToCancel returns, locked, the scheduled interviews of a
	// candidate that end after at, with their interviewers.
	InterviewsToCancel(ctx context.Context, candidateID int64, at time.Time) ([]Interview, error)
	// Proposals writes proposals.
	Proposals() ProposalTx

	// SetRetention stores the retention period of a team locked by
	// TeamForMembers.
	SetRetention(ctx context.Context, teamID int64, r Retention) error
}
