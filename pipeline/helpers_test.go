package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	netmail "net/mail"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/doctext"
	"github.com/pipeline-dev/pipeline/pipeline/ical"
	"github.com/pipeline-dev/pipeline/pipeline/mail"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// hookSecretKey keeps the secrets of the webhooks these tests create.
var hookSecretKey = func() *pipeline.SecretKey {
	k, err := pipeline.NewSecretKey(bytes.Repeat([]byte{9}, pipeline.SecretKeyLength))
	if err != nil {
		panic(err)
	}
	return k
}()

// hookOptions make a Service that may create webhooks: it has a secret key
// and takes any URL, without resolving its host against public addresses.
// It has mail configured, and emails invitations to interviews.
func hookOptions(extra ...pipeline.Option) []pipeline.Option {
	return append([]pipeline.Option{
		pipeline.WithSecretKey(hookSecretKey),
		pipeline.WithWebhookPolicy(pipeline.WebhookPolicy{AllowHTTP: true, AllowPrivate: true}),
		pipeline.WithMail(testFrom, logMailer),
		pipeline.WithInvitations(ical.Render),
	}, extra...)
}

// testFrom is the From address of the mail these tests send.
var testFrom = &netmail.Address{Name: "Acme Hiring", Address: "jobs@acme.example"}

// logMailer takes every mail and writes it to no log: the Services of
// these tests have mail configured, and only the delivery tests send it.
var logMailer = func() pipeline.Mailer {
	m, err := mail.New("log:", mail.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	return m
}()

// eachWorld runs fn as subtest name, in parallel with the other parallel
// tests, once per database, each time on a freshly seeded world whose
// Service may create webhooks.
func eachWorld(t *testing.T, name string, fn func(t *testing.T, w world)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		t.Parallel()
		storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
			fn(t, storetest.Seeded(t, db, hookOptions()...))
		})
	})
}

// actAs returns a context carrying a caller for the fixture user key with
// exactly scopes, made by the Operator.
func actAs(t *testing.T, w world, user string, scopes ...pipeline.Scope) context.Context {
	t.Helper()
	c, err := w.Op.ActAs(context.Background(), w.User(user), scopes)
	require.NoError(t, err)
	return pipeline.NewContext(context.Background(), c.WithIP(storetest.IP))
}

// allScopesBut is every scope except s.
func allScopesBut(s pipeline.Scope) []pipeline.Scope {
	return slices.DeleteFunc(slices.Clone(pipeline.AllScopes), func(o pipeline.Scope) bool { return o == s })
}

// changesOf decodes the changes of an activity entry.
func changesOf(t *testing.T, a pipeline.Activity) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(a.Changes, &m))
	return m
}

// actionsOf lists the actions of entries, in order.
func actionsOf(entries []pipeline.Activity) []string {
	out := make([]string, 0, len(entries))
	for _, a := range entries {
		out = append(out, a.Action)
	}
	return out
}

// withoutTokens is entries without those of tokens (decisions.md §7),
// which a test's setup makes with its callers.
func withoutTokens(entries []pipeline.Activity) []pipeline.Activity {
	out := make([]pipeline.Activity, 0, len(entries))
	for _, a := range entries {
		if a.SubjectType != pipeline.SubjectToken {
			out = append(out, a)
		}
	}
	return out
}

// feedActions lists the actions of feed entries, in order.
func feedActions(entries []pipeline.FeedEntry) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Action)
	}
	return out
}

// newHook creates a webhook of the current team of the fixture user as that
// user, with every scope.
func newHook(t *testing.T, w world, user, url string, events ...string) pipeline.CreatedWebhook {
	t.Helper()
	res, err := w.Svc.CreateWebhook(w.As(t, user), pipeline.NewWebhook{URL: url, Events: events})
	require.NoError(t, err)
	return res.Value
}

// probe is what the tables of operations call an operation with: the
// records it is about, a stage for a move, its idempotency key and its
// reason (writes only), and whether its input is valid.
type probe struct {
	ref    pipeline.Ref
	stage  int64
	user   int64 // a member of the caller's team, for availability
	idem   *pipeline.Idempotency
	reason *string // the writes' reason
	valid  bool
	failed int64 // a failed message to the candidate, which a retry takes
}

// operation calls one operation of the Service as the caller on ctx.
type operation struct {
	op   pipeline.Op
	call func(ctx context.Context, svc *pipeline.Service, p probe) error
}

// pick returns valid when the probe's input is to be valid, else invalid.
func pick[T any](p probe, valid, invalid T) T {
	if p.valid {
		return valid
	}
	return invalid
}

// operations are every operation of the Service, each called with the
// probe's records and an input valid or not, each resource's probes
// declared in its test file (TestOperations_Complete holds them to
// pipeline.Ops).
var operations = slices.Concat(meProbes, jobProbes, stageProbes, candidateProbes, noteProbes, ratingProbes,
	activityProbes, webhookProbes, messageProbes, interviewProbes, documentProbes, privacyProbes, proposalProbes, tagProbes)

// reachable is a probe at records olivia reaches: the backend job, its
// candidate ada, a stage of that job for a move, the webhook hook, a
// queued message to ada made for the probe, an interview of ada that
// olivia schedules for it, and a tag of the team made for it.
func reachable(t *testing.T, w world, hook int64) probe {
	t.Helper()
	job, ada := w.Job("backend"), w.Res.Candidates["ada"]
	iv, err := w.Svc.ScheduleInterview(w.As(t, "olivia"), job, ada, probeInterview(w.User("olivia")))
	require.NoError(t, err)
	return probe{
		ref: pipeline.Ref{Job: job, Candidate: ada, Webhook: hook, Message: probeMessage(w), Interview: iv.Value.ID,
			Document: probeDocument(t, w), Proposal: probeProposal(t, w), Tag: newTag(t, w, newTagName()).ID},
		stage:  w.Res.Stages["backend"]["Interview"],
		user:   w.User("olivia"),
		valid:  true,
		failed: failedMessage(t, w),
	}
}

// failedMessage is a message to ada that failed, for a retry.
func failedMessage(t *testing.T, w world) int64 {
	t.Helper()
	id := probeMessage(w)
	require.NoError(t, w.DB.Write(context.Background(), func(tx pipeline.Tx) error {
		_, err := tx.Messages().RecordAttempt(context.Background(), pipeline.MessageAttempt{MessageID: id, Attempt: 1,
			Status: pipeline.MessageFailed, Error: "550 no such user", At: time.Now().UTC()})
		return err
	}))
	return id
}

// nowhere is a probe at records nobody reaches, with an invalid input.
func nowhere() probe {
	return probe{ref: pipeline.Ref{Job: missing, Candidate: missing, Webhook: missing, Message: missing, Interview: missing,
		Document: missing, Proposal: missing, Tag: missing},
		stage: missing, user: missing}
}

// probeMessage queues a message from olivia to ada on backend, and returns
// its id.
func probeMessage(w world) int64 {
	ctx := context.Background()
	c, err := w.Op.ActAs(ctx, w.User("olivia"), []pipeline.Scope{pipeline.ScopeMessagesSend})
	if err != nil {
		panic(err)
	}
	res, err := w.Svc.SendMessage(pipeline.NewContext(ctx, c), w.Job("backend"), w.Res.Candidates["ada"],
		pipeline.NewMessage{Subject: "Probe", Body: "Hello."})
	if err != nil {
		panic(err)
	}
	return res.Value.ID
}

// fieldNames are the fields a validation error names, sorted.
func fieldNames(err error) []string {
	names := []string{}
	for f := range pipeline.Fields(err) {
		names = append(names, f)
	}
	slices.Sort(names)
	return names
}

// acmeJobLimit is the plan job limit of the fixture team acme, which has
// three jobs that are not closed (backend, frontend, design).
const acmeJobLimit, acmeActiveJobs = 20, 3

// fillToLimit creates open jobs on acme until its plan limit is reached,
// active being how many of its jobs are not closed now.
func fillToLimit(t *testing.T, w world, active int) {
	t.Helper()
	for i := range acmeJobLimit - active {
		_, err := w.Svc.CreateJob(w.As(t, "olivia"), pipeline.NewJob{Title: "Filling " + strconv.Itoa(i)})
		require.NoError(t, err)
	}
}

// eachClockedWorld is eachWorld on a world whose Service reads the time
// from the clock fn is given, which starts at the present and moves only
// when the test sets it.
func eachClockedWorld(t *testing.T, name string, fn func(t *testing.T, w world, clock *time.Time)) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		t.Parallel()
		storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
			clock := time.Now().UTC().Truncate(time.Second)
			opt := pipeline.WithClock(pipeline.ClockFunc(func() time.Time { return clock }))
			fn(t, storetest.Seeded(t, db, hookOptions(opt)...), &clock)
		})
	})
}

// probeReason is the probe's reason, or, for a write that needs one, a
// reason that is valid when the probe's input is.
func probeReason(p probe) pipeline.Reasoned {
	if p.reason != nil {
		return pipeline.Reasoned{Reason: p.reason}
	}
	return pipeline.Because(pick(p, "Probe", " "))
}

// probeDocument is a text document of ada's whose text is read.
func probeDocument(t *testing.T, w world) int64 {
	t.Helper()
	ctx := context.Background()
	c, err := w.Op.ActAs(ctx, w.User("olivia"), []pipeline.Scope{pipeline.ScopeCandidatesWrite})
	require.NoError(t, err)
	d, err := w.Svc.AddDocument(pipeline.NewContext(ctx, c), w.Job("backend"), w.Res.Candidates["ada"],
		pipeline.NewDocument{Filename: "cv.txt", Content: []byte("Ada Lovelace, analyst.")})
	require.NoError(t, err)
	require.NoError(t, pipeline.NewTexts(w.DB, parser{}).Extract(ctx, d.Value.ID))
	return d.Value.ID
}

// parser reads documents' text in this process, with the parsers the
// server's child runs.
type parser struct{}

func (parser) Extract(_ context.Context, contentType string, content []byte) (string, bool, error) {
	return doctext.Parse(contentType, content, pipeline.MaxDocumentText)
}

// probeProposal is a pending proposal of a note on ada, made by an agent
// of mia's whose add_note waits for approval. Deciding it needs
// proposals:review and the note's own scope (probeProposalScope); mia is
// not who decides it.
func probeProposal(t *testing.T, w world) int64 {
	t.Helper()
	c := heldCaller(t, w, []pipeline.Scope{probeProposalScope}, pipeline.OpAddNote)
	ctx := pipeline.NewContext(context.Background(), c)
	_, err := w.Svc.AddNote(ctx, w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewNote{Content: "Probe proposal."})
	var p *pipeline.Proposed
	require.ErrorAs(t, err, &p)
	return p.Proposal.ID
}

// probeProposalScope is the scope of the probe proposal's operation.
const probeProposalScope = pipeline.ScopeCandidatesWrite
