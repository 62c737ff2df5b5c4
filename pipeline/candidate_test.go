package pipeline_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

func TestService_ListCandidates(t *testing.T) {
	each(t, "newest applicant first", func(t *testing.T, w world) {
		l, err := w.Svc.ListCandidates(w.As(t, "mia"), w.Job("backend"), pipeline.CandidateFilter{})
		require.NoError(t, err)
		var names []string
		for _, c := range l.Items {
			names = append(names, c.Name)
		}
		assert.Equal(t, []string{"Grace Hopper", "Ada Lovelace", "Linus Torvalds"}, names)
		assert.Equal(t, 3, l.Total)
	})
	each(t, "a stage of the job", func(t *testing.T, w world) {
		l, err := w.Svc.ListCandidates(w.As(t, "mia"), w.Job("backend"), pipeline.CandidateFilter{StageID: w.Res.Stages["backend"]["Applied"]})
		require.NoError(t, err)
		assert.Equal(t, 2, l.Total)
	})
	for name, stage := range map[string]func(w world) int64{
		"a stage of another job": func(w world) int64 { return w.Res.Stages["ops"]["Applied"] },
		"no such stage":          func(world) int64 { return missing },
		"a negative stage":       func(world) int64 { return -1 },
	} {
		each(t, name, func(t *testing.T, w world) {
			_, err := w.Svc.ListCandidates(w.As(t, "mia"), w.Job("backend"), pipeline.CandidateFilter{StageID: stage(w)})
			require.ErrorIs(t, err, pipeline.ErrValidation)
			assert.Contains(t, pipeline.Fields(err), "stage")
		})
	}
	each(t, "not found before invalid", func(t *testing.T, w world) {
		_, err := w.Svc.ListCandidates(w.As(t, "mia"), w.Job("design"), pipeline.CandidateFilter{Page: -1})
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
	})
}

func TestService_MoveCandidate(t *testing.T) {
	each(t, "ok", func(t *testing.T, w world) {
		ctx := w.As(t, "mia")
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		res, err := w.Svc.MoveCandidate(ctx, job, ada, pipeline.CandidateMove{StageID: w.Res.Stages["backend"]["Screening"]})
		require.NoError(t, err)
		assert.Equal(t, "Screening", res.Value.Stage)
		got, err := w.Svc.GetCandidate(ctx, job, ada)
		require.NoError(t, err)
		assert.Equal(t, res.Value, got)
		log := w.Activity(t)
		require.Len(t, log, 1)
		assert.Equal(t, pipeline.ActionCandidateStageChanged, log[0].Action)
		assert.Equal(t, "candidate", log[0].SubjectType)
		assert.Equal(t, ada, log[0].SubjectID)
		assert.JSONEq(t, `{"stage":{"before":"Applied","after":"Screening"}}`, string(log[0].Changes))
	})
	each(t, "same stage is left alone", func(t *testing.T, w world) {
		res, err := w.Svc.MoveCandidate(w.As(t, "mia"), w.Job("backend"), w.Res.Candidates["grace"],
			pipeline.CandidateMove{StageID: w.Res.Stages["backend"]["Screening"]})
		require.NoError(t, err)
		assert.Equal(t, "Screening", res.Value.Stage)
		assert.Empty(t, w.Activity(t))
	})
	for name, stage := range map[string]func(w world) int64{
		"stage of another job": func(w world) int64 { return w.Res.Stages["ops"]["Applied"] },
		"no such stage":        func(world) int64 { return missing },
		"missing stage":        func(world) int64 { return 0 },
	} {
		each(t, name, func(t *testing.T, w world) {
			_, err := w.Svc.MoveCandidate(w.As(t, "mia"), w.Job("backend"), w.Res.Candidates["ada"], pipeline.CandidateMove{StageID: stage(w)})
			require.ErrorIs(t, err, pipeline.ErrValidation)
			assert.Contains(t, pipeline.Fields(err), "stage")
			assert.Empty(t, w.Activity(t))
		})
	}
}

func TestService_AddNote(t *testing.T) {
	each(t, "ok", func(t *testing.T, w world) {
		ctx := w.As(t, "mia")
		job, grace := w.Job("backend"), w.Res.Candidates["grace"]
		var ids []int64
		for i := range 3 {
			res, err := w.Svc.AddNote(ctx, job, grace, pipeline.NewNote{Content: fmt.Sprintf("Note %d", i)})
			require.NoError(t, err)
			assert.Equal(t, pipeline.User{ID: w.User("mia"), Name: "Mia Member"}, res.Value.Author)
			ids = append(ids, res.Value.ID)
		}
		c, err := w.Svc.GetCandidate(ctx, job, grace)
		require.NoError(t, err)
		assert.Equal(t, 3, c.NotesCount)

		log := w.Activity(t)
		require.Len(t, log, 3)
		for i, a := range log {
			assert.Equal(t, pipeline.ActionCandidateNoteAdded, a.Action)
			assert.JSONEq(t, fmt.Sprintf(`{"note_id":%d}`, ids[i]), string(a.Changes))
		}
	})
	each(t, "5,000 characters, not bytes", func(t *testing.T, w world) {
		_, err := w.Svc.AddNote(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"],
			pipeline.NewNote{Content: strings.Repeat("ü", 5000)})
		assert.NoError(t, err)
	})
	for name, content := range map[string]string{"too long": strings.Repeat("ü", 5001), "blank": " \n "} {
		each(t, name, func(t *testing.T, w world) {
			_, err := w.Svc.AddNote(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewNote{Content: content})
			require.ErrorIs(t, err, pipeline.ErrValidation)
			assert.Contains(t, pipeline.Fields(err), "content")
		})
	}
}

func TestService_RateCandidate(t *testing.T) {
	each(t, "ok", func(t *testing.T, w world) {
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		olivia, adam := w.As(t, "olivia"), w.As(t, "adam")
		res, err := w.Svc.RateCandidate(olivia, job, ada, pipeline.NewRating{Value: pipeline.Maybe})
		require.NoError(t, err)
		assert.Equal(t, pipeline.Maybe, res.Value.Value)
		assert.Equal(t, w.User("olivia"), res.Value.UserID)
		again, err := w.Svc.RateCandidate(olivia, job, ada, pipeline.NewRating{Value: pipeline.Maybe})
		require.NoError(t, err, "the same rating again")
		assert.Equal(t, res.Value.UpdatedAt.Truncate(time.Microsecond), again.Value.UpdatedAt, "left as it was")
		_, err = w.Svc.RateCandidate(olivia, job, ada, pipeline.NewRating{Value: pipeline.GoodFit})
		require.NoError(t, err)
		_, err = w.Svc.RateCandidate(adam, job, ada, pipeline.NewRating{Value: pipeline.NotAFit})
		require.NoError(t, err, "each user has a rating of their own")

		log := w.Activity(t)
		require.Len(t, log, 3, "the unchanged rating logs nothing")
		assert.JSONEq(t, `{"rating":{"before":null,"after":"maybe"}}`, string(log[0].Changes))
		assert.JSONEq(t, `{"rating":{"before":"maybe","after":"good_fit"}}`, string(log[1].Changes))
		assert.JSONEq(t, `{"rating":{"before":null,"after":"not_a_fit"}}`, string(log[2].Changes))
	})
	for _, v := range []pipeline.RatingValue{"", "great", "MAYBE"} {
		each(t, "invalid "+string(v), func(t *testing.T, w world) {
			_, err := w.Svc.RateCandidate(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewRating{Value: v})
			require.ErrorIs(t, err, pipeline.ErrValidation)
			assert.Contains(t, pipeline.Fields(err), "rating")
		})
	}
	each(t, "no caller", func(t *testing.T, w world) {
		_, err := w.Svc.RateCandidate(context.Background(), w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewRating{Value: pipeline.Maybe})
		assert.ErrorIs(t, err, pipeline.ErrUnauthenticated)
	})
}

// candidateProbes call the operations of this file's resource for the tables of
// operations (see probe).
var candidateProbes = []operation{
	{pipeline.OpListCandidates, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.ListCandidates(ctx, p.ref.Job, pipeline.CandidateFilter{Page: pick(p, 1, -1)})
		return err
	}},
	{pipeline.OpGetCandidate, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.GetCandidate(ctx, p.ref.Job, p.ref.Candidate)
		return err
	}},
	{pipeline.OpAddCandidate, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		// Each valid intake has an email of its own, so that it can succeed again.
		email := pick(p, "probe"+strconv.FormatInt(probeEmails.Add(1), 10)+"@example.test", "no-at-sign")
		_, err := svc.AddCandidate(ctx, p.ref.Job, pipeline.NewCandidate{Name: "Probe", Email: email, Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
	{pipeline.OpUpdateCandidate, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.UpdateCandidate(ctx, p.ref.Job, p.ref.Candidate, pipeline.CandidatePatch{Name: new(pick(p, "Probe", " ")), Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
	{pipeline.OpMoveCandidate, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.MoveCandidate(ctx, p.ref.Job, p.ref.Candidate, pipeline.CandidateMove{StageID: pick(p, p.stage, 0), Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
}

// probeEmails numbers the emails of the probes' intakes.
var probeEmails atomic.Int64
