package pipeline

import (
	"maps"
	"strings"
)

// Op names an operation of the Service. The name is the same everywhere:
// the MCP tool's (for the operations that are tools; the webhooks' and the
// invitation's are not), the OpenAPI document's operationId, and, in
// CamelCase, the Service method's; each has one REST route (Method, Path).
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
	OpRetryMessage  Op = "retry_message"

	OpScheduleInterview   Op = "schedule_interview"
	OpRescheduleInterview Op = "reschedule_interview"
	OpCancelInterview     Op = "cancel_interview"
	OpListInterviews      Op = "list_interviews"
	OpGetInterview        Op = "get_interview"
	OpGetInterviewInvite  Op = "get_interview_invite"
	OpGetAvailability     Op = "get_availability"

	OpAddDocument        Op = "add_document"
	OpListDocuments      Op = "list_documents"
	OpGetDocument        Op = "get_document"
	OpGetDocumentContent Op = "get_document_content"
	OpGetDocumentText    Op = "get_document_text"
	OpRemoveDocument     Op = "remove_document"

	OpExportPerson Op = "export_person"
	OpErasePerson  Op = "erase_person"

	OpListProposals   Op = "list_proposals"
	OpGetProposal     Op = "get_proposal"
	OpApproveProposal Op = "approve_proposal"
	OpRejectProposal  Op = "reject_proposal"
)

// Ref names the records an operation is about: its job and candidate ids,
// its interview's, its message's or its document's, or its webhook's, zero where the
// operation takes none. A new kind of record is a field here and a line
// of IDs.
type Ref struct {
	Job       int64
	Candidate int64
	Webhook   int64
	Message   int64
	Interview int64
	Document  int64
	Proposal  int64
}

// RefID is one record of a Ref: the name of its path parameter ("job")
// and its id.
type RefID struct {
	Name string
	ID   *int64
}

// IDs are the records r can name, each under the name of its path
// parameter, job and candidate first.
func (r *Ref) IDs() []RefID {
	return []RefID{
		{"job", &r.Job},
		{"candidate", &r.Candidate},
		{"webhook", &r.Webhook},
		{"message", &r.Message},
		{"interview", &r.Interview},
		{"document", &r.Document},
		{"proposal", &r.Proposal},
	}
}

// ID is where r keeps the id of the record whose path parameter is name;
// nil when no kind of record has that name.
func (r *Ref) ID(name string) *int64 {
	for _, id := range r.IDs() {
		if id.Name == name {
			return id.ID
		}
	}
	return nil
}

// opTraits are what every face tells of an operation: the scope it needs;
// the REST request that stands for it (its method and its path below
// /api/v1, path parameters as {job}), which a proposal records whichever
// face it came from; and facts its request does not tell (what it may
// refuse beyond what those imply, which the API document lists; a read
// sent as a POST).
type opTraits struct {
	scope  Scope
	method string
	path   string
	flags  opFlag
}

// opFlag is a set of facts about an operation.
type opFlag uint8

const (
	// forbids: a business rule may refuse the caller (forbidden: a plan's
	// limit, a closed job, a role).
	forbids opFlag = 1 << iota
	// conflicts: the operation may clash with other records (conflict),
	// beyond the key in flight that any write may meet.
	conflicts
	// readsByPost: a read whose input travels in a POST's body, so that
	// it stays out of URLs and their logs (a person's email); it takes no
	// key and changes nothing.
	readsByPost
	// neverHeld: a write no approval policy holds (a file changes no
	// decision about a person), and the decisions on proposals.
	neverHeld
)

// The paths of one record, below /api/v1.
const (
	jobPath       = "/jobs/{job}"
	candidatePath = jobPath + "/candidates/{candidate}"
	webhookPath   = "/webhooks/{webhook}"
	messagePath   = candidatePath + "/messages/{message}"
	interviewPath = candidatePath + "/interviews/{interview}"
	proposalPath  = "/proposals/{proposal}"
	documentPath  = candidatePath + "/documents/{document}"
)

// The HTTP methods of the REST requests.
const (
	mGet    = "GET"
	mPost   = "POST"
	mPatch  = "PATCH"
	mDelete = "DELETE"
)

// opTable is every operation, in the order of the API's document.
var opTable = []struct {
	op Op
	opTraits
}{
	{OpGetMe, opTraits{"", mGet, "/me", 0}},
	{OpListJobs, opTraits{ScopeJobsRead, mGet, "/jobs", 0}},
	{OpCreateJob, opTraits{ScopeJobsWrite, mPost, "/jobs", forbids}},
	{OpGetJob, opTraits{ScopeJobsRead, mGet, jobPath, 0}},
	{OpUpdateJob, opTraits{ScopeJobsWrite, mPatch, jobPath, forbids}},
	{OpListStages, opTraits{ScopeJobsRead, mGet, jobPath + "/stages", 0}},
	{OpListCandidates, opTraits{ScopeCandidatesRead, mGet, jobPath + "/candidates", 0}},
	{OpAddCandidate, opTraits{ScopeCandidatesWrite, mPost, jobPath + "/candidates", forbids}},
	{OpGetCandidate, opTraits{ScopeCandidatesRead, mGet, candidatePath, 0}},
	{OpUpdateCandidate, opTraits{ScopeCandidatesWrite, mPatch, candidatePath, 0}},
	{OpMoveCandidate, opTraits{ScopeCandidatesWrite, mPost, candidatePath + "/stage", 0}},
	{OpAddNote, opTraits{ScopeCandidatesWrite, mPost, candidatePath + "/notes", 0}},
	{OpListNotes, opTraits{ScopeCandidatesRead, mGet, candidatePath + "/notes", 0}},
	{OpRateCandidate, opTraits{ScopeCandidatesWrite, mPost, candidatePath + "/rating", 0}},
	{OpListActivity, opTraits{ScopeActivityRead, mGet, "/activity", 0}},

	{OpCreateWebhook, opTraits{ScopeWebhooksWrite, mPost, "/webhooks", forbids}},
	{OpListWebhooks, opTraits{ScopeWebhooksWrite, mGet, "/webhooks", forbids}},
	{OpGetWebhook, opTraits{ScopeWebhooksWrite, mGet, webhookPath, forbids}},
	{OpDeleteWebhook, opTraits{ScopeWebhooksWrite, mDelete, webhookPath, forbids}},
	{OpListWebhookDeliveries, opTraits{ScopeWebhooksWrite, mGet, webhookPath + "/deliveries", forbids}},

	{OpScheduleInterview, opTraits{ScopeSchedulingWrite, mPost, candidatePath + "/interviews", forbids | conflicts}},
	{OpListInterviews, opTraits{ScopeCandidatesRead, mGet, candidatePath + "/interviews", 0}},
	{OpGetInterview, opTraits{ScopeCandidatesRead, mGet, interviewPath, 0}},
	{OpRescheduleInterview, opTraits{ScopeSchedulingWrite, mPatch, interviewPath, forbids | conflicts}},
	{OpCancelInterview, opTraits{ScopeSchedulingWrite, mPost, interviewPath + "/cancel", 0}},
	{OpGetInterviewInvite, opTraits{ScopeCandidatesRead, mGet, interviewPath + "/invite.ics", 0}},
	{OpGetAvailability, opTraits{ScopeSchedulingWrite, mGet, "/availability", 0}},

	{OpSendMessage, opTraits{ScopeMessagesSend, mPost, candidatePath + "/messages", forbids}},
	{OpListMessages, opTraits{ScopeCandidatesRead, mGet, candidatePath + "/messages", 0}},
	{OpGetMessage, opTraits{ScopeCandidatesRead, mGet, messagePath, 0}},
	{OpCancelMessage, opTraits{ScopeMessagesSend, mPost, messagePath + "/cancel", forbids}},
	{OpRetryMessage, opTraits{ScopeMessagesSend, mPost, messagePath + "/retry", forbids}},

	{OpAddDocument, opTraits{ScopeCandidatesWrite, mPost, candidatePath + "/documents", neverHeld}},
	{OpListDocuments, opTraits{ScopeCandidatesRead, mGet, candidatePath + "/documents", 0}},
	{OpGetDocument, opTraits{ScopeCandidatesRead, mGet, documentPath, 0}},
	{OpGetDocumentContent, opTraits{ScopeCandidatesRead, mGet, documentPath + "/content", 0}},
	{OpGetDocumentText, opTraits{ScopeCandidatesRead, mGet, documentPath + "/text", 0}},
	{OpRemoveDocument, opTraits{ScopeCandidatesWrite, mDelete, documentPath, 0}},

	{OpExportPerson, opTraits{ScopePrivacyManage, mPost, "/privacy/exports", forbids | readsByPost}},
	{OpErasePerson, opTraits{ScopePrivacyManage, mPost, "/privacy/erasures", forbids}},

	// Reading needs no scope: what a token sees depends on whether it
	// made the proposal or carries proposals:review (see Proposal).
	{OpListProposals, opTraits{"", mGet, "/proposals", 0}},
	{OpGetProposal, opTraits{"", mGet, proposalPath, 0}},
	{OpApproveProposal, opTraits{ScopeProposalsReview, mPost, proposalPath + "/approve", forbids | conflicts | neverHeld}},
	{OpRejectProposal, opTraits{ScopeProposalsReview, mPost, proposalPath + "/reject", forbids | conflicts | neverHeld}},
}

var opTraitsOf = func() map[Op]opTraits {
	m := make(map[Op]opTraits, len(opTable))
	for _, o := range opTable {
		m[o.op] = o.opTraits
	}
	return m
}()

// Ops are every operation of the Service, in the order of the API's
// document.
func Ops() []Op {
	out := make([]Op, len(opTable))
	for i, o := range opTable {
		out[i] = o.op
	}
	return out
}

// Scope is the scope a caller needs for op; "" when any caller may call it.
func (o Op) Scope() Scope { return opTraitsOf[o].scope }

// Writes reports whether op changes data.
func (o Op) Writes() bool {
	t := opTraitsOf[o]
	return t.method != mGet && t.flags&readsByPost == 0
}

// Proposable reports whether an approval policy may hold op: every write
// but an upload and a decision on a proposal.
func (o Op) Proposable() bool { return o.Writes() && opTraitsOf[o].flags&neverHeld == 0 }

// Decides reports whether op decides a proposal, which needs the proposed
// write's own scope besides op's.
func (o Op) Decides() bool { return o == OpApproveProposal || o == OpRejectProposal }

// Forbids reports whether op may refuse a caller its scope allows by a
// business rule: EForbidden (a plan's limit, a closed job, a role).
func (o Op) Forbids() bool { return opTraitsOf[o].flags&forbids != 0 }

// Conflicts reports whether op may answer EConflict for a clash with other
// records, beyond the key in flight that any write may meet.
func (o Op) Conflicts() bool { return opTraitsOf[o].flags&conflicts != 0 }

// Method is the HTTP method of the REST request that stands for op.
func (o Op) Method() string { return opTraitsOf[o].method }

// Path is the path of the REST request that stands for op, below /api/v1,
// its path parameters named in braces ("/jobs/{job}").
func (o Op) Path() string { return opTraitsOf[o].path }

// Records are the kinds of record op's path names, in its order ("job",
// "candidate"), as its Ref holds them; none for an operation that names no
// record.
func (o Op) Records() []string {
	var out []string
	for rest := o.Path(); ; {
		_, after, ok := strings.Cut(rest, "{")
		if !ok {
			return out
		}
		name, tail, _ := strings.Cut(after, "}")
		out = append(out, name)
		rest = tail
	}
}

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

// checkable reports whether a check that consults storage may judge field:
// the field was read (unread names neither it nor the whole input) and
// passed its own checks (f), so that one answer names every offending
// field, the stored state's verdicts included.
func checkable(unread error, f FieldErrors, field string) bool {
	if _, bad := f[field]; bad {
		return false
	}
	if unread == nil {
		return true
	}
	bad := Fields(unread)
	if bad == nil {
		return false
	}
	for _, name := range append([]string{field}, wholeInput...) {
		if _, ok := bad[name]; ok {
			return false
		}
	}
	return true
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
