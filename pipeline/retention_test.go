package pipeline_test

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

const day = 24 * time.Hour

func TestOperator_SetRetention(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		clock := &movableClock{now: time.Now().UTC().Truncate(time.Second)}
		w := storetest.Seeded(t, db, hookOptions(pipeline.WithClock(clock))...)
		ctx, acme := context.Background(), w.Res.Teams["acme"]
		for _, bad := range []int{-1, 1, 29, 3651} {
			_, err := w.Op.SetRetention(ctx, acme, bad)
			assert.Equal(t, pipeline.EValidation, pipeline.ErrorCode(err), "%d days", bad)
		}
		_, err := w.Op.SetRetention(ctx, 1<<40, 30)
		assert.Equal(t, pipeline.ENotFound, pipeline.ErrorCode(err))

		stored := func() pipeline.Retention {
			teams, err := w.Op.Teams(ctx)
			require.NoError(t, err)
			for _, tm := range teams {
				if tm.ID == acme {
					return tm.Retention
				}
			}
			t.Fatal("no team acme")
			return pipeline.Retention{}
		}
		assert.Zero(t, stored().At(clock.Now()), "off by default")

		// A new period takes effect 7 days after it is set.
		set, err := w.Op.SetRetention(ctx, acme, 90)
		require.NoError(t, err)
		assert.Equal(t, 90, set.Retention.Days)
		r := stored()
		assert.Equal(t, 0, r.At(clock.Now()))
		assert.Equal(t, 0, r.At(clock.Now().Add(7*day-time.Second)))
		assert.Equal(t, 90, r.At(clock.Now().Add(7*day)))

		// A shorter one too, the one in effect kept until then.
		clock.Advance(10 * day)
		_, err = w.Op.SetRetention(ctx, acme, 30)
		require.NoError(t, err)
		r = stored()
		assert.Equal(t, 90, r.At(clock.Now()))
		assert.Equal(t, 30, r.At(clock.Now().Add(7*day)))

		// Setting again within the 7 days keeps the period in effect, not
		// the one still pending.
		clock.Advance(day)
		_, err = w.Op.SetRetention(ctx, acme, 60)
		require.NoError(t, err)
		assert.Equal(t, 90, stored().At(clock.Now()))

		// A longer one, and turning it off, apply at once.
		_, err = w.Op.SetRetention(ctx, acme, 365)
		require.NoError(t, err)
		assert.Equal(t, 365, stored().At(clock.Now()))
		_, err = w.Op.SetRetention(ctx, acme, 0)
		require.NoError(t, err)
		assert.Equal(t, 0, stored().At(clock.Now()))
	})
}

// swept is what a pass returned, as candidate id → why.
func swept(t *testing.T, xs []pipeline.Swept, err error) map[int64]string {
	t.Helper()
	require.NoError(t, err)
	out := map[int64]string{}
	for _, x := range xs {
		out[x.CandidateID] = x.Why
	}
	return out
}

func TestService_SweepRetention(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		clock := &movableClock{now: time.Now().UTC().Truncate(time.Second)}
		w := storetest.Seeded(t, db, hookOptions(pipeline.WithClock(clock))...)
		ctx, bg := w.As(t, "olivia"), context.Background()
		backend, frontend, design := w.Job("backend"), w.Job("frontend"), w.Job("design")
		grace, linus, ken := w.Res.Candidates["grace"], w.Res.Candidates["linus"], w.Res.Candidates["ken"]
		closed, open := pipeline.JobClosed, pipeline.JobOpen

		// Linus applied to design too: that application stays.
		again, err := w.Svc.AddCandidate(ctx, design, pipeline.NewCandidate{Name: "Linus Torvalds", Email: "linus@example.test"})
		require.NoError(t, err)
		hired, err := w.Svc.AddCandidate(ctx, frontend, pipeline.NewCandidate{Name: "Hank Hired", Email: "hank@example.test"})
		require.NoError(t, err)
		_, err = w.Svc.UpdateCandidate(ctx, frontend, hired.Value.ID, pipeline.CandidatePatch{Status: new(pipeline.CandidateHired)})
		require.NoError(t, err)
		_, err = w.Svc.UpdateCandidate(ctx, backend, grace, pipeline.CandidatePatch{Status: new(pipeline.CandidateRejected)})
		require.NoError(t, err)
		// Globex has no retention: its closed job's candidate stays.
		_, err = w.Svc.UpdateJob(w.As(t, "gary"), w.Job("ops"), pipeline.JobPatch{Status: &closed})
		require.NoError(t, err)

		// Frontend closes, reopens, and closes again on day 5: its last
		// change to closed counts; a change of its title does not.
		_, err = w.Svc.UpdateJob(ctx, frontend, pipeline.JobPatch{Status: &closed})
		require.NoError(t, err)
		clock.Advance(day)
		_, err = w.Svc.UpdateJob(ctx, frontend, pipeline.JobPatch{Status: &open})
		require.NoError(t, err)
		clock.Advance(4 * day)
		_, err = w.Svc.UpdateJob(ctx, frontend, pipeline.JobPatch{Status: &closed})
		require.NoError(t, err)
		clock.Advance(day)

		// Day 6: 30 days set, in effect from day 13.
		_, err = w.Op.SetRetention(bg, w.Res.Teams["acme"], 30)
		require.NoError(t, err)
		clock.Advance(4 * day)
		_, err = w.Svc.UpdateJob(ctx, frontend, pipeline.JobPatch{Title: new("Frontend, closed")})
		require.NoError(t, err)
		clock.Advance(16 * day) // day 26
		_, err = w.Svc.AddNote(ctx, backend, grace, pipeline.NewNote{Content: "Kept for the next opening."})
		require.NoError(t, err)
		got, err := w.Svc.SweepRetention(bg, false)
		assert.Empty(t, swept(t, got, err), "nothing is 30 days old on day 26")

		clock.Advance(10 * day) // day 36: frontend closed 31 days ago
		got, err = w.Svc.SweepRetention(bg, true)
		want := map[int64]string{ken: pipeline.SweptJobClosed, linus: pipeline.SweptRejected}
		assert.Equal(t, want, swept(t, got, err), "dry run")
		k, err := w.Svc.GetCandidate(ctx, frontend, ken)
		require.NoError(t, err)
		assert.Equal(t, "Ken Thompson", k.Name, "a dry run erases nothing")

		got, err = w.Svc.SweepRetention(bg, false)
		assert.Equal(t, want, swept(t, got, err))
		for _, x := range got {
			assert.Equal(t, "acme", x.TeamKey)
		}
		for job, id := range map[int64]int64{frontend: ken, backend: linus} {
			c, err := w.Svc.GetCandidate(ctx, job, id)
			require.NoError(t, err)
			assert.Equal(t, pipeline.ErasedName, c.Name)
			assert.NotNil(t, c.ErasedAt)
		}
		for job, id := range map[int64]int64{frontend: hired.Value.ID, design: again.Value.ID, backend: grace} {
			c, err := w.Svc.GetCandidate(ctx, job, id)
			require.NoError(t, err)
			assert.Nil(t, c.ErasedAt, "candidate %d", id)
		}
		ola, err := w.Svc.GetCandidate(w.As(t, "gary"), w.Job("ops"), w.Res.Candidates["ola"])
		require.NoError(t, err)
		assert.Nil(t, ola.ErasedAt)

		// Logged as any erasure, by the server itself.
		var erased []int64
		var counts []string
		for _, a := range w.Activity(t) {
			switch a.Action {
			case pipeline.ActionCandidateErased:
				erased = append(erased, a.SubjectID)
			case pipeline.ActionPrivacyErased:
				counts = append(counts, string(a.Changes))
			default:
				continue
			}
			assert.Zero(t, a.UserID, a.Action)
			assert.Zero(t, a.TokenID, a.Action)
			assert.Empty(t, a.IP, a.Action)
			assert.Equal(t, new("Retention period of 30 days."), a.Reason, "%s carries the erasure's reason", a.Action)
		}
		assert.ElementsMatch(t, []int64{ken, linus}, erased)
		assert.Equal(t, []string{`{"count":2}`}, counts)

		got, err = w.Svc.SweepRetention(bg, false)
		assert.Empty(t, swept(t, got, err), "a second pass erases none")

		// Grace's last activity, the note of day 26, is 30 days old on
		// day 56.
		clock.Advance(20 * day)
		got, err = w.Svc.SweepRetention(bg, false)
		assert.Equal(t, map[int64]string{grace: pipeline.SweptRejected}, swept(t, got, err))
	})
}

// TestService_SweepRetention_twoReplicas runs the pass on two Services,
// each on its own handle of one database, at once: each candidate is
// erased once, as the candidate.erased entries count.
func TestService_SweepRetention_twoReplicas(t *testing.T) {
	t.Parallel()
	each := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "pipeline.db") },
		"postgres": func(t *testing.T) string { return storetest.PostgresSchemaDSN(t) },
	}
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			dsn := each[name](t)
			a, b := openMigrated(t, dsn), openMigrated(t, dsn)
			clock := &movableClock{now: time.Now().UTC().Truncate(time.Second)}
			opts := hookOptions(pipeline.WithClock(clock))
			w := storetest.Seeded(t, a, opts...)
			other := pipeline.NewService(b, opts...)
			ctx, bg, backend := w.As(t, "olivia"), context.Background(), w.Job("backend")

			// More than a batch of rejected candidates, and linus.
			const n = pipeline.RetentionBatch + 30
			for i := range n {
				c, err := w.Svc.AddCandidate(ctx, backend, pipeline.NewCandidate{Name: "Person", Email: "p" + strconv.Itoa(i) + "@example.test"})
				require.NoError(t, err)
				_, err = w.Svc.UpdateCandidate(ctx, backend, c.Value.ID, pipeline.CandidatePatch{Status: new(pipeline.CandidateRejected)})
				require.NoError(t, err)
			}
			_, err := w.Op.SetRetention(bg, w.Res.Teams["acme"], 30)
			require.NoError(t, err)
			clock.Advance(40 * day)

			var wg sync.WaitGroup
			results := make([][]pipeline.Swept, 2)
			errs := make([]error, 2)
			for i, svc := range []*pipeline.Service{w.Svc, other} {
				wg.Go(func() { results[i], errs[i] = svc.SweepRetention(bg, false) })
			}
			wg.Wait()
			require.NoError(t, errs[0])
			require.NoError(t, errs[1])
			assert.Equal(t, n+1, len(results[0])+len(results[1]), "the passes' erasures together")

			perCandidate := map[int64]int{}
			for _, e := range w.Activity(t) {
				if e.Action == pipeline.ActionCandidateErased {
					perCandidate[e.SubjectID]++
				}
			}
			assert.Len(t, perCandidate, n+1)
			for id, times := range perCandidate {
				assert.Equal(t, 1, times, "candidate %d erased %d times", id, times)
			}
		})
	}
}

// TestDeliveries_RetentionPass: the queue runs the pass when it starts,
// and hourly after.
func TestDeliveries_RetentionPass(t *testing.T) {
	t.Parallel()
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		clock := &movableClock{now: time.Now().UTC().Truncate(time.Second)}
		w := storetest.Seeded(t, db, hookOptions(pipeline.WithClock(clock))...)
		bg, linus := context.Background(), w.Res.Candidates["linus"] // rejected
		_, err := w.Op.SetRetention(bg, w.Res.Teams["acme"], 30)
		require.NoError(t, err)
		clock.Advance(40 * day)

		run, err := db.StartDeliveries(bg, pipeline.NewDispatcher(db, &syncRecorder{}, hookOptions()...),
			pipelinestore.DeliveryConfig{PollInterval: 20 * time.Millisecond, Sweeper: w.Svc})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, run.Stop(bg)) })
		ctx := w.As(t, "olivia")
		require.Eventually(t, func() bool {
			c, err := w.Svc.GetCandidate(ctx, w.Job("backend"), linus)
			return err == nil && c.ErasedAt != nil
		}, 30*time.Second, 50*time.Millisecond, "the pass ran")
	})
}
