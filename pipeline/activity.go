package pipeline

import (
	"context"
	"encoding/json"
	"time"
)

// Activity actions.
const (
	ActionJobCreated            = "job.created"
	ActionJobUpdated            = "job.updated"
	ActionCandidateCreated      = "candidate.created"
	ActionCandidateUpdated      = "candidate.updated"
	ActionCandidateStageChanged = "candidate.stage_changed"
	ActionCandidateNoteAdded    = "candidate.note_added"
	ActionCandidateRated        = "candidate.rated"
	ActionWebhookCreated        = "webhook.created"
	ActionWebhookDeleted        = "webhook.deleted"

	ActionCandidateMessaged         = "candidate.messaged"
	ActionCandidateMessageCancelled = "candidate.message_cancelled"
	// ActionCandidateMessageSent and ActionCandidateMessageFailed are
	// logged by the server itself, with no user, token or address, when
	// the mail server takes a message or it ends failed.
	ActionCandidateMessageSent   = "candidate.message_sent"
	ActionCandidateMessageFailed = "candidate.message_failed"
	// ActionCandidateMessageRetried is a failed message queued again.
	ActionCandidateMessageRetried = "candidate.message_retried"
	ActionInterviewScheduled      = "interview.scheduled"
	ActionInterviewRescheduled    = "interview.rescheduled"
	ActionInterviewCancelled      = "interview.cancelled"
)

// Actions lists every activity action, in the order of the API document.
var Actions = []string{
	ActionJobCreated, ActionJobUpdated, ActionCandidateCreated, ActionCandidateUpdated,
	ActionCandidateStageChanged, ActionCandidateNoteAdded, ActionCandidateRated,
	ActionWebhookCreated, ActionWebhookDeleted,
	ActionCandidateMessaged, ActionCandidateMessageCancelled,
	ActionCandidateMessageSent, ActionCandidateMessageFailed, ActionCandidateMessageRetried,
	ActionInterviewScheduled, ActionInterviewRescheduled, ActionInterviewCancelled,
	ActionCandidateErased, ActionPrivacyExported, ActionPrivacyErased,
	ActionProposalCreated, ActionProposalApproved, ActionProposalRejected, ActionProposalExpired, ActionProposalWithdrawn,
	ActionCandidateDocumentAdded, ActionCandidateDocumentRemoved,
	ActionTokenCreated, ActionTokenRevoked, ActionTokenApprovalChanged,
	ActionTagCreated, ActionTagRenamed, ActionTagDeleted, ActionCandidateTagged, ActionCandidateUntagged,
}

// The actions of a team's tags (subject the tag, no job) and of a
// candidate's (subject the candidate; changes {"tag_id", "tag"}).
const (
	ActionTagCreated        = "tag.created"
	ActionTagRenamed        = "tag.renamed"
	ActionTagDeleted        = "tag.deleted"
	ActionCandidateTagged   = "candidate.tagged"
	ActionCandidateUntagged = "candidate.untagged"
)

// Activity subject types.
const (
	SubjectJob       = "job"
	SubjectCandidate = "candidate"
	SubjectWebhook   = "webhook"
	// SubjectTag is a team's tag, whose entries have no job: they reach
	// the team's owners and admins only.
	SubjectTag = "tag"
)

// Activity is an entry of the activity log: one write that changed
// something, with who made it, with which token and from which address.
type Activity struct {
	ID          int64           `json:"id"`
	TeamID      int64           `json:"team_id"`
	JobID       int64           `json:"job_id,omitempty"` // the job concerned; 0 for a webhook's or a tag's entries
	UserID      int64           `json:"user_id"`          // 0: the server's own entry
	TokenID     int64           `json:"token_id"`         // 0: made through Operator.ActAs
	IP          string          `json:"ip"`
	Action      string          `json:"action"`
	SubjectType string          `json:"subject_type"`
	SubjectID   int64           `json:"subject_id"`
	Changes     json.RawMessage `json:"changes"` // field → {before, after}; a note as {note_id}
	// Reason is the reason given with the write that made the entry (see
	// Reasoned); nil when none was.
	Reason *string `json:"reason"`
	// ApprovedBy is who approved the proposal whose run made the entry;
	// nil on every entry that was not approved.
	ApprovedBy *ApprovedBy `json:"approved_by"`
	CreatedAt  time.Time   `json:"created_at"`
}

// log appends an activity entry inside the write's transaction; jobID is
// the job concerned, 0 for none.
func (s *Service) log(ctx context.Context, tx Tx, c Caller, teamID, jobID int64, action, subjectType string, subjectID int64, changes any) error {
	return tx.Activity().Insert(ctx, Activity{
		TeamID:      teamID,
		JobID:       jobID,
		UserID:      c.user.ID,
		TokenID:     c.tokenID,
		IP:          c.ip,
		Action:      action,
		SubjectType: subjectType,
		SubjectID:   subjectID,
		Changes:     mustJSON(changes),
		CreatedAt:   s.now(),
	})
}

// ActivityStore is what the Service and the Operator read of the activity
// log outside a write.
type ActivityStore interface {
	// List returns the activity entries f selects in commit order (by
	// id).
	List(ctx context.Context, f ActivityFilter) ([]Activity, error)
	// Feed returns entries of the activity feed that q.Viewer may read now
	// (see FeedResult): of the jobs the viewer reaches, and of the
	// webhooks of the teams the viewer owns or administers.
	Feed(ctx context.Context, q FeedQuery) (FeedResult, error)
	// AboutCandidates returns the entries whose subject is one of the
	// candidates, in commit order, with their actors.
	AboutCandidates(ctx context.Context, p CandidateActivityParams) ([]FeedEntry, error)
}

// CandidateActivityParams names the candidates whose entries are read.
type CandidateActivityParams struct {
	CandidateIDs []int64
}

// ActivityTx is what a write transaction does to the activity log.
type ActivityTx interface {
	// Insert appends an activity entry (a TokenID or JobID of 0 is stored
	// as none) and enqueues, in the same transaction, a WebhookMessage to
	// each webhook of the entry's team that selects its action.
	Insert(ctx context.Context, a Activity) error
	// AboutCandidate returns the activity entries about a candidate and
	// its interviews.
	AboutCandidate(ctx context.Context, p CandidateEntriesParams) ([]Activity, error)
	// SetChanges replaces the changes of an entry.
	SetChanges(ctx context.Context, p ActivityChangesParams) error
}

// CandidateEntriesParams names the candidate whose entries are read.
type CandidateEntriesParams struct {
	CandidateID int64
}

// ActivityChangesParams is an entry's new changes.
type ActivityChangesParams struct {
	ID      int64
	Changes []byte
}
