package pipelinestore

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// The store's SQL
//
// Every statement the store runs by name is written once, one file per
// aggregate: in sql/common when both dialects run it alike, in the
// dialect's own folder where they differ. sql/common/candidate.sql holds
// what both run for candidates, sql/postgres/candidate.sql what PostgreSQL
// alone runs or runs its own way, sql/sqlite/candidate.sql the same for
// SQLite. In a file, a statement is a line "-- name: Name" and the text
// after it, up to the next name; the other lines that begin with "--" are
// comments, dropped when the file is read. A statement's parameters are
// numbered $1, $2, …, which PostgreSQL reads natively and SQLite as its
// $NNN parameters, bound to the arguments by number.
//
// The Go code reads a statement as a field of statements: the dialect's
// set is the pool's (pool.q), filled from sql/common and the dialect's
// folder when the package loads. An aggregate's statements may be fields of
// a struct of their own, declared beside its store and embedded in
// statements, so that a new statement of the aggregate is written in its
// SQL file and its store's Go file alone. A field tagged sql:"postgres" or
// sql:"sqlite" is written in that dialect's folder alone, because only that
// dialect's code runs it; every other field is written either in
// sql/common or in both dialects' folders, never in sql/common and a
// dialect's folder. Go builds only the candidate lists, whose filters and
// orders vary per request (candidateListQuery), and the reads of a
// candidate or an intake, whose forms vary by what a write asks for
// besides (candidateRead, intakeRead).
//
// A statement that reads for a viewer writes the visibility rule as the
// placeholder {{visible $n}}, $n the viewer's parameter, on the job
// aliased j; the file is read with the rule's text (visible) in its
// place, so what runs is plain SQL, the same text as if it were pasted.
// Any other {{ is refused when the package loads.
//
// A read that a write transaction also runs to lock what it reads has a
// second form, named with "Locked". Only PostgreSQL locks: SQLite's write
// transactions are serialized from their first statement (BEGIN IMMEDIATE
// on the one writer connection), so its Locked forms are the plain reads.
// PostgreSQL's take the record's transaction-scoped advisory lock
// (pipeline_lock_record) and then the row lock FOR NO KEY UPDATE. Writers
// of one record queue on the advisory lock, which takes no transaction
// id, so the ids of a record's writes follow the order in which they took
// effect and the feed, ordered by transaction id, lists them in that
// order; FOR NO KEY UPDATE excludes every other writer of the row, but
// not the key-share locks of foreign-key checks, so inserting a row that
// references it does not wait (no key ever changes). A write that is to
// cancel a candidate's interviews (a status leaving active, an erasure)
// also takes their record locks, after the candidate's and before any row
// lock (pipeline_lock_candidates), so that a change of one that took
// effect before it has the smaller transaction id as well.

//go:embed sql
var sqlFiles embed.FS

// statements are the store's named statements in one dialect (see above).
type statements struct {
	tagStatements // tag.go

	// activity.sql
	InsertActivity    string
	SelectingWebhooks string `sql:"sqlite"`

	// blob.sql
	DocumentsHeld string

	// candidate.sql
	EmailTaken            string
	InsertCandidate       string
	InsertCandidateWithID string `sql:"postgres"`
	JobSize               string
	SetCandidateStage     string
	UpdateCandidate       string

	// counts.sql
	FoldStageCounts string `sql:"postgres"`

	// delivery.sql
	DeliveriesCount string
	DeliveriesPage  string
	DeliveryWebhook string
	PurgeDeliveries string
	RecordDelivery  string

	// document.sql
	DeleteDocument          string
	Document                string
	DocumentByID            string
	DocumentContent         string
	DocumentForDelete       string
	DocumentForDeleteLocked string
	DocumentText            string
	DocumentsCount          string
	DocumentsPage           string
	DocumentsWithText       string
	InsertDocument          string
	InsertDocumentContent   string
	SetDocumentText         string

	// feed.sql
	FeedBound       string
	FeedEnd         string `sql:"postgres"`
	FeedEntry       string
	FeedPage        string
	FeedPageActions string
	FeedStart       string

	// idempotency.sql
	ClaimKey              string `sql:"postgres"`
	IdempotencyRecord     string
	PurgeIdempotency      string
	SaveIdempotencyRecord string

	// interview.sql
	Busy                            string
	CountInterviews                 string
	DeleteInterviewers              string
	InsertInterview                 string
	InsertInterviewDrawn            string `sql:"postgres"`
	InsertInterviewWithInterviewers string `sql:"postgres"`
	InsertInterviewers              string
	Interview                       string
	InterviewLocked                 string `sql:"sqlite"`
	InterviewLockedWithInterviewers string `sql:"postgres"`
	Interviewers                    string
	Interviews                      string
	LockCandidateInterviews         string `sql:"postgres"`
	ScheduledInterviews             string
	SetInterviewCalendar            string
	TeamUsers                       string
	UpdateInterview                 string
	UpdateInterviewWithInterviewers string `sql:"postgres"`

	// invitation.sql
	InsertInvitationMail    string `sql:"sqlite"`
	InsertInvitationMails   string `sql:"postgres"`
	InvitationMailAt        string
	InvitationMailByID      string
	RecordInvitationAttempt string

	// job.sql
	CountActiveJobs string
	Job             string
	JobLocked       string
	JobsCount       string
	JobsCountSearch string
	JobsPage        string
	JobsPageSearch  string
	LockTeam        string
	LockTeamLocked  string
	Stages          string
	UpdateJob       string

	// message.sql
	CancelMessage          string
	InsertMessage          string
	InsertMessageWithID    string `sql:"postgres"`
	Message                string
	MessageByID            string
	MessageForUpdate       string
	MessageForUpdateLocked string
	MessagesCount          string
	MessagesPage           string
	RecordMessageAttempt   string
	RequeueMessage         string

	// note.sql
	InsertNote string
	NotesCount string
	NotesPage  string

	// privacy.sql
	CandidateActivity      string
	CandidateDocuments     string
	CandidateEntries       string
	EraseCandidate         string
	EraseEntryReasons      string
	EraseInvitationJobs    string
	EraseInvitations       string
	EraseMessageJobs       string
	EraseMessages          string
	EraseNotes             string
	EraseRatings           string
	IdempotencyRecords     string
	Person                 string
	PersonForErasure       string
	PersonForErasureLocked string
	Ratings                string
	SetActivityChanges     string
	SetIdempotencyResul    string
	ScrubErased            string

	// proposal.sql
	CandidateProposals    string
	CloseProposal         string
	CountPendingProposals string
	DecideProposal        string
	EraseProposal         string
	EraseProposalReasons  string
	InsertProposal        string
	PendingProposal       string
	Proposal              string
	ProposalsAbout        string
	ProposalsPage         string
	ProposalsToClose      string
	SetProposalResult     string
	TeamProposals         string

	// ratelimit.sql
	SweepRateLimits string `sql:"postgres"`
	Take            string `sql:"postgres"`

	// rating.sql
	Rating     string
	SaveRating string

	// retention.sql
	ExpiredCandidates       string
	ExpiredCandidatesLocked string
	SetRetention            string

	// secretkey.sql
	CreateSecretKey string
	SecretKey       string

	// session.sql
	DeleteSession   string
	InsertTokenForm string
	SessionByHash   string
	SetSessionTeam  string
	SignInLink      string
	TokenFormSeen   string
	TouchSession    string
	UseSignInLink   string
	UserTeams       string
	UserTokens      string

	// team.sql
	UserByEmail  string
	UserWithTeam string

	// token.sql
	InsertToken      string
	RevokeToken      string
	SetTokenApproval string
	TokenLocked      string
	TeamTokens       string
	TokenByHash      string
	TokenByID        string
	TouchToken       string

	// webhook.sql
	DeleteWebhook string
	InsertWebhook string
	MemberRole    string
	Webhook       string
	WebhookLocked string
	WebhooksCount string
	WebhooksPage  string
}

var (
	postgresSQL = mustLoadStatements(DialectPostgres)
	sqliteSQL   = mustLoadStatements(DialectSQLite)
)

func mustLoadStatements(dialect string) *statements {
	s, err := loadStatements(sqlFiles, dialect)
	if err != nil {
		panic(err)
	}
	return s
}

// commonDir is the folder of the statements both dialects run alike.
const commonDir = "common"

// loadStatements reads the statements of dialect dir from fsys: those of
// sql/common and those of sql/dir. Every field the dialect runs must be
// written exactly once, in one of the two, and nothing else; a field one
// dialect alone runs is written in that dialect's folder.
func loadStatements(fsys fs.FS, dir string) (*statements, error) {
	texts, err := readStatements(fsys, commonDir)
	if err != nil {
		return nil, err
	}
	own, err := readStatements(fsys, dir)
	if err != nil {
		return nil, err
	}
	for name, st := range own {
		if c, ok := texts[name]; ok {
			return nil, fmt.Errorf("pipelinestore: %s: %s is written in %s as well", st.file, name, c.file)
		}
		texts[name] = st
	}
	s := &statements{}
	v := reflect.ValueOf(s).Elem()
	for _, f := range statementFields() {
		only := f.Tag.Get("sql")
		st, ok := texts[f.Name]
		delete(texts, f.Name)
		switch {
		case only != "" && ok && (only != dir || st.dir == commonDir):
			return nil, fmt.Errorf("pipelinestore: %s: %s is run on %s alone", st.file, f.Name, only)
		case (only == "" || only == dir) && !ok:
			return nil, fmt.Errorf("pipelinestore: sql/%s: no statement %s", dir, f.Name)
		}
		v.FieldByIndex(f.Index).SetString(st.text)
	}
	for name, st := range texts {
		return nil, fmt.Errorf("pipelinestore: %s: %s is no statement of the store", st.file, name)
	}
	return s, nil
}

// statement is a statement's text and the file it is written in.
type statement struct {
	text, dir, file string
}

// readStatements reads the statements of the folder sql/dir of fsys by
// name, each written once.
func readStatements(fsys fs.FS, dir string) (map[string]statement, error) {
	texts := map[string]statement{}
	files, err := fs.Glob(fsys, path.Join("sql", dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	for _, file := range files {
		b, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		if err := parseStatements(dir, file, string(b), texts); err != nil {
			return nil, err
		}
	}
	return texts, nil
}

// parseStatements adds the statements of a file of the folder dir to
// texts by name.
func parseStatements(dir, file, src string, texts map[string]statement) error {
	var name string
	var body strings.Builder
	end := func() error {
		if name == "" {
			return nil
		}
		text := strings.TrimSuffix(strings.TrimSpace(body.String()), ";")
		if text == "" {
			return fmt.Errorf("pipelinestore: %s: %s is empty", file, name)
		}
		text, err := expand(text)
		if err != nil {
			return fmt.Errorf("pipelinestore: %s: %s: %w", file, name, err)
		}
		if first, dup := texts[name]; dup {
			return fmt.Errorf("pipelinestore: %s: %s is written twice (first in %s)", file, name, first.file)
		}
		texts[name] = statement{text: text, dir: dir, file: file}
		body.Reset()
		return nil
	}
	for line := range strings.Lines(src) {
		trimmed := strings.TrimSpace(line)
		if n, ok := strings.CutPrefix(trimmed, "-- name:"); ok {
			if err := end(); err != nil {
				return err
			}
			name = strings.TrimSpace(n)
			continue
		}
		if strings.HasPrefix(trimmed, "--") || name == "" && trimmed == "" {
			continue
		}
		if name == "" {
			return fmt.Errorf("pipelinestore: %s: SQL before the first name", file)
		}
		body.WriteString(line)
	}
	return end()
}

// visiblePlaceholder is where a statement includes the visibility rule
// for the viewer of a parameter (see above).
var visiblePlaceholder = regexp.MustCompile(`\{\{visible \$([1-9][0-9]*)\}\}`)

// expand is a statement's text with its placeholders replaced by what
// they stand for; a {{ that is no placeholder is an error.
func expand(text string) (string, error) {
	text = visiblePlaceholder.ReplaceAllStringFunc(text, func(p string) string {
		n, _ := strconv.Atoi(visiblePlaceholder.FindStringSubmatch(p)[1])
		return visible(n)
	})
	if i := strings.Index(text, "{{"); i >= 0 {
		bad := text[i:]
		if j := strings.Index(bad, "}}"); j >= 0 {
			bad = bad[:j+2]
		}
		return "", fmt.Errorf("%s is no placeholder (the one there is: {{visible $n}})", bad)
	}
	return text, nil
}

// statementFields are the fields of statements that hold a statement:
// its own and those of the aggregates' structs embedded in it.
func statementFields() []reflect.StructField {
	var out []reflect.StructField
	for _, f := range reflect.VisibleFields(reflect.TypeFor[statements]()) {
		if f.Type.Kind() == reflect.String {
			out = append(out, f)
		}
	}
	return out
}

// texts is every statement of s, for preparing them all.
func (s *statements) texts() []string {
	v := reflect.ValueOf(s).Elem()
	fields := statementFields()
	texts := make([]string, 0, len(fields))
	for _, f := range fields {
		if t := v.FieldByIndex(f.Index).String(); t != "" {
			texts = append(texts, t)
		}
	}
	return texts
}
