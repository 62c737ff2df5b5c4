package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// world is a seeded fixture on one database.
type world = storetest.Fixture

func eachWorld(t *testing.T, fn func(t *testing.T, w world)) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		fn(t, storetest.Seeded(t, db))
	})
}

func code(err error) string { return pipeline.ErrorCode(err) }

func TestService_Authenticate(t *testing.T) {
	eachWorld(t, func(t *testing.T, w world) {
		ctx := context.Background()
		t.Run("ok", func(t *testing.T) {
			c, err := w.Svc.Authenticate(ctx, w.Res.Tokens["olivia"])
			require.NoError(t, err)
			assert.Equal(t, w.Res.Users["olivia"], c.User.ID)
			assert.Equal(t, "olivia@acme.test", c.User.Email)
			assert.Equal(t, w.Res.Teams["acme"], c.Team.ID)
			assert.Equal(t, "Acme", c.Team.Name)
			assert.Equal(t, pipeline.AllScopes, c.Scopes)
		})
		for name, value := range map[string]string{
			"revoked":   w.Res.Tokens["olivia_revoked"],
			"expired":   w.Res.Tokens["olivia_expired"],
			"malformed": "Bearer nonsense",
			"unknown":   pipeline.NewTokenValue(),
			"empty":     "",
		} {
			t.Run(name, func(t *testing.T) {
				_, err := w.Svc.Authenticate(ctx, value)
				assert.Equal(t, pipeline.EUnauthenticated, code(err))
			})
		}
		t.Run("records last use without a write per request", func(t *testing.T) {
			for range 3 {
				_, err := w.Svc.Authenticate(ctx, w.Res.Tokens["adam"])
				require.NoError(t, err)
			}
			tokens, err := w.Svc.TeamTokens(ctx, w.Res.Teams["acme"])
			require.NoError(t, err)
			var used *time.Time
			for _, tk := range tokens {
				if tk.Name == "adam" || tk.UserID == w.Res.Users["adam"] {
					used = tk.LastUsedAt
				}
			}
			require.NotNil(t, used, "last_used_at is recorded")
			assert.WithinDuration(t, time.Now(), *used, time.Minute)
		})
	})
}

func TestService_TeamTokens(t *testing.T) {
	eachWorld(t, func(t *testing.T, w world) {
		acme := w.Res.Teams["acme"]
		for _, who := range []string{"olivia", "adam"} {
			t.Run(who+" sees the team's tokens", func(t *testing.T) {
				tokens, err := w.Svc.TeamTokens(w.As(t, who), acme)
				require.NoError(t, err)
				creators := map[int64]bool{}
				for _, tk := range tokens {
					assert.Equal(t, acme, tk.TeamID)
					assert.NotEmpty(t, tk.Creator.Name, "with its creator")
					creators[tk.Creator.ID] = true
				}
				assert.True(t, creators[w.Res.Users["mia"]] && creators[w.Res.Users["olivia"]], "every member's tokens")
				assert.False(t, creators[w.Res.Users["gary"]], "not another team's")
			})
		}
		for _, who := range []string{"mia", "gary"} {
			t.Run(who+" does not", func(t *testing.T) {
				_, err := w.Svc.TeamTokens(w.As(t, who), acme)
				assert.Equal(t, pipeline.ENotFound, code(err))
			})
		}
	})
}

func TestService_Me(t *testing.T) {
	eachWorld(t, func(t *testing.T, w world) {
		id, err := w.Svc.Me(w.As(t, "olivia_messages"))
		require.NoError(t, err, "any valid token reads /me")
		assert.Equal(t, "Olivia", id.User.Name[:6])
		assert.Equal(t, []pipeline.Scope{pipeline.ScopeMessagesSend}, id.Scopes)

		_, err = w.Svc.Me(context.Background())
		assert.Equal(t, pipeline.EUnauthenticated, code(err), "no caller")
	})
}

// TestService_Scopes checks that each operation refuses a token without its
// scope before reading anything: even a missing record answers
// insufficient_scope.
func TestService_Scopes(t *testing.T) {
	eachWorld(t, func(t *testing.T, w world) {
		ctx := w.As(t, "olivia_messages")
		const missing = 999999
		ops := map[pipeline.Scope]map[string]func() error{
			pipeline.ScopeJobsRead: {
				"ListJobs": func() error { _, err := w.Svc.ListJobs(ctx, pipeline.JobFilter{}); return err },
				"Job":      func() error { _, err := w.Svc.Job(ctx, missing); return err },
				"Stages":   func() error { _, err := w.Svc.Stages(ctx, missing); return err },
			},
			pipeline.ScopeJobsWrite: {
				"CreateJob": func() error { _, err := w.Svc.CreateJob(ctx, pipeline.NewJob{}); return err },
				"UpdateJob": func() error { _, err := w.Svc.UpdateJob(ctx, missing, pipeline.JobPatch{}); return err },
			},
			pipeline.ScopeCandidatesRead: {
				"ListCandidates": func() error {
					_, err := w.Svc.ListCandidates(ctx, missing, pipeline.CandidateFilter{})
					return err
				},
				"Candidate": func() error { _, err := w.Svc.Candidate(ctx, missing, missing); return err },
			},
			pipeline.ScopeCandidatesWrite: {
				"MoveCandidate": func() error {
					_, err := w.Svc.MoveCandidate(ctx, missing, missing, pipeline.StageMove{})
					return err
				},
				"AddNote": func() error {
					_, err := w.Svc.AddNote(ctx, missing, missing, pipeline.NewNote{})
					return err
				},
				"RateCandidate": func() error {
					_, err := w.Svc.RateCandidate(ctx, missing, missing, pipeline.NewRating{})
					return err
				},
			},
		}
		for scope, byName := range ops {
			for name, op := range byName {
				t.Run(name, func(t *testing.T) {
					err := op()
					require.Equal(t, pipeline.EInsufficientScope, code(err))
					assert.Equal(t, map[string]string{"required_scope": string(scope)}, err.(*pipeline.Error).Details)
				})
			}
		}
		assert.Empty(t, w.Activity(t))
	})
}

// TestService_Visibility is the matrix of who reaches which job, for every
// read and nested resource.
func TestService_Visibility(t *testing.T) {
	eachWorld(t, func(t *testing.T, w world) {
		cases := []struct {
			name, token, job, candidate string
			visible                     bool
		}{
			{"owner sees a job of the team", "olivia", "frontend", "ken", true},
			{"admin sees a job of the team", "adam", "design", "don", true},
			{"member sees the job they own", "nina", "frontend", "ken", true},
			{"member sees the job they are assigned to", "mia", "backend", "ada", true},
			{"member does not see another job", "mia", "design", "don", false},
			{"member does not see a job of a colleague", "nina", "backend", "ada", false},
			{"owner does not see another team", "olivia", "ops", "ola", false},
			{"other team's owner does not see ours", "gary", "backend", "ada", false},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				ctx := w.As(t, tc.token)
				job, cand := w.Res.Jobs[tc.job], w.Res.Candidates[tc.candidate]
				errs := map[string]error{}
				_, errs["Job"] = w.Svc.Job(ctx, job)
				_, errs["Stages"] = w.Svc.Stages(ctx, job)
				_, errs["ListCandidates"] = w.Svc.ListCandidates(ctx, job, pipeline.CandidateFilter{})
				_, errs["Candidate"] = w.Svc.Candidate(ctx, job, cand)
				_, errs["UpdateJob"] = w.Svc.UpdateJob(ctx, job, pipeline.JobPatch{})
				_, errs["MoveCandidate"] = w.Svc.MoveCandidate(ctx, job, cand, pipeline.StageMove{})
				_, errs["AddNote"] = w.Svc.AddNote(ctx, job, cand, pipeline.NewNote{})
				_, errs["RateCandidate"] = w.Svc.RateCandidate(ctx, job, cand, pipeline.NewRating{})
				for op, err := range errs {
					if tc.visible {
						assert.NotEqual(t, pipeline.ENotFound, code(err), op)
					} else {
						assert.Equal(t, pipeline.ENotFound, code(err), op)
					}
				}
				list, err := w.Svc.ListJobs(ctx, pipeline.JobFilter{Status: "open"})
				require.NoError(t, err)
				var listed bool
				for _, j := range list.Items {
					listed = listed || j.ID == job
				}
				if tc.job != "design" { // design is a draft: not in the open list
					assert.Equal(t, tc.visible, listed, "ListJobs")
				}
			})
		}
		t.Run("candidate of another job", func(t *testing.T) {
			_, err := w.Svc.Candidate(w.As(t, "olivia"), w.Res.Jobs["backend"], w.Res.Candidates["ken"])
			assert.Equal(t, pipeline.ENotFound, code(err))
		})
		assert.Empty(t, w.Activity(t), "refused and invalid writes log nothing")
	})
}

func TestService_CreateJob(t *testing.T) {
	eachWorld(t, func(t *testing.T, w world) {
		ctx := w.As(t, "mia")
		t.Run("ok", func(t *testing.T) {
			before := time.Now().UTC()
			j, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Data Engineer", Description: "<p>SQL</p>"})
			require.NoError(t, err)
			assert.Equal(t, pipeline.JobOpen, j.Status)
			assert.Equal(t, "onsite", j.WorkMode)
			assert.Equal(t, "full_time", j.EmploymentType)
			assert.Equal(t, pipeline.Date(j.CreatedAt).AddDate(0, 0, 30), j.ApplicationDeadline)
			assert.WithinDuration(t, before, j.CreatedAt, time.Minute)
			assert.Equal(t, w.Res.Teams["acme"], j.TeamID)
			assert.Equal(t, w.Res.Users["mia"], j.OwnerID)

			got, err := w.Svc.Job(ctx, j.ID)
			require.NoError(t, err, "the creator owns the job and so reaches it")
			assert.Equal(t, j.Title, got.Title)
			stages, err := w.Svc.Stages(ctx, j.ID)
			require.NoError(t, err)
			var names []string
			for _, s := range stages {
				names = append(names, s.Name)
			}
			assert.Equal(t, pipeline.DefaultStages, names)

			log := w.Activity(t)
			require.Len(t, log, 1)
			a := log[0]
			assert.Equal(t, pipeline.ActionJobCreated, a.Action)
			assert.Equal(t, "job", a.SubjectType)
			assert.Equal(t, j.ID, a.SubjectID)
			assert.Equal(t, w.Res.Users["mia"], a.UserID)
			assert.Equal(t, w.Res.Teams["acme"], a.TeamID)
			assert.Equal(t, storetest.IP, a.IP)
			assert.NotZero(t, a.TokenID)
			var changes map[string]pipeline.Change
			require.NoError(t, json.Unmarshal(a.Changes, &changes))
			assert.Equal(t, pipeline.Change{Before: nil, After: "Data Engineer"}, changes["title"])
		})
		for name, title := range map[string]string{
			"missing title": "", "blank title": "   ", "title of 256 characters": string(make256('é')),
		} {
			t.Run(name, func(t *testing.T) {
				_, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: title})
				require.Equal(t, pipeline.EValidation, code(err))
				assert.Contains(t, err.(*pipeline.Error).Details, "title")
			})
		}
		t.Run("title of 255 characters counted in code points", func(t *testing.T) {
			_, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: string(make256('é')[:255])})
			assert.NoError(t, err)
		})
	})
}

func make256(r rune) []rune {
	out := make([]rune, 256)
	for i := range out {
		out[i] = r
	}
	return out
}

func TestService_JobLimit(t *testing.T) {
	eachWorld(t, func(t *testing.T, w world) {
		// acme allows 20 jobs that are not closed; the fixture has 3 of them.
		ctx := w.As(t, "olivia")
		for i := range 17 {
			_, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: fmt.Sprintf("Filler %d", i)})
			require.NoError(t, err)
		}
		_, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "One too many"})
		require.Equal(t, pipeline.EForbidden, code(err))

		// Closing a job frees a slot: the limit counts jobs that are not closed.
		closed := pipeline.JobClosed
		_, err = w.Svc.UpdateJob(ctx, w.Res.Jobs["design"], pipeline.JobPatch{Status: &closed})
		require.NoError(t, err)
		_, err = w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Fits again"})
		require.NoError(t, err)

		// Reopening a closed job takes a slot too.
		open := pipeline.JobOpen
		_, err = w.Svc.UpdateJob(ctx, w.Res.Jobs["design"], pipeline.JobPatch{Status: &open})
		require.Equal(t, pipeline.EForbidden, code(err), "reopening over the limit")
		draft := pipeline.JobDraft
		_, err = w.Svc.UpdateJob(ctx, w.Res.Jobs["archive"], pipeline.JobPatch{Status: &draft})
		require.Equal(t, pipeline.EForbidden, code(err), "a draft counts as not closed")
		title := "Old Role, renamed"
		_, err = w.Svc.UpdateJob(ctx, w.Res.Jobs["archive"], pipeline.JobPatch{Title: &title})
		require.NoError(t, err, "a closed job can still be edited")
		_, err = w.Svc.UpdateJob(ctx, w.Res.Jobs["backend"], pipeline.JobPatch{Status: &closed})
		require.NoError(t, err)
		_, err = w.Svc.UpdateJob(ctx, w.Res.Jobs["design"], pipeline.JobPatch{Status: &open})
		require.NoError(t, err, "closing one frees the slot for reopening another")

		// globex has no limit.
		_, err = w.Svc.CreateJob(w.As(t, "gary"), pipeline.NewJob{Title: "Unlimited"})
		require.NoError(t, err)
	})
}

func TestService_UpdateJob(t *testing.T) {
	eachWorld(t, func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		id := w.Res.Jobs["backend"]
		title, draft, same := "Senior Backend Engineer", pipeline.JobDraft, "Backend Engineer"

		t.Run("unchanged writes nothing", func(t *testing.T) {
			j, err := w.Svc.UpdateJob(ctx, id, pipeline.JobPatch{Title: &same})
			require.NoError(t, err)
			assert.Equal(t, same, j.Title)
			assert.Empty(t, w.Activity(t))
		})
		t.Run("ok", func(t *testing.T) {
			j, err := w.Svc.UpdateJob(ctx, id, pipeline.JobPatch{Title: &title, Status: &draft})
			require.NoError(t, err)
			assert.Equal(t, title, j.Title)
			assert.Equal(t, draft, j.Status)
			got, err := w.Svc.Job(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, title, got.Title)
			assert.Equal(t, draft, got.Status)

			log := w.Activity(t)
			require.Len(t, log, 1)
			assert.Equal(t, pipeline.ActionJobUpdated, log[0].Action)
			var changes map[string]pipeline.Change
			require.NoError(t, json.Unmarshal(log[0].Changes, &changes))
			assert.Equal(t, map[string]pipeline.Change{
				"title":  {Before: "Backend Engineer", After: title},
				"status": {Before: "open", After: "draft"},
			}, changes)
		})
		t.Run("invalid", func(t *testing.T) {
			upper := pipeline.JobStatus("OPEN")
			for name, p := range map[string]pipeline.JobPatch{
				"no fields":      {},
				"status in caps": {Status: &upper},
				"blank title":    {Title: new(string)},
			} {
				_, err := w.Svc.UpdateJob(ctx, id, p)
				assert.Equal(t, pipeline.EValidation, code(err), name)
			}
		})
	})
}

func TestService_MoveCandidate(t *testing.T) {
	eachWorld(t, func(t *testing.T, w world) {
		ctx := w.As(t, "mia")
		job, ada := w.Res.Jobs["backend"], w.Res.Candidates["ada"]
		screening := w.Res.Stages["backend"]["Screening"]

		t.Run("ok", func(t *testing.T) {
			c, err := w.Svc.MoveCandidate(ctx, job, ada, pipeline.StageMove{StageID: screening})
			require.NoError(t, err)
			assert.Equal(t, "Screening", c.Stage)
			got, err := w.Svc.Candidate(ctx, job, ada)
			require.NoError(t, err)
			assert.Equal(t, "Screening", got.Stage)
			log := w.Activity(t)
			require.Len(t, log, 1)
			assert.Equal(t, pipeline.ActionCandidateStageChanged, log[0].Action)
			assert.Equal(t, "candidate", log[0].SubjectType)
			assert.Equal(t, ada, log[0].SubjectID)
			assert.JSONEq(t, `{"stage":{"before":"Applied","after":"Screening"}}`, string(log[0].Changes))
		})
		t.Run("same stage is left alone", func(t *testing.T) {
			c, err := w.Svc.MoveCandidate(ctx, job, ada, pipeline.StageMove{StageID: screening})
			require.NoError(t, err)
			assert.Equal(t, "Screening", c.Stage)
			assert.Len(t, w.Activity(t), 1)
		})
		for name, stage := range map[string]int64{
			"stage of another job": w.Res.Stages["ops"]["Applied"],
			"no such stage":        987654,
			"missing stage":        0,
		} {
			t.Run(name, func(t *testing.T) {
				_, err := w.Svc.MoveCandidate(ctx, job, ada, pipeline.StageMove{StageID: stage})
				require.Equal(t, pipeline.EValidation, code(err))
				assert.Contains(t, err.(*pipeline.Error).Details, "stage")
			})
		}
	})
}

func TestService_AddNote(t *testing.T) {
	eachWorld(t, func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		job, ada := w.Res.Jobs["backend"], w.Res.Candidates["ada"]
		n, err := w.Svc.AddNote(ctx, job, ada, pipeline.NewNote{Content: "Strong systems background."})
		require.NoError(t, err)
		assert.NotZero(t, n.ID)
		assert.Equal(t, w.Res.Users["olivia"], n.Author.ID)
		assert.Equal(t, "Olivia", n.Author.Name[:6])

		c, err := w.Svc.Candidate(ctx, job, ada)
		require.NoError(t, err)
		assert.Equal(t, 1, c.NotesCount)

		log := w.Activity(t)
		require.Len(t, log, 1)
		assert.Equal(t, pipeline.ActionCandidateNoteAdded, log[0].Action)
		assert.JSONEq(t, fmt.Sprintf(`{"note_id":%d}`, n.ID), string(log[0].Changes))

		long := make([]rune, 5001)
		for i := range long {
			long[i] = 'ü'
		}
		_, err = w.Svc.AddNote(ctx, job, ada, pipeline.NewNote{Content: string(long)})
		assert.Equal(t, pipeline.EValidation, code(err))
		_, err = w.Svc.AddNote(ctx, job, ada, pipeline.NewNote{Content: string(long[:5000])})
		assert.NoError(t, err, "5,000 characters is the limit, not 5,000 bytes")
		_, err = w.Svc.AddNote(ctx, job, ada, pipeline.NewNote{Content: " \n "})
		assert.Equal(t, pipeline.EValidation, code(err))
	})
}

func TestService_RateCandidate(t *testing.T) {
	eachWorld(t, func(t *testing.T, w world) {
		job, ada := w.Res.Jobs["backend"], w.Res.Candidates["ada"]
		olivia, adam := w.As(t, "olivia"), w.As(t, "adam")

		r, err := w.Svc.RateCandidate(olivia, job, ada, pipeline.NewRating{Value: pipeline.Maybe})
		require.NoError(t, err)
		assert.Equal(t, pipeline.Maybe, r.Value)
		assert.Equal(t, w.Res.Users["olivia"], r.UserID)
		_, err = w.Svc.RateCandidate(olivia, job, ada, pipeline.NewRating{Value: pipeline.Maybe})
		require.NoError(t, err, "the same rating again")
		_, err = w.Svc.RateCandidate(olivia, job, ada, pipeline.NewRating{Value: pipeline.GoodFit})
		require.NoError(t, err)
		_, err = w.Svc.RateCandidate(adam, job, ada, pipeline.NewRating{Value: pipeline.NotAFit})
		require.NoError(t, err, "each user has a rating of their own")

		log := w.Activity(t)
		require.Len(t, log, 3, "the unchanged rating logs nothing")
		assert.JSONEq(t, `{"rating":{"before":null,"after":"maybe"}}`, string(log[0].Changes))
		assert.JSONEq(t, `{"rating":{"before":"maybe","after":"good_fit"}}`, string(log[1].Changes))
		assert.JSONEq(t, `{"rating":{"before":null,"after":"not_a_fit"}}`, string(log[2].Changes))

		for _, v := range []pipeline.RatingValue{"", "great", "MAYBE"} {
			_, err := w.Svc.RateCandidate(olivia, job, ada, pipeline.NewRating{Value: v})
			assert.Equal(t, pipeline.EValidation, code(err), v)
		}
	})
}

func TestService_Idempotency(t *testing.T) {
	eachWorld(t, func(t *testing.T, w world) {
		render := func(v any) (int, []byte, error) {
			b, err := json.Marshal(v)
			return 201, b, err
		}
		keyed := func(ctx context.Context, key, fingerprint string) context.Context {
			return pipeline.WithIdempotency(ctx, pipeline.Idempotency{Key: key, Fingerprint: fingerprint, Render: render})
		}
		olivia := w.As(t, "olivia")

		first, err := w.Svc.CreateJob(keyed(olivia, "k1", "create A"), pipeline.NewJob{Title: "Once"})
		require.NoError(t, err)
		_, err = w.Svc.CreateJob(keyed(olivia, "k1", "create A"), pipeline.NewJob{Title: "Once"})
		var replay *pipeline.Replay
		require.ErrorAs(t, err, &replay, "the second call replays")
		assert.Equal(t, 201, replay.Status)
		want, _ := json.Marshal(first)
		assert.Equal(t, want, replay.Body)
		assert.Len(t, w.Activity(t), 1, "the action happened once")

		_, err = w.Svc.CreateJob(keyed(olivia, "k1", "create B"), pipeline.NewJob{Title: "Other"})
		require.Equal(t, pipeline.EValidation, code(err), "the key is bound to the request")
		assert.Contains(t, err.(*pipeline.Error).Details, "Idempotency-Key")

		_, err = w.Svc.CreateJob(keyed(w.As(t, "adam"), "k1", "create A"), pipeline.NewJob{Title: "Once"})
		require.Equal(t, pipeline.EValidation, code(err), "the key is bound to the user")

		_, err = w.Svc.CreateJob(keyed(w.As(t, "gary"), "k1", "create A"), pipeline.NewJob{Title: "Once"})
		require.NoError(t, err, "keys are scoped to the team")

		_, err = w.Svc.CreateJob(keyed(olivia, "k2", "create C"), pipeline.NewJob{Title: ""})
		require.Equal(t, pipeline.EValidation, code(err))
		_, err = w.Svc.CreateJob(keyed(olivia, "k2", "create C"), pipeline.NewJob{Title: "Fixed"})
		require.NoError(t, err, "a failed call is not stored, so its key can be retried")

		_, err = w.Svc.CreateJob(keyed(olivia, "", "x"), pipeline.NewJob{Title: "x"})
		require.Equal(t, pipeline.EValidation, code(err), "an empty key")

		// The record comes first: a key, valid or not, does not turn a job
		// the caller cannot reach into anything but not found.
		mia, design := w.As(t, "mia"), w.Res.Jobs["design"]
		title := "Renamed"
		for _, key := range []string{"", "k1", "fresh"} {
			_, err = w.Svc.UpdateJob(keyed(mia, key, "patch"), design, pipeline.JobPatch{Title: &title})
			assert.Equal(t, pipeline.ENotFound, code(err), "key %q", key)
		}

		t.Run("concurrent calls with one key act once", func(t *testing.T) {
			before := len(w.Activity(t))
			var wg sync.WaitGroup
			errs := make([]error, 20)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = w.Svc.CreateJob(keyed(olivia, "race", "create R"), pipeline.NewJob{Title: "Raced"})
				}()
			}
			wg.Wait()
			var created int
			for _, err := range errs {
				switch {
				case err == nil:
					created++
				case code(err) == pipeline.EConflict:
				default:
					require.ErrorAs(t, err, &replay, "every other call is a replay or a conflict")
				}
			}
			assert.Equal(t, 1, created)
			assert.Len(t, w.Activity(t), before+1)
		})
	})
}

// TestService_IdempotencyWindow: a key replays for 24 hours, then it is
// forgotten and the same request acts again.
func TestService_IdempotencyWindow(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		now := time.Now().UTC().Truncate(time.Second)
		svc := pipeline.NewService(db, pipeline.WithClock(pipeline.ClockFunc(func() time.Time { return now })))
		res := storetest.Seed(t, svc)
		w := world{DB: db, Svc: svc, Res: res}
		ctx := pipeline.WithIdempotency(w.As(t, "olivia"), pipeline.Idempotency{
			Key: "daily", Fingerprint: "create D",
			Render: func(v any) (int, []byte, error) { return 201, []byte(`{}`), nil },
		})
		create := func() error {
			_, err := svc.CreateJob(ctx, pipeline.NewJob{Title: "Daily"})
			return err
		}
		require.NoError(t, create())
		now = now.Add(pipeline.IdempotencyWindow - time.Second)
		var replay *pipeline.Replay
		require.ErrorAs(t, create(), &replay, "still within 24 hours")
		now = now.Add(2 * time.Second)
		require.NoError(t, create(), "past 24 hours the key is forgotten and the request acts")
		require.ErrorAs(t, create(), &replay, "and the new response is the one replayed")
		assert.Len(t, w.Activity(t), 2)

		n, err := svc.PurgeIdempotency(context.Background())
		require.NoError(t, err)
		assert.Zero(t, n, "the live record stays")
		now = now.Add(pipeline.IdempotencyWindow + time.Second)
		n, err = svc.PurgeIdempotency(context.Background())
		require.NoError(t, err)
		assert.EqualValues(t, 1, n, "an expired record is purged")
	})
}
