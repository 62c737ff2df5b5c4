package pipeline

import "maps"

// Op names an operation of the Service. The names are those of the MCP
// tools; the HTTP routes map one to one onto them.
type Op string

// The operations.
const (
	OpGetMe           Op = "get_me"
	OpListJobs        Op = "list_jobs"
	OpGetJob          Op = "get_job"
	OpCreateJob       Op = "create_job"
	OpUpdateJob       Op = "update_job"
	OpListStages      Op = "list_stages"
	OpListCandidates  Op = "list_candidates"
	OpGetCandidate    Op = "get_candidate"
	OpAddCandidate    Op = "add_candidate"
	OpUpdateCandidate Op = "update_candidate"
	OpMoveCandidate   Op = "move_candidate"
	OpAddNote         Op = "add_note"
	OpListNotes       Op = "list_notes"
	OpRateCandidate   Op = "rate_candidate"
	OpListActivity    Op = "list_activity"

	OpCreateWebhook         Op = "create_webhook"
	OpListWebhooks          Op = "list_webhooks"
	OpGetWebhook            Op = "get_webhook"
	OpDeleteWebhook         Op = "delete_webhook"
	OpListWebhookDeliveries Op = "list_webhook_deliveries"

	OpSendMessage   Op = "send_message"
	OpListMessages  Op = "list_messages"
	OpGetMessage    Op = "get_message"
	OpCancelMessage Op = "cancel_message"

	OpScheduleInterview   Op = "schedule_interview"
	OpRescheduleInterview Op = "reschedule_interview"
	OpCancelInterview     Op = "cancel_interview"
	OpListInterviews      Op = "list_interviews"
	OpGetInterview        Op = "get_interview"
	OpGetInterviewInvite  Op = "get_interview_invite"
	OpGetAvailability     Op = "get_availability"

	OpExportPerson Op = "export_person"
	OpErasePerson  Op = "erase_person"
)

// Ref names the records an operation is about: its job and candidate ids,
// its interview's or its message's, or its webhook's, zero where the
// operation takes none.
type Ref struct {
	Job       int64
	Candidate int64
	Webhook   int64
	Message   int64
	Interview int64
}

// opTraits are what a face tells of an operation before calling it: the
// scope it needs and whether it changes data.
type opTraits struct {
	scope  Scope
	writes bool
}

var opTraitsOf = map[Op]opTraits{
	OpGetMe:           {},
	OpListJobs:        {scope: ScopeJobsRead},
	OpGetJob:          {scope: ScopeJobsRead},
	OpCreateJob:       {scope: ScopeJobsWrite, writes: true},
	OpUpdateJob:       {scope: ScopeJobsWrite, writes: true},
	OpListStages:      {scope: ScopeJobsRead},
	OpListCandidates:  {scope: ScopeCandidatesRead},
	OpGetCandidate:    {scope: ScopeCandidatesRead},
	OpAddCandidate:    {scope: ScopeCandidatesWrite, writes: true},
	OpUpdateCandidate: {scope: ScopeCandidatesWrite, writes: true},
	OpMoveCandidate:   {scope: ScopeCandidatesWrite, writes: true},
	OpAddNote:         {scope: ScopeCandidatesWrite, writes: true},
	OpListNotes:       {scope: ScopeCandidatesRead},
	OpRateCandidate:   {scope: ScopeCandidatesWrite, writes: true},
	OpListActivity:    {scope: ScopeActivityRead},

	OpCreateWebhook:         {scope: ScopeWebhooksWrite, writes: true},
	OpListWebhooks:          {scope: ScopeWebhooksWrite},
	OpGetWebhook:            {scope: ScopeWebhooksWrite},
	OpDeleteWebhook:         {scope: ScopeWebhooksWrite, writes: true},
	OpListWebhookDeliveries: {scope: ScopeWebhooksWrite},

	OpSendMessage:         {scope: ScopeMessagesSend, writes: true},
	OpListMessages:        {scope: ScopeCandidatesRead},
	OpGetMessage:          {scope: ScopeCandidatesRead},
	OpCancelMessage:       {scope: ScopeMessagesSend, writes: true},
	OpScheduleInterview:   {scope: ScopeSchedulingWrite, writes: true},
	OpRescheduleInterview: {scope: ScopeSchedulingWrite, writes: true},
	OpCancelInterview:     {scope: ScopeSchedulingWrite, writes: true},
	OpListInterviews:      {scope: ScopeCandidatesRead},
	OpGetInterview:        {scope: ScopeCandidatesRead},
	OpGetInterviewInvite:  {scope: ScopeCandidatesRead},
	OpGetAvailability:     {scope: ScopeSchedulingWrite},

	// An export is a read: it takes no key and is never stored.
	OpExportPerson: {scope: ScopePrivacyManage},
	OpErasePerson:  {scope: ScopePrivacyManage, writes: true},
}

// Scope is the scope a caller needs for op; "" when any caller may call it.
func (o Op) Scope() Scope { return opTraitsOf[o].scope }

// Writes reports whether op changes data.
func (o Op) Writes() bool { return opTraitsOf[o].writes }

// An input's Unread field holds what a face could not read of it (a
// malformed body, a parameter of the wrong type, a field the operation
// does not take), nil when it read everything: a validation_failed error
// whose details name the fields, or another error when the input could
// not be read at all (a body over the size limit). The operation answers
// it in its check order, where the input's own validation comes.

// wholeInput are the detail names of an input that was not read at all:
// an HTTP body, or a tool's arguments, that is not a JSON object.
var wholeInput = []string{"body", "arguments"}

// withUnread is the validation verdict on an input: what could not be read
// of it (unread), plus what valid, the verdict on the fields that were
// read, finds wrong with each of them. The verdict on the input as a whole
// ("body") is left out: it judged an input with fields missing. An input
// not read at all is only that.
func withUnread(unread, valid error) error {
	if unread == nil {
		return valid
	}
	bad := Fields(unread)
	if bad == nil {
		return unread
	}
	for _, name := range wholeInput {
		if _, ok := bad[name]; ok {
			return unread
		}
	}
	out := maps.Clone(bad)
	for name, msgs := range Fields(valid) {
		if _, ok := out[name]; !ok && name != "body" {
			out[name] = msgs
		}
	}
	return out.Err()
}

// Answer is the outcome of an operation called with an input a face could
// not wholly read (unread), v and err being what the call returned on what
// was read. An input type with an Unread field answers it in the call's
// check order itself; an operation that takes only ids (a read, whose call
// changes nothing) answers it here, once the call's own checks have passed.
// An id that could not be read (idUnread) names no record: the not_found of
// the record it was to name yields to unread.
func Answer[T any](unread error, idUnread bool, v T, err error) (T, error) {
	var zero T
	switch {
	case unread == nil:
		return v, err
	case err == nil, idUnread && ErrorCode(err) == ENotFound:
		return zero, unread
	}
	return zero, err
}
