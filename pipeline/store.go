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

}
