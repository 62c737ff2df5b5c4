package pipeline_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestService_MoveRules: a candidate moves to any stage of its own job,
// forward or back, and never to a stage of another job.
func TestService_MoveRules(t *testing.T) {
	eachWorld(t, "through every stage and back", func(t *testing.T, w world) {
		ctx := w.As(t, "mia")
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		path := []string{"Screening", "Interview", "Offer", "Hired", "Applied"}
		prev := "Applied"
		for _, stage := range path {
			res, err := w.Svc.MoveCandidate(ctx, job, ada, pipeline.CandidateMove{StageID: w.Res.Stages["backend"][stage]})
			require.NoError(t, err, stage)
			assert.Equal(t, stage, res.Value.Stage)
			assert.Equal(t, w.Res.Stages["backend"][stage], res.Value.StageID)
			l, err := w.Svc.ListCandidates(ctx, job, pipeline.CandidateFilter{StageID: res.Value.StageID})
			require.NoError(t, err)
			assert.Contains(t, candidateNames(l.Items), "Ada Lovelace", "listed in %s", stage)
			log := w.Activity(t)
			last := log[len(log)-1]
			assert.Equal(t, map[string]any{"stage": map[string]any{"before": prev, "after": stage}}, changesOf(t, last))
			prev = stage
		}
		log := w.Activity(t)
		require.Len(t, log, len(path))
		for _, a := range log {
			assert.Equal(t, pipeline.ActionCandidateStageChanged, a.Action)
			assert.Equal(t, pipeline.SubjectCandidate, a.SubjectType)
			assert.Equal(t, ada, a.SubjectID)
			assert.Equal(t, job, a.JobID)
			assert.Equal(t, w.Res.Teams["acme"], a.TeamID)
			assert.Equal(t, storetest.IP, a.IP)
			assert.NotZero(t, a.TokenID)
		}
	})
	eachWorld(t, "a stage of another job is invalid, whether or not the caller reaches that job", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		job, grace := w.Job("backend"), w.Res.Candidates["grace"]
		for _, other := range []string{"frontend", "design", "ops"} {
			_, err := w.Svc.MoveCandidate(ctx, job, grace, pipeline.CandidateMove{StageID: w.Res.Stages[other]["Interview"]})
			require.ErrorIs(t, err, pipeline.ErrValidation, other)
			assert.Equal(t, []string{"stage"}, fieldNames(err), other)
		}
		_, err := w.Svc.MoveCandidate(ctx, job, grace, pipeline.CandidateMove{StageID: -3})
		assert.ErrorIs(t, err, pipeline.ErrValidation, "a negative stage")
		c, err := w.Svc.GetCandidate(ctx, job, grace)
		require.NoError(t, err)
		assert.Equal(t, "Screening", c.Stage, "she did not move")
		assert.Empty(t, w.Activity(t))
	})
	eachWorld(t, "a move through the Operator is logged without a token", func(t *testing.T, w world) {
		ctx := actAs(t, w, "adam", pipeline.ScopeCandidatesWrite)
		_, err := w.Svc.MoveCandidate(ctx, w.Job("design"), w.Res.Candidates["don"], pipeline.CandidateMove{StageID: w.Res.Stages["design"]["Offer"]})
		require.NoError(t, err)
		log := w.Activity(t)
		require.Len(t, log, 1)
		assert.Zero(t, log[0].TokenID)
		assert.Equal(t, w.User("adam"), log[0].UserID)
		assert.Equal(t, w.Job("design"), log[0].JobID)
	})
}

// candidateNames lists the names of candidates, in order.
func candidateNames(cs []pipeline.Candidate) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

// TestService_NoteRules: a note is 1 to 5,000 characters that are not all
// blank; each adds to the candidate's notes count and to the log.
func TestService_NoteRules(t *testing.T) {
	eachWorld(t, "lengths and blanks", func(t *testing.T, w world) {
		for _, tc := range []struct {
			name    string
			content string
			ok      bool
		}{
			{"5,000 ASCII characters", strings.Repeat("a", 5000), true},
			{"5,000 characters of four bytes", strings.Repeat("😀", 5000), true},
			{"one character", "x", true},
			{"5,001 characters", strings.Repeat("a", 5001), false},
			{"empty", "", false},
			{"blanks only", "\t \r\n ", false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ctx := w.As(t, "mia")
				job, ada := w.Job("backend"), w.Res.Candidates["ada"]
				before, err := w.Svc.GetCandidate(ctx, job, ada)
				require.NoError(t, err)
				logged := len(w.Activity(t))
				res, err := w.Svc.AddNote(ctx, job, ada, pipeline.NewNote{Content: tc.content})
				after, cerr := w.Svc.GetCandidate(ctx, job, ada)
				require.NoError(t, cerr)
				if !tc.ok {
					require.ErrorIs(t, err, pipeline.ErrValidation)
					assert.Equal(t, []string{"content"}, fieldNames(err))
					assert.Equal(t, before.NotesCount, after.NotesCount)
					assert.Len(t, w.Activity(t), logged)
					return
				}
				require.NoError(t, err)
				assert.Equal(t, tc.content, res.Value.Content)
				assert.Equal(t, ada, res.Value.CandidateID)
				assert.Equal(t, before.NotesCount+1, after.NotesCount)
				assert.Len(t, w.Activity(t), logged+1)
			})
		}
	})
	eachWorld(t, "notes of several authors on several candidates", func(t *testing.T, w world) {
		job := w.Job("backend")
		ada, grace := w.Res.Candidates["ada"], w.Res.Candidates["grace"]
		for _, n := range []struct {
			token string
			cand  int64
		}{{"mia", ada}, {"olivia", ada}, {"adam", grace}} {
			res, err := w.Svc.AddNote(w.As(t, n.token), job, n.cand, pipeline.NewNote{Content: "From " + n.token})
			require.NoError(t, err)
			assert.Equal(t, w.User(n.token), res.Value.Author.ID)
			assert.NotEmpty(t, res.Value.Author.Name)
		}
		l, err := w.Svc.ListCandidates(w.As(t, "mia"), job, pipeline.CandidateFilter{})
		require.NoError(t, err)
		counts := map[string]int{}
		for _, c := range l.Items {
			counts[c.Name] = c.NotesCount
		}
		assert.Equal(t, map[string]int{"Ada Lovelace": 2, "Grace Hopper": 1, "Linus Torvalds": 0}, counts)
		log := w.Activity(t)
		require.Len(t, log, 3)
		assert.Equal(t, []int64{ada, ada, grace}, []int64{log[0].SubjectID, log[1].SubjectID, log[2].SubjectID})
		for _, a := range log {
			assert.Equal(t, pipeline.ActionCandidateNoteAdded, a.Action)
			assert.Equal(t, job, a.JobID)
			assert.Contains(t, changesOf(t, a), "note_id")
		}
	})
}

// TestService_RatingRules: one rating per user and candidate, replaced by
// a different value, left alone by the same one.
func TestService_RatingRules(t *testing.T) {
	eachWorld(t, "each value replaces the last", func(t *testing.T, w world) {
		ctx := w.As(t, "nina")
		job, ken := w.Job("frontend"), w.Res.Candidates["ken"]
		values := []pipeline.RatingValue{pipeline.NotAFit, pipeline.Maybe, pipeline.GoodFit, pipeline.NotAFit}
		for _, v := range values {
			res, err := w.Svc.RateCandidate(ctx, job, ken, pipeline.NewRating{Value: v})
			require.NoError(t, err)
			assert.Equal(t, v, res.Value.Value)
			assert.Equal(t, ken, res.Value.CandidateID)
			assert.Equal(t, w.User("nina"), res.Value.UserID)
		}
		log := w.Activity(t)
		require.Len(t, log, len(values))
		var before any
		for i, a := range log {
			assert.Equal(t, pipeline.ActionCandidateRated, a.Action)
			assert.Equal(t, ken, a.SubjectID)
			assert.Equal(t, job, a.JobID)
			assert.Equal(t, map[string]any{"rating": map[string]any{"before": before, "after": string(values[i])}}, changesOf(t, a))
			before = string(values[i])
		}
	})
	eachClockedWorld(t, "the same value later changes nothing", func(t *testing.T, w world, clock *time.Time) {
		ctx := w.As(t, "olivia")
		job, don := w.Job("design"), w.Res.Candidates["don"]
		first, err := w.Svc.RateCandidate(ctx, job, don, pipeline.NewRating{Value: pipeline.GoodFit})
		require.NoError(t, err)
		assert.Equal(t, *clock, first.Value.UpdatedAt)
		*clock = clock.Add(time.Hour)
		same, err := w.Svc.RateCandidate(ctx, job, don, pipeline.NewRating{Value: pipeline.GoodFit})
		require.NoError(t, err)
		assert.Equal(t, first.Value, same.Value, "the rating as it was, with its time")
		assert.False(t, same.Replayed)
		*clock = clock.Add(time.Hour)
		changed, err := w.Svc.RateCandidate(ctx, job, don, pipeline.NewRating{Value: pipeline.Maybe})
		require.NoError(t, err)
		assert.Equal(t, *clock, changed.Value.UpdatedAt)
		assert.Equal(t, []string{pipeline.ActionCandidateRated, pipeline.ActionCandidateRated}, actionsOf(w.Activity(t)))
	})
	eachWorld(t, "another user's rating is not replaced", func(t *testing.T, w world) {
		job, grace := w.Job("backend"), w.Res.Candidates["grace"]
		_, err := w.Svc.RateCandidate(w.As(t, "mia"), job, grace, pipeline.NewRating{Value: pipeline.GoodFit})
		require.NoError(t, err)
		_, err = w.Svc.RateCandidate(w.As(t, "olivia"), job, grace, pipeline.NewRating{Value: pipeline.GoodFit})
		require.NoError(t, err)
		log := w.Activity(t)
		require.Len(t, log, 2, "the same value from another user is a rating of its own")
		assert.Equal(t, map[string]any{"rating": map[string]any{"before": nil, "after": "good_fit"}}, changesOf(t, log[1]))
		assert.Equal(t, w.User("olivia"), log[1].UserID)
	})
}

// TestService_CandidateReads: what a candidate and the candidate list show.
func TestService_CandidateReads(t *testing.T) {
	eachWorld(t, "one candidate", func(t *testing.T, w world) {
		ctx := w.As(t, "mia")
		job := w.Job("backend")
		ada, err := w.Svc.GetCandidate(ctx, job, w.Res.Candidates["ada"])
		require.NoError(t, err)
		assert.Equal(t, pipeline.Candidate{
			ID: w.Res.Candidates["ada"], JobID: job, TeamID: w.Res.Teams["acme"],
			Name: "Ada Lovelace", Email: "ada@example.test", Applied: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC),
			StageID: w.Res.Stages["backend"]["Applied"], Stage: "Applied", Status: pipeline.CandidateActive,
			ResumeURL: "https://files.example.test/ada.pdf",
		}, ada)
		linus, err := w.Svc.GetCandidate(ctx, job, w.Res.Candidates["linus"])
		require.NoError(t, err)
		assert.Equal(t, pipeline.CandidateRejected, linus.Status)
		assert.Empty(t, linus.ResumeURL)
	})
	eachWorld(t, "search by name or email, case-insensitive, with a stage", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		job := w.Job("backend")
		applied := w.Res.Stages["backend"]["Applied"]
		for _, tc := range []struct {
			f    pipeline.CandidateFilter
			want []string
		}{
			{pipeline.CandidateFilter{Search: "LOVELACE"}, []string{"Ada Lovelace"}},
			{pipeline.CandidateFilter{Search: "grace@EXAMPLE"}, []string{"Grace Hopper"}},
			{pipeline.CandidateFilter{Search: "example.test"}, []string{"Grace Hopper", "Ada Lovelace", "Linus Torvalds"}},
			{pipeline.CandidateFilter{Search: "o", StageID: applied}, []string{"Ada Lovelace", "Linus Torvalds"}},
			{pipeline.CandidateFilter{Search: "hopper", StageID: applied}, []string{}},
			{pipeline.CandidateFilter{StageID: w.Res.Stages["backend"]["Hired"]}, []string{}},
			{pipeline.CandidateFilter{Search: "ken"}, []string{}},
			{pipeline.CandidateFilter{Page: 2}, []string{}},
		} {
			l, err := w.Svc.ListCandidates(ctx, job, tc.f)
			require.NoError(t, err)
			assert.Equal(t, tc.want, candidateNames(l.Items), "%+v", tc.f)
		}
	})
}
