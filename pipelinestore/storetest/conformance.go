package storetest

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Conformance checks that store keeps the rules the pipeline.Store
// contract states (see the godoc of pipeline.Store and pipeline.Tx):
// visibility, the message and invitation state machine, no double
// booking, the uniqueness of emails and the exact counts, one subtest per
// family. store must be migrated and empty; Conformance seeds World into
// it, and each family works on records of its own, so that any one runs
// alone. The cases use the store only through the contract, so that any
// implementation can be held to it.
func Conformance(t *testing.T, store pipeline.Store) {
	c := conf{store: store, res: Seed(t, pipeline.NewOperator(store))}
	t.Run("visibility", c.visibility)
	t.Run("message state machine", c.messages)
	t.Run("invitation state machine", c.invitations)
	t.Run("no double booking", c.booking)
	t.Run("email uniqueness", c.emails)
	t.Run("exact counts", c.counts)
}

// conf is the seeded store the cases share.
type conf struct {
	store pipeline.Store
	res   pipeline.SeedResult
}

// errRollback ends a write whose changes must not stay.
var errRollback = errors.New("storetest: rolled back")

var bg = context.Background()

func (c conf) user(key string) int64 { return c.res.Users[key] }
func (c conf) job(key string) int64  { return c.res.Jobs[key] }
func (c conf) cand(key string) int64 { return c.res.Candidates[key] }
func (c conf) team(key string) int64 { return c.res.Teams[key] }

// write runs fn in a write of the store and returns its error.
func (c conf) write(fn func(tx pipeline.Tx) error) error { return c.store.Write(bg, fn) }

// isNotFound reports whether err is a not_found error.
func isNotFound(err error) bool { return errors.Is(err, pipeline.ErrNotFound) }

// concurrently runs fn(0) … fn(n-1) at once, each in its own goroutine,
// and returns their errors by i.
func concurrently(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = fn(i)
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

// meeting lets the transactions of a race wait for each other after their
// reads, so that their writes overlap where the store runs writes side by
// side. A store with one writer runs them one after the other: the first
// waits out the time-out alone, then the second runs.
type meeting struct {
	wg sync.WaitGroup
}

func newMeeting(n int) *meeting {
	m := &meeting{}
	m.wg.Add(n)
	return m
}

// arrive waits until every party arrived, or a quarter of a second.
func (m *meeting) arrive() {
	m.wg.Done()
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(250 * time.Millisecond):
	}
}

// visibility: a viewer reaches the jobs of the teams where they are owner
// or admin, and on their other teams the jobs they own or are assigned
// to; everything else, and everything under it, is not found.
func (c conf) visibility(t *testing.T) {
	// A message, an interview and a document of ada (backend), for the
	// reads by id.
	var r adas
	require.NoError(t, c.write(func(tx pipeline.Tx) error {
		var err error
		if r.msg, err = tx.Messages().Insert(bg, c.message("ada", "visibility")); err != nil {
			return err
		}
		if r.iv, err = tx.Interviews().Insert(bg, c.interview("ada", at(2031, 1, 1, 10), time.Hour, pipeline.InterviewScheduled, "olivia")); err != nil {
			return err
		}
		content := []byte("Ada's resume.")
		r.doc, err = tx.Documents().Insert(bg, pipeline.InsertDocumentParams{Document: pipeline.Document{CandidateID: c.cand("ada"), JobID: c.job("backend"), TeamID: c.team("acme"),
			Kind: pipeline.DocumentResume, Filename: "ada.txt", ContentType: pipeline.TypeText, Size: int64(len(content)),
			SHA256: fmt.Sprintf("%x", sha256.Sum256(content)), TextStatus: pipeline.TextNone,
			UploadedBy: pipeline.User{ID: c.user("olivia")}, CreatedAt: time.Now().UTC().Truncate(time.Second)}, Content: content})
		return err
	}))
	all := []string{"olivia", "adam", "mia", "nina", "gary"}
	world := map[string][]string{
		"olivia": {"backend", "frontend", "design", "archive"}, // owner of acme
		"adam":   {"backend", "frontend", "design", "archive"}, // admin of acme
		"mia":    {"backend"},                                  // member, assigned to backend
		"nina":   {"frontend"},                                 // member, owner of frontend
		"gary":   {"ops"},                                      // owner of globex
	}
	for _, user := range all {
		t.Run(user, func(t *testing.T) { c.checkReach(t, user, world[user], r) })
	}
	t.Run("a member removed from the team reaches none of its jobs, even assigned", func(t *testing.T) {
		mia, acme := c.user("mia"), c.team("acme")
		require.NoError(t, c.write(func(tx pipeline.Tx) error {
			return tx.Members().Delete(bg, pipeline.MemberParams{UserID: mia, TeamID: acme})
		}))
		c.checkReach(t, "mia", nil, r)
		require.NoError(t, c.write(func(tx pipeline.Tx) error {
			return tx.Members().Insert(bg, pipeline.MembershipParams{UserID: mia, TeamID: acme, Role: pipeline.RoleMember})
		}))
		c.checkReach(t, "mia", world["mia"], r)
	})
	t.Run("a member made admin reaches every job of the team", func(t *testing.T) {
		nina, acme := c.user("nina"), c.team("acme")
		require.NoError(t, c.write(func(tx pipeline.Tx) error {
			return tx.Members().SetRole(bg, pipeline.MembershipParams{UserID: nina, TeamID: acme, Role: pipeline.RoleAdmin})
		}))
		c.checkReach(t, "nina", world["adam"], r)
		require.NoError(t, c.write(func(tx pipeline.Tx) error {
			return tx.Members().SetRole(bg, pipeline.MembershipParams{UserID: nina, TeamID: acme, Role: pipeline.RoleMember})
		}))
		c.checkReach(t, "nina", world["nina"], r)
	})
	t.Run("a record asked for under another job or candidate is not found", func(t *testing.T) {
		olivia, backend, frontend := c.user("olivia"), c.job("backend"), c.job("frontend")
		_, err := c.store.Candidates().Get(bg, pipeline.CandidateParams{Viewer: olivia, JobID: frontend, ID: c.cand("ada")})
		assert.True(t, isNotFound(err), "ada under frontend: %v", err)
		_, err = c.store.Messages().Get(bg, pipeline.MessageParams{Viewer: olivia, JobID: backend, CandidateID: c.cand("grace"), ID: r.msg.ID})
		assert.True(t, isNotFound(err), "ada's message under grace: %v", err)
		_, err = c.store.Documents().Get(bg, pipeline.DocumentParams{Viewer: olivia, JobID: backend, CandidateID: c.cand("grace"), ID: r.doc.ID})
		assert.True(t, isNotFound(err), "ada's document under grace: %v", err)
		_, err = c.store.Interviews().Get(bg, pipeline.InterviewParams{Viewer: olivia, JobID: frontend, CandidateID: c.cand("ada"), ID: r.iv.ID})
		assert.True(t, isNotFound(err), "ada's interview under frontend: %v", err)
		_, err = c.store.Notes().List(bg, pipeline.ListNotesParams{Viewer: olivia, JobID: frontend, CandidateID: c.cand("ada"), Page: 1})
		assert.True(t, isNotFound(err), "ada's notes under frontend: %v", err)
		err = c.write(func(tx pipeline.Tx) error {
			_, err := tx.Candidates().Lock(bg, pipeline.LockCandidateParams{Viewer: olivia, JobID: frontend, ID: c.cand("ada")})
			return err
		})
		assert.True(t, isNotFound(err), "ada for update under frontend: %v", err)
	})
}

// worldCandidates are the candidates of World's jobs.
var worldCandidates = map[string][]string{
	"backend": {"ada", "grace", "linus"}, "frontend": {"ken"}, "design": {"don"}, "archive": nil, "ops": {"ola"},
}

// adas are records of ada's, for the reads by id.
type adas struct {
	msg pipeline.Message
	iv  pipeline.Interview
	doc pipeline.Document
}

// checkReach checks that user reaches exactly the jobs want, through every
// read made for a viewer.
func (c conf) checkReach(t *testing.T, user string, want []string, r adas) {
	t.Helper()
	c.checkListed(t, user, want)
	for _, jk := range []string{"backend", "frontend", "design", "archive", "ops"} {
		c.checkJobReach(t, user, jk, slices.Contains(want, jk), r)
	}
}

// checkListed checks that user lists exactly the jobs want, in every
// status.
func (c conf) checkListed(t *testing.T, user string, want []string) {
	t.Helper()
	viewer := c.user(user)
	var listed []int64
	for _, s := range []pipeline.JobStatus{pipeline.JobOpen, pipeline.JobDraft, pipeline.JobClosed} {
		l, err := c.store.Jobs().List(bg, pipeline.ListJobsParams{Viewer: viewer, Filter: pipeline.JobFilter{Status: s, Page: 1}})
		require.NoError(t, err)
		assert.Equal(t, len(l.Items), l.Total, "%s jobs' total", s)
		for _, j := range l.Items {
			listed = append(listed, j.ID)
		}
	}
	var wantIDs []int64
	for _, k := range want {
		wantIDs = append(wantIDs, c.job(k))
	}
	assert.ElementsMatch(t, wantIDs, listed, "the jobs %s lists", user)
}

// seenFunc checks a read of user's under the job jk: without an error
// when user reaches the job (a write rolled back on purpose included),
// not found when not.
type seenFunc func(what string, err error)

// checkJobReach checks every read of user's of the job jk and of what is
// under it: each succeeds when reach, and is not found when not.
func (c conf) checkJobReach(t *testing.T, user, jk string, reach bool, r adas) {
	t.Helper()
	viewer, job := c.user(user), c.job(jk)
	seen := seenFunc(func(what string, err error) {
		t.Helper()
		if reach {
			if errors.Is(err, errRollback) {
				err = nil
			}
			assert.NoError(t, err, "%s reads %s of %s", user, what, jk)
		} else {
			assert.True(t, isNotFound(err), "%s must not find %s of %s, got %v", user, what, jk, err)
		}
	})
	_, err := c.store.Jobs().Get(bg, pipeline.JobParams{Viewer: viewer, ID: job})
	seen("the job", err)
	_, err = c.store.Jobs().Stages(bg, pipeline.JobParams{Viewer: viewer, ID: job})
	seen("the stages", err)
	_, err = c.store.Candidates().List(bg, pipeline.ListCandidatesParams{Viewer: viewer, JobID: job, Filter: pipeline.CandidateFilter{Page: 1}})
	seen("the candidates", err)
	seen("the job for update", c.write(func(tx pipeline.Tx) error {
		if _, err := tx.Jobs().Lock(bg, pipeline.JobParams{Viewer: viewer, ID: job}); err != nil {
			return err
		}
		return errRollback
	}))
	seen("the job for intake", c.write(func(tx pipeline.Tx) error {
		if _, err := tx.Candidates().Intake(bg, pipeline.IntakeParams{Viewer: viewer, JobID: job, Stage: 0, Email: "someone@example.test"}); err != nil {
			return err
		}
		return errRollback
	}))
	for _, ck := range worldCandidates[jk] {
		c.checkCandidateReach(t, user, job, ck, reach, seen)
	}
	if jk == "backend" {
		c.checkAdasReach(t, viewer, job, r, seen)
	}
}

// checkCandidateReach checks every read of user's of the candidate ck of
// job and of what is under it.
func (c conf) checkCandidateReach(t *testing.T, user string, job int64, ck string, reach bool, seen seenFunc) {
	t.Helper()
	viewer, cand := c.user(user), c.cand(ck)
	_, err := c.store.Candidates().Get(bg, pipeline.CandidateParams{Viewer: viewer, JobID: job, ID: cand})
	seen("candidate "+ck, err)
	_, err = c.store.Notes().List(bg, pipeline.ListNotesParams{Viewer: viewer, JobID: job, CandidateID: cand, Page: 1})
	seen("the notes of "+ck, err)
	_, err = c.store.Messages().List(bg, pipeline.ListMessagesParams{Viewer: viewer, JobID: job, CandidateID: cand, Page: 1})
	seen("the messages of "+ck, err)
	_, err = c.store.Interviews().List(bg, pipeline.ListInterviewsParams{Viewer: viewer, JobID: job, CandidateID: cand, Page: 1})
	seen("the interviews of "+ck, err)
	_, err = c.store.Documents().List(bg, pipeline.ListDocumentsParams{Viewer: viewer, JobID: job, CandidateID: cand, Page: 1})
	seen("the documents of "+ck, err)
	// Empty or not found: the contract promises the documents of a
	// candidate viewer reaches, and no others.
	docs, err := c.store.Documents().AllWithText(bg, pipeline.CandidateDocumentsParams{Viewer: viewer, JobID: job, CandidateID: cand})
	if reach || !isNotFound(err) {
		require.NoError(t, err)
		if reach && ck == "ada" {
			assert.Len(t, docs, 1, "%s reads ada's document with its text", user)
		} else {
			assert.Empty(t, docs, "%s must not read the documents of %s", user, ck)
		}
	}
	seen("candidate "+ck+" for update", c.write(func(tx pipeline.Tx) error {
		if _, err := tx.Candidates().Lock(bg, pipeline.LockCandidateParams{Viewer: viewer, JobID: job, ID: cand}); err != nil {
			return err
		}
		return errRollback
	}))
}

// checkAdasReach checks the reads by id of ada's records r, of job
// (backend).
func (c conf) checkAdasReach(t *testing.T, viewer, job int64, r adas, seen seenFunc) {
	t.Helper()
	ada := c.cand("ada")
	_, err := c.store.Messages().Get(bg, pipeline.MessageParams{Viewer: viewer, JobID: job, CandidateID: ada, ID: r.msg.ID})
	seen("ada's message", err)
	_, err = c.store.Documents().Get(bg, pipeline.DocumentParams{Viewer: viewer, JobID: job, CandidateID: ada, ID: r.doc.ID})
	seen("ada's document", err)
	_, err = c.store.Documents().Text(bg, pipeline.DocumentParams{Viewer: viewer, JobID: job, CandidateID: ada, ID: r.doc.ID})
	seen("ada's document's text", err)
	_, err = c.store.Interviews().Get(bg, pipeline.InterviewParams{Viewer: viewer, JobID: job, CandidateID: ada, ID: r.iv.ID})
	seen("ada's interview", err)
	seen("ada's interview for update", c.write(func(tx pipeline.Tx) error {
		if _, err := tx.Interviews().Lock(bg, pipeline.LockInterviewParams{Viewer: viewer, JobID: job, CandidateID: ada, ID: r.iv.ID}); err != nil {
			return err
		}
		return errRollback
	}))
}

// at is an hour of a day, UTC.
func at(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }

// message is a queued message of olivia to candidate key (of backend),
// due in a day, so that no queue takes it.
func (c conf) message(key, subject string) pipeline.Message {
	now := time.Now().UTC().Truncate(time.Second)
	return pipeline.Message{
		JobID: c.job("backend"), CandidateID: c.cand(key), TeamID: c.team("acme"), To: key + "@example.test",
		ReplyTo: "olivia@acme.test", Subject: subject, Body: "Hello.", Status: pipeline.MessageQueued,
		SendAt: now.Add(24 * time.Hour), Author: pipeline.User{ID: c.user("olivia")}, CreatedAt: now,
	}
}

// interview is an interview of candidate key (of backend) made by olivia,
// from start for d, in status, with the interviewers users.
func (c conf) interview(key string, start time.Time, d time.Duration, status string, users ...string) pipeline.Interview {
	now := time.Now().UTC().Truncate(time.Second)
	iv := pipeline.Interview{
		JobID: c.job("backend"), CandidateID: c.cand(key), TeamID: c.team("acme"), Start: start, End: start.Add(d),
		Timezone: "UTC", Status: status, CreatedBy: pipeline.User{ID: c.user("olivia")}, CreatedAt: now, UpdatedAt: now,
	}
	for _, u := range users {
		iv.Interviewers = append(iv.Interviewers, pipeline.User{ID: c.user(u)})
	}
	return iv
}

// messages: a cancel wins over a send in flight unless the mail went out;
// a sent outcome wins over a cancel and over a later failure report.
func (c conf) messages(t *testing.T) {
	m := messageCases{c}
	t.Run("a retry report keeps a queued message queued, with its attempt and error", m.retryKeepsQueued)
	t.Run("a cancel wins over a later retry or failure report", m.cancelWinsOverLaterReports)
	t.Run("a sent outcome wins over an earlier cancel: the mail is out", m.sentWinsOverEarlierCancel)
	t.Run("a sent outcome wins over a later failure report", m.sentWinsOverLaterFailure)
	t.Run("a sent outcome changes a failed message", m.sentChangesFailed)
	t.Run("a cancel leaves a sent or a failed message as it is", m.cancelLeavesSentAndFailed)
	t.Run("a cancel and a sent outcome racing: the message is sent", m.cancelRacingSent)
	t.Run("a cancel and a retry report racing: the message is cancelled", m.cancelRacingRetry)
	t.Run("a cancel and a failure report racing: the first stands", m.cancelRacingFailure)
}

// messageCases are the cases of the message state machine, each on
// messages of grace's of its own.
type messageCases struct{ conf }

// add stores a queued message to grace and returns its id.
func (c messageCases) add(t *testing.T) int64 {
	t.Helper()
	var m pipeline.Message
	require.NoError(t, c.write(func(tx pipeline.Tx) (err error) {
		m, err = tx.Messages().Insert(bg, c.message("grace", "state machine"))
		return err
	}))
	return m.ID
}

// report records an outcome as the Postman does, and returns whether it
// changed the message.
func (c messageCases) report(id int64, attempt int, status, text string) (bool, error) {
	var changed bool
	err := c.write(func(tx pipeline.Tx) (err error) {
		changed, err = tx.Messages().RecordAttempt(bg, pipeline.MessageAttempt{MessageID: id, Attempt: attempt, Status: status,
			Error: text, At: time.Now().UTC()})
		return err
	})
	return changed, err
}

// mustReport is report, failing the test on an error.
func (c messageCases) mustReport(t *testing.T, id int64, attempt int, status, text string) bool {
	t.Helper()
	changed, err := c.report(id, attempt, status, text)
	require.NoError(t, err)
	return changed
}

// cancel cancels as the Service does: the message locked, a queued one
// cancelled.
func (c messageCases) cancel(id int64) error {
	return c.write(func(tx pipeline.Tx) error {
		m, err := tx.Messages().Lock(bg, pipeline.LockMessageParams{CandidateID: c.cand("grace"), ID: id})
		if err != nil || m.Status != pipeline.MessageQueued {
			return err
		}
		return tx.Messages().Cancel(bg, pipeline.MessageByIDParams{ID: id})
	})
}

// cancelAnyway cancels whatever the message's status is.
func (c messageCases) cancelAnyway(t *testing.T, id int64) {
	t.Helper()
	require.NoError(t, c.write(func(tx pipeline.Tx) error {
		if _, err := tx.Messages().Lock(bg, pipeline.LockMessageParams{CandidateID: c.cand("grace"), ID: id}); err != nil {
			return err
		}
		return tx.Messages().Cancel(bg, pipeline.MessageByIDParams{ID: id})
	}))
}

// get reads a message as the Postman does.
func (c messageCases) get(t *testing.T, id int64) pipeline.Message {
	t.Helper()
	m, err := c.store.Messages().ToSend(bg, pipeline.MessageByIDParams{ID: id})
	require.NoError(t, err)
	return m
}

func (c messageCases) retryKeepsQueued(t *testing.T) {
	id := c.add(t)
	assert.True(t, c.mustReport(t, id, 1, pipeline.MessageQueued, "421 try later"))
	m := c.get(t, id)
	assert.Equal(t, pipeline.MessageQueued, m.Status)
	assert.Equal(t, 1, m.Attempts)
	assert.Equal(t, "421 try later", m.LastError)
	assert.Nil(t, m.SentAt)
}

func (c messageCases) cancelWinsOverLaterReports(t *testing.T) {
	id := c.add(t)
	require.NoError(t, c.cancel(id))
	assert.Equal(t, pipeline.MessageCancelled, c.get(t, id).Status, "the cancel is seen at once")
	assert.False(t, c.mustReport(t, id, 1, pipeline.MessageQueued, "421 try later"))
	assert.False(t, c.mustReport(t, id, 2, pipeline.MessageFailed, "550 no such user"))
	m := c.get(t, id)
	assert.Equal(t, pipeline.MessageCancelled, m.Status)
	assert.Zero(t, m.Attempts)
	assert.Empty(t, m.LastError)
}

func (c messageCases) sentWinsOverEarlierCancel(t *testing.T) {
	id := c.add(t)
	require.NoError(t, c.cancel(id))
	assert.True(t, c.mustReport(t, id, 1, pipeline.MessageSent, ""))
	m := c.get(t, id)
	assert.Equal(t, pipeline.MessageSent, m.Status)
	assert.NotNil(t, m.SentAt)
	assert.Equal(t, 1, m.Attempts)
}

func (c messageCases) sentWinsOverLaterFailure(t *testing.T) {
	id := c.add(t)
	assert.True(t, c.mustReport(t, id, 1, pipeline.MessageSent, ""))
	assert.False(t, c.mustReport(t, id, 2, pipeline.MessageFailed, "550 no such user"))
	assert.False(t, c.mustReport(t, id, 2, pipeline.MessageQueued, "421 try later"))
	m := c.get(t, id)
	assert.Equal(t, pipeline.MessageSent, m.Status)
	assert.Equal(t, 1, m.Attempts)
	assert.Empty(t, m.LastError)
	assert.NotNil(t, m.SentAt)
}

func (c messageCases) sentChangesFailed(t *testing.T) {
	id := c.add(t)
	assert.True(t, c.mustReport(t, id, 1, pipeline.MessageFailed, "550 no such user"))
	assert.True(t, c.mustReport(t, id, 2, pipeline.MessageSent, ""))
	m := c.get(t, id)
	assert.Equal(t, pipeline.MessageSent, m.Status)
	assert.NotNil(t, m.SentAt)
}

func (c messageCases) cancelLeavesSentAndFailed(t *testing.T) {
	sent, failed := c.add(t), c.add(t)
	c.mustReport(t, sent, 1, pipeline.MessageSent, "")
	c.mustReport(t, failed, 1, pipeline.MessageFailed, "550 no such user")
	c.cancelAnyway(t, sent)
	c.cancelAnyway(t, failed)
	assert.Equal(t, pipeline.MessageSent, c.get(t, sent).Status)
	assert.Equal(t, pipeline.MessageFailed, c.get(t, failed).Status)
}

func (c messageCases) cancelRacingSent(t *testing.T) {
	for round := range 6 {
		id := c.add(t)
		errs := concurrently(2, func(i int) error {
			if i == 0 {
				return c.cancel(id)
			}
			changed, err := c.report(id, 1, pipeline.MessageSent, "")
			if err == nil && !changed {
				err = fmt.Errorf("the sent outcome changed nothing")
			}
			return err
		})
		require.NoError(t, errors.Join(errs...), "round %d", round)
		m := c.get(t, id)
		assert.Equal(t, pipeline.MessageSent, m.Status, "round %d", round)
		assert.NotNil(t, m.SentAt, "round %d", round)
	}
}

func (c messageCases) cancelRacingRetry(t *testing.T) {
	for round := range 6 {
		id := c.add(t)
		errs := concurrently(2, func(i int) error {
			if i == 0 {
				return c.cancel(id)
			}
			_, err := c.report(id, 1, pipeline.MessageQueued, "421 try later")
			return err
		})
		require.NoError(t, errors.Join(errs...), "round %d", round)
		assert.Equal(t, pipeline.MessageCancelled, c.get(t, id).Status, "round %d", round)
	}
}

func (c messageCases) cancelRacingFailure(t *testing.T) {
	for round := range 6 {
		id := c.add(t)
		var changed bool
		errs := concurrently(2, func(i int) error {
			if i == 0 {
				return c.cancel(id)
			}
			var err error
			changed, err = c.report(id, 1, pipeline.MessageFailed, "550 no such user")
			return err
		})
		require.NoError(t, errors.Join(errs...), "round %d", round)
		want := pipeline.MessageCancelled
		if changed {
			want = pipeline.MessageFailed
		}
		assert.Equal(t, want, c.get(t, id).Status, "round %d: the report changed the message: %v", round, changed)
	}
}

// invitations: an invitation mail's outcomes follow a message's: a sent
// outcome wins over a failure report, before or after it.
func (c conf) invitations(t *testing.T) {
	const n = 10
	subject := func(i int) string { return fmt.Sprintf("conformance invitation %d", i) }
	now := time.Now().UTC().Truncate(time.Second)
	require.NoError(t, c.write(func(tx pipeline.Tx) error {
		iv, err := tx.Interviews().Insert(bg, c.interview("linus", at(2033, 1, 1, 10), time.Hour, pipeline.InterviewScheduled, "adam"))
		if err != nil {
			return err
		}
		ms := make([]pipeline.InvitationMail, n)
		for i := range ms {
			ms[i] = pipeline.InvitationMail{InterviewID: iv.ID, Method: "REQUEST", To: pipeline.User{Name: "Adam", Email: "adam@acme.test"},
				Subject: subject(i), Body: "Invitation.", Calendar: []byte("BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n"),
				Status: pipeline.MessageQueued, CreatedAt: now}
		}
		return tx.Invitations().Insert(bg, ms)
	}))
	// The contract lists no mails (their queue names them by id): find
	// them by id, which a fresh store counts from 1.
	ids := make([]int64, n)
	found := 0
	for id := int64(1); id <= 1000 && found < n; id++ {
		m, err := c.store.Invitations().ToSend(bg, pipeline.InvitationByIDParams{ID: id})
		if isNotFound(err) {
			continue
		}
		require.NoError(t, err)
		for i := range ids {
			if m.Subject == subject(i) {
				assert.Equal(t, pipeline.MessageQueued, m.Status)
				ids[i] = id
				found++
			}
		}
	}
	require.Equal(t, n, found, "the invitation mails stored")
	report := func(t *testing.T, id int64, attempt int, status, text string) {
		t.Helper()
		require.NoError(t, c.store.Invitations().RecordAttempt(bg, pipeline.MessageAttempt{MessageID: id, Attempt: attempt,
			Status: status, Error: text, At: time.Now().UTC()}))
	}
	get := func(t *testing.T, id int64) pipeline.InvitationMail {
		t.Helper()
		m, err := c.store.Invitations().ToSend(bg, pipeline.InvitationByIDParams{ID: id})
		require.NoError(t, err)
		return m
	}

	t.Run("a retry report keeps a queued mail queued, with its attempt and error", func(t *testing.T) {
		report(t, ids[0], 1, pipeline.MessageQueued, "421 try later")
		m := get(t, ids[0])
		assert.Equal(t, pipeline.MessageQueued, m.Status)
		assert.Equal(t, 1, m.Attempts)
		assert.Equal(t, "421 try later", m.LastError)
	})
	t.Run("a sent outcome wins over a later failure report", func(t *testing.T) {
		report(t, ids[1], 1, pipeline.MessageSent, "")
		report(t, ids[1], 2, pipeline.MessageFailed, "550 no such user")
		report(t, ids[1], 2, pipeline.MessageQueued, "421 try later")
		m := get(t, ids[1])
		assert.Equal(t, pipeline.MessageSent, m.Status)
		assert.Equal(t, 1, m.Attempts)
		assert.Empty(t, m.LastError)
	})
	t.Run("a sent outcome changes a failed mail", func(t *testing.T) {
		report(t, ids[2], 1, pipeline.MessageFailed, "550 no such user")
		assert.Equal(t, pipeline.MessageFailed, get(t, ids[2]).Status)
		report(t, ids[2], 2, pipeline.MessageSent, "")
		assert.Equal(t, pipeline.MessageSent, get(t, ids[2]).Status)
	})
	t.Run("a sent outcome and a failure report racing: the mail is sent", func(t *testing.T) {
		for _, id := range ids[3:] {
			errs := concurrently(2, func(i int) error {
				a := pipeline.MessageAttempt{MessageID: id, Attempt: 1, Status: pipeline.MessageSent, At: time.Now().UTC()}
				if i == 1 {
					a.Status, a.Error = pipeline.MessageFailed, "550 no such user"
				}
				return c.store.Invitations().RecordAttempt(bg, a)
			})
			require.NoError(t, errors.Join(errs...))
			assert.Equal(t, pipeline.MessageSent, get(t, id).Status, "mail %d", id)
		}
	})
}

// booking: two scheduled interviews of one interviewer, or of one
// candidate, never overlap; an interview occupies [start, end).
func (c conf) booking(t *testing.T) {
	b := bookingCases{c}
	t.Run("an interviewer's overlapping interview is refused", b.interviewerOverlap)
	t.Run("the candidate's overlapping interview is refused", b.candidateOverlap)
	t.Run("back-to-back interviews do not overlap", b.backToBack)
	t.Run("a cancelled interview books nobody", b.cancelledBooksNobody)
	t.Run("a change onto a booked time is refused, within its own time allowed", b.changeOntoBooked)
	t.Run("a change that waited for another's reads the interviewers that one left", b.changeAfterChange)
	t.Run("two concurrent bookings of one interviewer: exactly one wins", b.racingInterviewer)
	t.Run("two concurrent bookings of one candidate: exactly one wins", b.racingCandidate)
}

// bookingCases are the cases of booking, each on days of its own.
type bookingCases struct{ conf }

// book stores iv in a write of its own and returns the write's error.
func (c bookingCases) book(iv pipeline.Interview) (pipeline.Interview, error) {
	err := c.write(func(tx pipeline.Tx) (err error) {
		iv, err = tx.Interviews().Insert(bg, iv)
		return err
	})
	return iv, err
}

// mustBook is book, failing the test on an error.
func (c bookingCases) mustBook(t *testing.T, iv pipeline.Interview) pipeline.Interview {
	t.Helper()
	iv, err := c.book(iv)
	require.NoError(t, err)
	return iv
}

// booked checks that err is ErrBooked.
func booked(t *testing.T, err error, what string) {
	t.Helper()
	assert.True(t, errors.Is(err, pipeline.ErrBooked), "%s: want ErrBooked, got %v", what, err)
}

// change stores iv, read for update, changed by fn.
func (c bookingCases) change(iv pipeline.Interview, fn func(*pipeline.Interview)) error {
	return c.write(func(tx pipeline.Tx) error {
		l, err := tx.Interviews().Lock(bg, pipeline.LockInterviewParams{Viewer: c.user("olivia"), JobID: iv.JobID, CandidateID: iv.CandidateID, ID: iv.ID})
		if err != nil {
			return err
		}
		cur := l.Interview
		fn(&cur)
		cur.Sequence++
		return tx.Interviews().Update(bg, cur)
	})
}

func (c bookingCases) interviewerOverlap(t *testing.T) {
	c.mustBook(t, c.interview("ada", at(2032, 1, 1, 10), time.Hour, pipeline.InterviewScheduled, "adam"))
	_, err := c.book(c.interview("grace", at(2032, 1, 1, 10).Add(30*time.Minute), time.Hour, pipeline.InterviewScheduled, "mia", "adam"))
	booked(t, err, "adam at 10:30")
	busy, err := c.store.Interviews().Busy(bg, pipeline.BusyQuery{UserIDs: []int64{c.user("adam"), c.user("mia")},
		From: at(2032, 1, 1, 0), To: at(2032, 1, 2, 0)})
	require.NoError(t, err)
	require.Len(t, busy, 1, "the refused interview books nobody")
	assert.Equal(t, c.user("adam"), busy[0].UserID)
	assert.True(t, busy[0].Start.Equal(at(2032, 1, 1, 10)))
}

func (c bookingCases) candidateOverlap(t *testing.T) {
	c.mustBook(t, c.interview("grace", at(2032, 1, 2, 10), time.Hour, pipeline.InterviewScheduled, "olivia"))
	_, err := c.book(c.interview("grace", at(2032, 1, 2, 10).Add(59*time.Minute), time.Hour, pipeline.InterviewScheduled, "mia"))
	booked(t, err, "grace at 10:59")
}

func (c bookingCases) backToBack(t *testing.T) {
	c.mustBook(t, c.interview("ada", at(2032, 1, 3, 10), time.Hour, pipeline.InterviewScheduled, "adam"))
	c.mustBook(t, c.interview("ada", at(2032, 1, 3, 11), time.Hour, pipeline.InterviewScheduled, "adam"))
	c.mustBook(t, c.interview("grace", at(2032, 1, 3, 9), time.Hour, pipeline.InterviewScheduled, "adam"))
}

func (c bookingCases) cancelledBooksNobody(t *testing.T) {
	c.mustBook(t, c.interview("ada", at(2032, 1, 4, 10), time.Hour, pipeline.InterviewCancelled, "adam"))
	iv := c.mustBook(t, c.interview("ada", at(2032, 1, 4, 10), time.Hour, pipeline.InterviewScheduled, "adam"))
	_, err := c.book(c.interview("grace", at(2032, 1, 4, 10), time.Hour, pipeline.InterviewScheduled, "adam"))
	booked(t, err, "adam while booked")
	require.NoError(t, c.change(iv, func(iv *pipeline.Interview) { iv.Status = pipeline.InterviewCancelled }))
	c.mustBook(t, c.interview("grace", at(2032, 1, 4, 10), time.Hour, pipeline.InterviewScheduled, "adam"))
}

func (c bookingCases) changeOntoBooked(t *testing.T) {
	c.mustBook(t, c.interview("ada", at(2032, 1, 5, 10), time.Hour, pipeline.InterviewScheduled, "adam"))
	iv := c.mustBook(t, c.interview("grace", at(2032, 1, 5, 14), time.Hour, pipeline.InterviewScheduled, "adam"))
	err := c.change(iv, func(iv *pipeline.Interview) { iv.Start, iv.End = at(2032, 1, 5, 10), at(2032, 1, 5, 11) })
	booked(t, err, "grace's moved onto adam's 10:00")
	require.NoError(t, c.change(iv, func(iv *pipeline.Interview) { iv.End = iv.End.Add(30 * time.Minute) }), "longer, over itself")
	err = c.change(iv, func(iv *pipeline.Interview) {
		iv.Interviewers = append(iv.Interviewers, pipeline.User{ID: c.user("mia")})
	})
	require.NoError(t, err, "mia added while free")
	c.mustBook(t, c.interview("ada", at(2032, 1, 5, 16), time.Hour, pipeline.InterviewScheduled, "mia"))
	err = c.change(iv, func(iv *pipeline.Interview) { iv.End = at(2032, 1, 5, 17) })
	booked(t, err, "grace's made longer onto mia's 16:00")
}

func (c bookingCases) changeAfterChange(t *testing.T) {
	iv := c.mustBook(t, c.interview("ada", at(2032, 1, 6, 10), time.Hour, pipeline.InterviewScheduled, "adam", "gary"))
	locked, changed := make(chan struct{}), make(chan error, 1)
	go func() {
		changed <- c.write(func(tx pipeline.Tx) error {
			l, err := tx.Interviews().Lock(bg, pipeline.LockInterviewParams{Viewer: c.user("olivia"), JobID: iv.JobID, CandidateID: iv.CandidateID, ID: iv.ID})
			if err != nil {
				close(locked)
				return err
			}
			close(locked)
			cur := l.Interview
			// Long enough for the other write's read to start and
			// wait for the lock where the store runs writes side by
			// side; a store with one writer runs it afterwards.
			time.Sleep(250 * time.Millisecond)
			cur.Interviewers = []pipeline.User{{ID: c.user("mia")}, {ID: c.user("gary")}, {ID: c.user("nina")}}
			cur.Sequence++
			return tx.Interviews().Update(bg, cur)
		})
	}()
	<-locked
	var got []int64
	var members, removed []pipeline.User
	err := c.write(func(tx pipeline.Tx) error {
		l, err := tx.Interviews().Lock(bg, pipeline.LockInterviewParams{Viewer: c.user("olivia"), JobID: iv.JobID, CandidateID: iv.CandidateID, ID: iv.ID})
		if err != nil {
			return err
		}
		cur := l.Interview
		for _, u := range cur.Interviewers {
			got = append(got, u.ID)
		}
		// As a reschedule asks, with what the lock read of them.
		p := pipeline.InterviewersParams{TeamID: cur.TeamID, IDs: got, Known: l.Interviewers}
		if members, err = tx.Interviews().Interviewers(bg, p); err != nil {
			return err
		}
		p.IDs = []int64{c.user("adam")}
		removed, err = tx.Interviews().Interviewers(bg, p)
		return err
	})
	require.NoError(t, err)
	require.NoError(t, <-changed)
	assert.Equal(t, []int64{c.user("mia"), c.user("gary"), c.user("nina")}, got, "the interviewers as the other write left them")
	var ids []int64
	for _, u := range members {
		ids = append(ids, u.ID)
	}
	assert.Equal(t, []int64{c.user("mia"), c.user("nina")}, ids, "the team's members among them, in order: gary is globex's")
	require.Len(t, removed, 1, "a user the interview no longer has is still judged")
	assert.Equal(t, c.user("adam"), removed[0].ID)
}

// race books two interviews at once, each in a write that reads first,
// without a lock, as a check of the slot would, and checks that exactly
// one is stored.
func (c bookingCases) race(t *testing.T, day int, a, b pipeline.Interview) {
	t.Helper()
	m := newMeeting(2)
	ivs := []pipeline.Interview{a, b}
	errs := concurrently(2, func(i int) error {
		return c.write(func(tx pipeline.Tx) error {
			iv := ivs[i]
			if _, err := tx.Interviews().Interviewers(bg, pipeline.InterviewersParams{TeamID: iv.TeamID, IDs: []int64{iv.Interviewers[0].ID}}); err != nil {
				return err
			}
			m.arrive()
			_, err := tx.Interviews().Insert(bg, iv)
			return err
		})
	})
	wins := 0
	for _, err := range errs {
		if err == nil {
			wins++
		} else {
			booked(t, err, "the loser")
		}
	}
	assert.Equal(t, 1, wins, "day %d: exactly one booking wins: %v", day, errs)
	busy, err := c.store.Interviews().Busy(bg, pipeline.BusyQuery{UserIDs: []int64{c.user("nina"), c.user("mia"), c.user("adam")},
		From: at(2032, 2, day, 0), To: at(2032, 2, day+1, 0)})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(busy), 2, "day %d: one interview's interviewers: %v", day, busy)
}

func (c bookingCases) racingInterviewer(t *testing.T) {
	for day := 1; day <= 5; day++ {
		c.race(t, day,
			c.interview("ada", at(2032, 2, day, 10), time.Hour, pipeline.InterviewScheduled, "nina"),
			c.interview("grace", at(2032, 2, day, 10).Add(15*time.Minute), time.Hour, pipeline.InterviewScheduled, "adam", "nina"))
	}
}

func (c bookingCases) racingCandidate(t *testing.T) {
	for day := 11; day <= 15; day++ {
		c.race(t, day,
			c.interview("linus", at(2032, 2, day, 10), time.Hour, pipeline.InterviewScheduled, "mia"),
			c.interview("linus", at(2032, 2, day, 10).Add(45*time.Minute), time.Hour, pipeline.InterviewScheduled, "adam"))
	}
}

// emails: a user's email is unique in the whole store, a candidate's
// among the candidates of its job; both in any letter case.
func (c conf) emails(t *testing.T) {
	e := emailCases{c}
	t.Run("a user's email is unique over every team, in any letter case", e.userUnique)
	t.Run("a user's email beyond ASCII is unique in any letter case", e.userUniqueBeyondASCII)
	t.Run("two concurrent users with one email: exactly one is stored", e.racingUsers)
	t.Run("a candidate's email is unique on its job, in any letter case", e.candidateUnique)
	t.Run("a candidate's email beyond ASCII is unique on its job in any letter case", e.candidateUniqueBeyondASCII)
	t.Run("a candidate changed to a taken email is refused", e.candidateChangedToTaken)
	t.Run("two concurrent intakes of one email: exactly one is stored", e.racingIntakes)
}

// emailCases are the cases of email uniqueness, each on emails of its
// own.
type emailCases struct{ conf }

// addUser stores a user of globex with email.
func (c emailCases) addUser(email string) (pipeline.User, error) {
	globex := c.team("globex")
	var u pipeline.User
	err := c.write(func(tx pipeline.Tx) error {
		if _, err := tx.Teams().Lock(bg, pipeline.TeamParams{ID: globex}); err != nil {
			return err
		}
		var err error
		u, err = tx.Users().Insert(bg, pipeline.InsertUserParams{User: pipeline.User{Name: "New User", Email: email}, TeamID: globex})
		return err
	})
	return u, err
}

// conflict checks that err is a conflict.
func conflict(t *testing.T, err error, what string) {
	t.Helper()
	assert.Equal(t, pipeline.EConflict, pipeline.ErrorCode(err), "%s: want conflict, got %v", what, err)
}

// addCandidate stores a candidate of the World job key with email.
func (c emailCases) addCandidate(job string, email string) (pipeline.Candidate, error) {
	var k pipeline.Candidate
	err := c.write(func(tx pipeline.Tx) error {
		var err error
		k, err = tx.Candidates().Insert(bg, pipeline.WriteCandidateParams{Candidate: c.candidate(job, "Applied", email), At: time.Now().UTC()})
		return err
	})
	return k, err
}

// taken checks that err is ErrEmailTaken.
func taken(t *testing.T, err error, what string) {
	t.Helper()
	assert.True(t, errors.Is(err, pipeline.ErrEmailTaken), "%s: want ErrEmailTaken, got %v", what, err)
}

func (c emailCases) userUnique(t *testing.T) {
	_, err := c.addUser("OLIVIA@Acme.Test")
	conflict(t, err, "olivia's email in capitals, on another team")
	u, err := c.store.Users().ByEmail(bg, pipeline.UserByEmailParams{Email: "Olivia@ACME.test"})
	require.NoError(t, err)
	assert.Equal(t, c.user("olivia"), u.ID)
	err = c.write(func(tx pipeline.Tx) error {
		m, err := tx.Members().Lock(bg, pipeline.LockMemberParams{Email: "OLIVIA@ACME.TEST"})
		if err == nil && m.User.ID != c.user("olivia") {
			err = fmt.Errorf("Members().Lock found user %d", m.User.ID)
		}
		return err
	})
	require.NoError(t, err)
}

func (c emailCases) userUniqueBeyondASCII(t *testing.T) {
	u, err := c.addUser("jürgen@globex.test")
	require.NoError(t, err)
	_, err = c.addUser("JÜRGEN@GLOBEX.TEST")
	conflict(t, err, "jürgen in capitals")
	found, err := c.store.Users().ByEmail(bg, pipeline.UserByEmailParams{Email: "Jürgen@Globex.Test"})
	require.NoError(t, err)
	assert.Equal(t, u.ID, found.ID)
}

func (c emailCases) racingUsers(t *testing.T) {
	globex := c.team("globex")
	for round := range 3 {
		m := newMeeting(2)
		errs := concurrently(2, func(i int) error {
			return c.write(func(tx pipeline.Tx) error {
				email := fmt.Sprintf("twin%d@globex.test", round)
				if i == 1 {
					email = fmt.Sprintf("TWIN%d@GLOBEX.TEST", round)
				}
				m.arrive()
				_, err := tx.Users().Insert(bg, pipeline.InsertUserParams{User: pipeline.User{Name: "Twin", Email: email}, TeamID: globex})
				return err
			})
		})
		c.oneWins(t, errs, func(err error) bool { return pipeline.ErrorCode(err) == pipeline.EConflict })
	}
}

func (c emailCases) candidateUnique(t *testing.T) {
	olivia, backend := c.user("olivia"), c.job("backend")
	_, err := c.addCandidate("backend", "ADA@Example.TEST")
	taken(t, err, "ada's email in capitals on backend")
	_, err = c.addCandidate("frontend", "ada@example.test")
	require.NoError(t, err, "ada's email on another job")
	err = c.write(func(tx pipeline.Tx) error {
		in, err := tx.Candidates().Intake(bg, pipeline.IntakeParams{Viewer: olivia, JobID: backend, Stage: 0, Email: "Ada@EXAMPLE.test"})
		if err != nil {
			return err
		}
		assert.True(t, in.EmailTaken, "Intake: ada's email is taken on backend")
		in, err = tx.Candidates().Intake(bg, pipeline.IntakeParams{Viewer: olivia, JobID: backend, Stage: 0, Email: "nobody@example.test"})
		if err != nil {
			return err
		}
		assert.False(t, in.EmailTaken, "Intake: a new email is free")
		for _, tc := range []struct {
			email  string
			except int64
			want   bool
		}{
			{"aDa@example.TEST", 0, true},
			{"ada@example.test", c.cand("ada"), false},
			{"ken@example.test", 0, false},
		} {
			got, err := tx.Candidates().EmailTaken(bg, pipeline.EmailTakenParams{JobID: backend, Email: tc.email, Except: tc.except})
			if err != nil {
				return err
			}
			assert.Equal(t, tc.want, got, "EmailTaken(%s, except %d)", tc.email, tc.except)
		}
		return errRollback
	})
	require.ErrorIs(t, err, errRollback)
}

func (c emailCases) candidateUniqueBeyondASCII(t *testing.T) {
	_, err := c.addCandidate("frontend", "Élodie.Ørsted@example.test")
	require.NoError(t, err)
	_, err = c.addCandidate("frontend", "éLODIE.øRSTED@EXAMPLE.TEST")
	taken(t, err, "élodie in other letter cases")
}

func (c emailCases) candidateChangedToTaken(t *testing.T) {
	olivia, backend, frontend := c.user("olivia"), c.job("backend"), c.job("frontend")
	err := c.write(func(tx pipeline.Tx) error {
		l, err := tx.Candidates().Lock(bg, pipeline.LockCandidateParams{Viewer: olivia, JobID: backend, ID: c.cand("grace")})
		if err != nil {
			return err
		}
		k := l.Candidate
		k.Email = "ADA@example.test"
		return tx.Candidates().Update(bg, pipeline.WriteCandidateParams{Candidate: k, At: time.Now().UTC()})
	})
	taken(t, err, "grace as ada")
	k, err := c.store.Candidates().Get(bg, pipeline.CandidateParams{Viewer: olivia, JobID: backend, ID: c.cand("grace")})
	require.NoError(t, err)
	assert.Equal(t, "grace@example.test", k.Email)
	_, err = c.store.Candidates().Get(bg, pipeline.CandidateParams{Viewer: olivia, JobID: frontend, ID: c.cand("ken")})
	require.NoError(t, err)
}

func (c emailCases) racingIntakes(t *testing.T) {
	gary, ops := c.user("gary"), c.job("ops")
	for round := range 3 {
		m := newMeeting(2)
		errs := concurrently(2, func(i int) error {
			return c.write(func(tx pipeline.Tx) error {
				email := fmt.Sprintf("twin%d@example.test", round)
				if i == 1 {
					email = fmt.Sprintf("Twin%d@EXAMPLE.test", round)
				}
				in, err := tx.Candidates().Intake(bg, pipeline.IntakeParams{Viewer: gary, JobID: ops, Stage: 0, Email: email})
				if err != nil {
					return err
				}
				m.arrive()
				if in.EmailTaken {
					return pipeline.ErrEmailTaken
				}
				_, err = tx.Candidates().Insert(bg, pipeline.WriteCandidateParams{Candidate: c.candidate("ops", "Applied", email), At: time.Now().UTC()})
				return err
			})
		})
		c.oneWins(t, errs, func(err error) bool { return errors.Is(err, pipeline.ErrEmailTaken) })
	}
}

// oneWins checks that exactly one of errs is nil and the others lost.
func (c conf) oneWins(t *testing.T, errs []error, lost func(error) bool) {
	t.Helper()
	wins := 0
	for _, err := range errs {
		if err == nil {
			wins++
		} else {
			assert.True(t, lost(err), "the loser's error: %v", err)
		}
	}
	assert.Equal(t, 1, wins, "exactly one wins: %v", errs)
}

// candidate is a new, active candidate of the World job key, in its stage
// named stage.
func (c conf) candidate(job, stage, email string) pipeline.Candidate {
	team := c.team("acme")
	if job == "ops" {
		team = c.team("globex")
	}
	return pipeline.Candidate{JobID: c.job(job), TeamID: team, Name: "New Candidate", Email: email,
		Applied: time.Now().UTC().Truncate(24 * time.Hour), StageID: c.res.Stages[job][stage], Stage: stage,
		Status: pipeline.CandidateActive}
}

// counts: the totals a store reports (a job's candidates, by stage and
// in all; a candidate's notes; a team's active jobs) are exact, however
// many writes ran at once.
func (c conf) counts(t *testing.T) {
	k := newCountCases(t, c)
	t.Run("stage totals after concurrent intakes", k.afterIntakes)
	t.Run("stage totals after concurrent moves", k.afterMoves)
	t.Run("a stage of another job is no stage of this one", k.stageOfAnotherJob)
	t.Run("a candidate's notes count after concurrent notes", k.notesCount)
	t.Run("a team's active jobs", k.activeJobs)
}

// counted is how many candidates the counts' intake adds at once.
const counted = 24

// countCases are the cases of the counts, on a job of globex's of their
// own, whose candidates the first case that needs them adds.
type countCases struct {
	conf
	gary, globex int64
	now          time.Time
	countedJob   pipeline.Job
	stages       []pipeline.Stage
	mu           *sync.Mutex
	where        map[int64]int64 // each candidate's stage, as the writes left it
}

// newCountCases stores the counted job of gary's.
func newCountCases(t *testing.T, c conf) countCases {
	k := countCases{conf: c, gary: c.user("gary"), globex: c.team("globex"), now: time.Now().UTC().Truncate(time.Second),
		mu: &sync.Mutex{}, where: make(map[int64]int64, counted)}
	require.NoError(t, c.write(func(tx pipeline.Tx) (err error) {
		k.countedJob, err = tx.Jobs().Insert(bg, pipeline.InsertJobParams{Job: pipeline.Job{TeamID: k.globex, OwnerID: k.gary, Title: "Counted", Status: pipeline.JobOpen,
			WorkMode: pipeline.DefaultWorkMode, EmploymentType: pipeline.DefaultEmploymentType,
			ApplicationDeadline: k.now.AddDate(0, 0, 30).Truncate(24 * time.Hour), CreatedAt: k.now, UpdatedAt: k.now}, Stages: pipeline.DefaultStages})
		return err
	}))
	var err error
	k.stages, err = c.store.Jobs().Stages(bg, pipeline.JobParams{Viewer: k.gary, ID: k.countedJob.ID})
	require.NoError(t, err)
	require.Len(t, k.stages, len(pipeline.DefaultStages))
	return k
}

// check checks the job's total and each stage's against where.
func (c countCases) check(t *testing.T, when string) {
	t.Helper()
	want := map[int64]int{}
	for _, s := range c.where {
		want[s]++
	}
	all, err := c.store.Candidates().List(bg, pipeline.ListCandidatesParams{Viewer: c.gary, JobID: c.countedJob.ID, Filter: pipeline.CandidateFilter{Page: 1}})
	require.NoError(t, err)
	assert.Equal(t, len(c.where), all.Total, "%s: the job's total", when)
	for _, s := range c.stages {
		var ids []int64
		total := -1
		for page := 1; ; page++ {
			l, err := c.store.Candidates().List(bg, pipeline.ListCandidatesParams{Viewer: c.gary, JobID: c.countedJob.ID, Filter: pipeline.CandidateFilter{StageID: s.ID, Page: page}})
			require.NoError(t, err)
			if total < 0 {
				total = l.Total
			}
			for _, k := range l.Items {
				ids = append(ids, k.ID)
				assert.Equal(t, s.ID, k.StageID)
			}
			if len(l.Items) < pipeline.PageSize {
				break
			}
		}
		assert.Equal(t, want[s.ID], total, "%s: the total of stage %s", when, s.Name)
		assert.Len(t, ids, want[s.ID], "%s: the candidates listed in stage %s", when, s.Name)
	}
}

// intake adds counted candidates to the job at once, half of them to its
// first stage, half to its second, unless that was done.
func (c countCases) intake(t *testing.T) {
	t.Helper()
	if len(c.where) > 0 {
		return
	}
	errs := concurrently(counted, func(i int) error {
		return c.write(func(tx pipeline.Tx) error {
			s := c.stages[i%2]
			email := fmt.Sprintf("counted%d@example.test", i)
			in, err := tx.Candidates().Intake(bg, pipeline.IntakeParams{Viewer: c.gary, JobID: c.countedJob.ID, Stage: s.ID, Email: email})
			if err != nil {
				return err
			}
			k, err := tx.Candidates().Insert(bg, pipeline.WriteCandidateParams{Candidate: pipeline.Candidate{JobID: c.countedJob.ID, TeamID: c.globex, Name: "Counted", Email: email,
				Applied: c.now.Truncate(24 * time.Hour), StageID: in.Stage.ID, Stage: in.Stage.Name, Status: pipeline.CandidateActive}, At: c.now})
			if err != nil {
				return err
			}
			c.mu.Lock()
			c.where[k.ID] = s.ID
			c.mu.Unlock()
			return nil
		})
	})
	require.NoError(t, errors.Join(errs...))
}

func (c countCases) afterIntakes(t *testing.T) {
	c.intake(t)
	c.check(t, "after the intakes")
}

func (c countCases) afterMoves(t *testing.T) {
	c.intake(t)
	ids := make([]int64, 0, counted)
	for id := range c.where {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for round := range 3 {
		errs := concurrently(counted, func(i int) error {
			target := c.stages[(i+round+1)%len(c.stages)]
			return c.write(func(tx pipeline.Tx) error {
				l, err := tx.Candidates().Lock(bg, pipeline.LockCandidateParams{Viewer: c.gary, JobID: c.countedJob.ID, ID: ids[i], Stage: target.ID})
				if err != nil {
					return err
				}
				k, st := l.Candidate, l.Stage
				if st == nil {
					return fmt.Errorf("stage %d not found for the move", target.ID)
				}
				if k.StageID == st.ID {
					return nil
				}
				if err := tx.Candidates().SetStage(bg, pipeline.SetStageParams{CandidateID: k.ID, StageID: st.ID, At: c.now}); err != nil {
					return err
				}
				c.mu.Lock()
				c.where[k.ID] = st.ID
				c.mu.Unlock()
				return nil
			})
		})
		require.NoError(t, errors.Join(errs...))
		c.check(t, fmt.Sprintf("after moves %d", round))
	}
	// A store may keep the counts by parts that it gathers later (see
	// pipelinestore's stage count deltas): read again once it could.
	time.Sleep(300 * time.Millisecond)
	c.check(t, "a moment after the moves")
}

func (c countCases) stageOfAnotherJob(t *testing.T) {
	_, err := c.store.Candidates().List(bg, pipeline.ListCandidatesParams{Viewer: c.gary, JobID: c.countedJob.ID, Filter: pipeline.CandidateFilter{StageID: c.res.Stages["ops"]["Applied"], Page: 1}})
	assert.ErrorIs(t, err, pipeline.ErrStageNotInJob)
}

func (c countCases) notesCount(t *testing.T) {
	gary, ola, ops := c.gary, c.cand("ola"), c.job("ops")
	const notes = 12
	errs := concurrently(notes, func(i int) error {
		return c.write(func(tx pipeline.Tx) error {
			k, err := tx.Candidates().Lock(bg, pipeline.LockCandidateParams{Viewer: gary, JobID: ops, ID: ola})
			if err != nil {
				return err
			}
			_, err = tx.Notes().Insert(bg, pipeline.Note{CandidateID: k.Candidate.ID, Content: fmt.Sprintf("note %d", i),
				Author: pipeline.User{ID: gary}, CreatedAt: c.now})
			return err
		})
	})
	require.NoError(t, errors.Join(errs...))
	k, err := c.store.Candidates().Get(bg, pipeline.CandidateParams{Viewer: gary, JobID: ops, ID: ola})
	require.NoError(t, err)
	assert.Equal(t, notes, k.NotesCount, "Candidate's notes count")
	l, err := c.store.Notes().List(bg, pipeline.ListNotesParams{Viewer: gary, JobID: ops, CandidateID: ola, Page: 1})
	require.NoError(t, err)
	assert.Equal(t, notes, l.Total, "List's total")
	assert.Len(t, l.Items, notes)
	l, err = c.store.Notes().List(bg, pipeline.ListNotesParams{Viewer: gary, JobID: ops, CandidateID: ola, Page: 2})
	require.NoError(t, err)
	assert.Equal(t, notes, l.Total, "List's total past the last page")
	assert.Empty(t, l.Items)
	require.NoError(t, c.write(func(tx pipeline.Tx) error {
		k, err := tx.Candidates().Lock(bg, pipeline.LockCandidateParams{Viewer: gary, JobID: ops, ID: ola})
		assert.Equal(t, notes, k.Candidate.NotesCount, "Lock's notes count")
		return err
	}))
}

// activeJobCount counts globex's active jobs in a write.
func (c countCases) activeJobCount(t *testing.T) int {
	t.Helper()
	var n int
	require.NoError(t, c.write(func(tx pipeline.Tx) (err error) {
		n, err = tx.Jobs().CountActive(bg, pipeline.TeamParams{ID: c.globex})
		return err
	}))
	return n
}

// setStatus sets the counted job's status.
func (c countCases) setStatus(t *testing.T, s pipeline.JobStatus) {
	t.Helper()
	require.NoError(t, c.write(func(tx pipeline.Tx) error {
		j, err := tx.Jobs().Lock(bg, pipeline.JobParams{Viewer: c.gary, ID: c.countedJob.ID})
		if err != nil {
			return err
		}
		j.Status, j.UpdatedAt = s, time.Now().UTC()
		return tx.Jobs().Update(bg, j)
	}))
}

func (c countCases) activeJobs(t *testing.T) {
	assert.Equal(t, 2, c.activeJobCount(t), "ops and the counted job")
	c.setStatus(t, pipeline.JobClosed)
	assert.Equal(t, 1, c.activeJobCount(t), "the counted job closed")
	c.setStatus(t, pipeline.JobDraft)
	assert.Equal(t, 2, c.activeJobCount(t), "a draft is active")
	c.setStatus(t, pipeline.JobOpen)
	l, err := c.store.Jobs().List(bg, pipeline.ListJobsParams{Viewer: c.gary, Filter: pipeline.JobFilter{Status: pipeline.JobOpen, Page: 1}})
	require.NoError(t, err)
	assert.Equal(t, 2, l.Total)
	assert.Len(t, l.Items, 2)
}
