package pipeline

import (
	"maps"
	"slices"
	"strings"
)

// Op names an operation of the Service. The name is the same everywhere:
// the MCP tool's (for the operations that are tools; the webhooks' and the
// invitation's are not), the OpenAPI document's operationId, and, in
// CamelCase, the Service method's; each has one REST route (Method, Path).
// Each operation is declared in its resource's file, beside its Service
// method (job.go: OpListJobs), with its row of opTable.
type Op string

// Ref names the records an operation is about: its job and candidate ids,
// its interview's, its message's or its document's, or its webhook's or
// its tag's, zero where the operation takes none. A new kind of record is
// a field here and a line of IDs.
type Ref struct {
	Job       int64
	Candidate int64
	Webhook   int64
	Message   int64
	Interview int64
	Document  int64
	Proposal  int64
	Tag       int64
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
		{"tag", &r.Tag},
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
	// creates, queues, empties: its success answers 201 Created (a record
	// made), 202 Accepted (a mail queued) or 204 No Content (a record
	// gone) instead of 200 OK.
	creates
	queues
	empties
)

// The HTTP methods of the REST requests.
const (
	mGet    = "GET"
	mPost   = "POST"
	mPatch  = "PATCH"
	mDelete = "DELETE"
)

// opRow is one operation, its traits, for a write that a proposal may
// hold how its stored input runs (nil for any other), for an operation
// agents call as an MCP tool its words (nil for the others: the
// webhooks', whose secrets are for programs, and the documents' bytes),
// and what the API's document says of it.
type opRow struct {
	op Op
	opTraits
	run  *opRun
	tool *Words
	doc  Doc
}

// Words are what an operation says of itself to a person or an agent:
// its title, and what it does, the records it answers with and what it
// may refuse, in a sentence or three (the MCP tool's title and
// description). Idempotent and Destructive are the tool's hints: a write
// that changes nothing when repeated with the same input, and one that
// deletes what cannot be brought back.
type Words struct {
	Title, Description      string
	Idempotent, Destructive bool
}

// Doc is what the API's document (pipelinehttp/openapi.yaml) says of an
// operation, beside what its traits make of it: the tag it is listed
// under, its summary and description (its tool's title and description
// when they are empty), and, where the document says more of them than
// their status does, its success answer (Success), its 403 (Forbidden)
// and its 422 (Invalid). Params say more of query parameters, by name,
// than the tool's arguments do. Head is what a download's HEAD request
// says of itself, beside its GET's tag and parameters. Markdown, written
// for a person reading the REST document, in its words (Scope: first).
type Doc struct {
	Tag                         string
	Summary, Description        string
	Success, Forbidden, Invalid string
	Params                      map[string]string
	Head                        *Doc
}

// The words of the 422s of several operations.
const (
	invalidPage        = "`validation_failed`: `page` is not an integer of at least 1."
	invalidPageOrQuery = "`validation_failed`: `page` is not an integer of at least 1, or a value is not validly percent-encoded; `details` names the parameter."
	// Of a write whose body takes only a reason.
	invalidReasonOnly = "`validation_failed`: the body is not a JSON object or has a field other than `reason`, the `reason` is blank, longer than 1,000 characters or not valid text, or the `Idempotency-Key` is invalid or was used for a different request."
)

// opTable is every operation, in the order of the API's document: each
// resource's rows, declared in its file. A new resource adds its rows
// here, in the place its operations take in the document.
var opTable = slices.Concat(meOps, jobOps, stageOps, candidateOps, noteOps, ratingOps, activityOps,
	webhookOps, interviewOps, messageOps, documentOps, privacyOps, proposalOps, tagOps)

// opTraitsOf and opRuns index opTable by operation. They are built in init
// because the table's runs call the Service, whose checks read the index.
var (
	opTraitsOf = map[Op]opTraits{}
	opRuns     = map[Op]*opRun{}
	opTools    = map[Op]*Words{}
	opDocs     = map[Op]Doc{}
)

func init() {
	for _, o := range opTable {
		opTraitsOf[o.op] = o.opTraits
		if o.run != nil {
			opRuns[o.op] = o.run
		}
		if o.tool != nil {
			opTools[o.op] = o.tool
		}
		opDocs[o.op] = o.doc
	}
}

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

// Tool is what op says of itself as an MCP tool; false when it is none.
func (o Op) Tool() (Words, bool) {
	w := opTools[o]
	if w == nil {
		return Words{}, false
	}
	return *w, true
}

// Doc is what the API's document says of op.
func (o Op) Doc() Doc { return opDocs[o] }

// Status is the HTTP status of op's success: 200, or 201 for a record
// made, 202 for a mail queued, 204 for a record gone (no body).
func (o Op) Status() int {
	switch f := opTraitsOf[o].flags; {
	case f&creates != 0:
		return 201
	case f&queues != 0:
		return 202
	case f&empties != 0:
		return 204
	}
	return 200
}

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

// inputVerdict is the validation verdict on an input: what could not be read
// of it (unread), plus what valid, the verdict on the fields that were
// read, finds wrong with each of them. The verdict on the input as a whole
// ("body") is left out: it judged an input with fields missing. An input
// not read at all is only that.
func inputVerdict(unread, valid error) error {
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

// ResolveUnread is the outcome of an operation called with an input a
// face could not wholly read (unread), v and err being what the call
// returned on what was read. An input type with an Unread field answers it in the call's
// check order itself; an operation that takes only ids (a read, whose call
// changes nothing) answers it here, once the call's own checks have passed.
// An id that could not be read (idUnread) names no record: the not_found of
// the record it was to name yields to unread.
func ResolveUnread[T any](unread error, idUnread bool, v T, err error) (T, error) {
	var zero T
	switch {
	case unread == nil:
		return v, err
	case err == nil, idUnread && ErrorCode(err) == ENotFound:
		return zero, unread
	}
	return zero, err
}
