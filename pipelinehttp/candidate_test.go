package pipelinehttp

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

var (
	candidateItemFields = sorted("id", "name", "email", "applied", "stage", "status")
	candidateFullFields = sorted("id", "name", "email", "applied", "stage", "status", "resume_url", "notes_count")
)

func TestAPI_ListCandidates(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		backend := e.Res.Jobs["backend"]
		list := jobPath(backend) + "/candidates"
		t.Run("shape", func(t *testing.T) {
			r := e.do(t, "GET", list, e.token("olivia_candidates_read"), nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			assert.Equal(t, sorted("data", "links", "meta"), keys(r.Object(t)))
			// Newest applicant first.
			assert.Equal(t, []int64{e.Res.Candidates["grace"], e.Res.Candidates["ada"], e.Res.Candidates["linus"]}, r.IDs(t))
			ada := r.Items(t)[1]
			assert.Equal(t, candidateItemFields, keys(ada))
			assert.Equal(t, map[string]any{
				"id": float64(e.Res.Candidates["ada"]), "name": "Ada Lovelace", "email": "ada@example.test",
				"applied": "2026-01-05", "stage": "Applied", "status": "active",
			}, ada)
			assert.Equal(t, "rejected", r.Items(t)[2]["status"])
			assert.Equal(t, map[string]any{"current_page": 1.0, "last_page": 1.0, "per_page": 15.0, "total": 3.0}, r.Object(t)["meta"])
			links := r.Object(t)["links"].(map[string]any)
			assert.Equal(t, "http://example.com"+list+"?page=1", links["first"])
			assert.Nil(t, links["prev"])
			assert.Nil(t, links["next"])
		})
		t.Run("stage filter", func(t *testing.T) {
			applied := e.Res.Stages["backend"]["Applied"]
			r := e.do(t, "GET", list+"?stage="+itoa(applied)+"&search=example", e.token("olivia"), nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			assert.Equal(t, []int64{e.Res.Candidates["ada"], e.Res.Candidates["linus"]}, r.IDs(t))
			links := r.Object(t)["links"].(map[string]any)
			assert.Equal(t, "http://example.com"+list+"?page=1&search=example&stage="+itoa(applied), links["last"])
		})
		t.Run("search", func(t *testing.T) {
			for search, want := range map[string][]int64{
				"LOVELACE":          {e.Res.Candidates["ada"]},
				"grace@example":     {e.Res.Candidates["grace"]},
				"%":                 nil,
				"_":                 nil,
				"":                  {e.Res.Candidates["grace"], e.Res.Candidates["ada"], e.Res.Candidates["linus"]},
				"nobody applied so": nil,
			} {
				r := e.do(t, "GET", list+"?search="+urlQuery(search), e.token("olivia"), nil)
				require.Equal(t, http.StatusOK, r.Code)
				assert.Equal(t, want, nilIfEmpty(r.IDs(t)), "search %q", search)
			}
		})
		t.Run("page past the last", func(t *testing.T) {
			r := e.do(t, "GET", list+"?page=3", e.token("olivia"), nil)
			require.Equal(t, http.StatusOK, r.Code)
			assert.Equal(t, []any{}, r.Object(t)["data"])
			assert.Equal(t, 3.0, r.Object(t)["meta"].(map[string]any)["current_page"])
		})
		t.Run("bad query", func(t *testing.T) {
			for _, tc := range []struct{ query, field string }{
				{"stage=abc", "stage"},
				{"stage=0", "stage"},
				{"stage=-2", "stage"},
				{"stage=" + itoa(e.Res.Stages["frontend"]["Applied"]), "stage"},
				{"stage=999999", "stage"},
				{"stage=" + itoa(e.Res.Stages["backend"]["Applied"]) + "&stage=999999", "stage"},
				{"page=0", "page"},
				{"page=x", "page"},
				{"page=", "page"},
				{"stage=", "stage"},
			} {
				t.Run(tc.query, func(t *testing.T) {
					requireValidation(t, e.do(t, "GET", list+"?"+tc.query, e.token("olivia"), nil), tc.field)
				})
			}
		})
		t.Run("not found", func(t *testing.T) {
			for _, path := range []string{
				jobPath(999999) + "/candidates", "/api/v1/jobs/x/candidates", jobPath(e.Res.Jobs["ops"]) + "/candidates",
				jobPath(e.Res.Jobs["ops"]) + "/candidates?page=x&stage=", // 404 comes before 422
			} {
				requireError(t, e.do(t, "GET", path, e.token("olivia"), nil), http.StatusNotFound, pipeline.ENotFound)
			}
		})
	})
}

func TestAPI_Candidate(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		backend := e.Res.Jobs["backend"]
		t.Run("with resume", func(t *testing.T) {
			r := e.do(t, "GET", candidatePath(backend, e.Res.Candidates["ada"]), e.token("olivia_candidates_read"), nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			assert.Equal(t, []string{"data"}, keys(r.Object(t)))
			assert.Equal(t, map[string]any{
				"id": float64(e.Res.Candidates["ada"]), "name": "Ada Lovelace", "email": "ada@example.test",
				"applied": "2026-01-05", "stage": "Applied", "status": "active",
				"resume_url": "https://files.example.test/ada.pdf", "notes_count": 0.0,
			}, r.Data(t))
		})
		t.Run("empty fields omitted", func(t *testing.T) {
			r := e.do(t, "GET", candidatePath(backend, e.Res.Candidates["grace"]), e.token("olivia"), nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			d := r.Data(t)
			assert.Equal(t, sorted("id", "name", "email", "applied", "stage", "status", "notes_count"), keys(d))
			assert.Equal(t, 0.0, d["notes_count"])
			assert.Equal(t, "Screening", d["stage"])
		})
		t.Run("not found", func(t *testing.T) {
			for _, path := range []string{
				candidatePath(backend, e.Res.Candidates["ken"]), // a candidate of another job
				candidatePath(backend, 999999),
				candidatePath(e.Res.Jobs["frontend"], e.Res.Candidates["ada"]),
				jobPath(backend) + "/candidates/abc",
				jobPath(backend) + "/candidates/0",
				"/api/v1/jobs/abc/candidates/" + itoa(e.Res.Candidates["ada"]),
			} {
				requireError(t, e.do(t, "GET", path, e.token("olivia"), nil), http.StatusNotFound, pipeline.ENotFound)
			}
		})
	})
}

// adaStage is the stage path of ada, a candidate of backend in Applied.
func adaStage(e *env) string {
	return candidatePath(e.Res.Jobs["backend"], e.Res.Candidates["ada"]) + "/stage"
}

// moveAda moves ada to a stage of backend, as an earlier request would.
func moveAda(t *testing.T, e *env, token, stage string) {
	t.Helper()
	r := e.do(t, "POST", adaStage(e), e.token(token), map[string]any{"stage": e.Res.Stages["backend"][stage]})
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
}

func TestAPI_MoveCandidate(t *testing.T) {
	each(t, "moved", func(t *testing.T, e *env) {
		backend, ada := e.Res.Jobs["backend"], e.Res.Candidates["ada"]
		r := e.do(t, "POST", adaStage(e), e.token("mia"), map[string]any{"stage": e.Res.Stages["backend"]["Screening"]})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, []string{"data"}, keys(r.Object(t)))
		d := r.Data(t)
		assert.Equal(t, candidateFullFields, keys(d))
		assert.Equal(t, "Screening", d["stage"])
		assert.Equal(t, ada, num(t, d["id"]))

		r = e.do(t, "GET", candidatePath(backend, ada), e.token("mia"), nil)
		assert.Equal(t, "Screening", r.Data(t)["stage"])

		acts := e.Activity(t)
		require.Len(t, acts, 1)
		a := acts[0]
		assert.Equal(t, pipeline.ActionCandidateStageChanged, a.Action)
		assert.Equal(t, pipeline.SubjectCandidate, a.SubjectType)
		assert.Equal(t, ada, a.SubjectID)
		assert.Equal(t, e.Res.Users["mia"], a.UserID)
		assert.Equal(t, e.tokenID(t, "mia"), a.TokenID)
		assert.Equal(t, e.Res.Teams["acme"], a.TeamID)
		assert.Equal(t, "192.0.2.1", a.IP)
		assert.JSONEq(t, `{"stage":{"before":"Applied","after":"Screening"}}`, string(a.Changes))
	})
	each(t, "a whole number written with a fraction or an exponent", func(t *testing.T, e *env) {
		// JSON Schema's integer, which the document declares, takes 3.0 and
		// 3e0 as 3.
		screening, offer := itoa(e.Res.Stages["backend"]["Screening"]), itoa(e.Res.Stages["backend"]["Offer"])
		r := e.do(t, "POST", adaStage(e), e.token("olivia"), `{"stage": `+screening+`.0}`)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, "Screening", r.Data(t)["stage"])
		r = e.do(t, "POST", adaStage(e), e.token("olivia"), `{"stage": `+offer+`0e-1}`)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, "Offer", r.Data(t)["stage"])
	})
	each(t, "same stage is left alone", func(t *testing.T, e *env) {
		moveAda(t, e, "mia", "Screening")
		r := e.do(t, "POST", adaStage(e), e.token("olivia"), map[string]any{"stage": e.Res.Stages["backend"]["Screening"]})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, "Screening", r.Data(t)["stage"])
		assert.Len(t, e.Activity(t), 1)
	})
	each(t, "client address recorded", func(t *testing.T, e *env) {
		moveAda(t, e, "mia", "Screening")
		r := e.do(t, "POST", adaStage(e), e.token("olivia"), map[string]any{"stage": e.Res.Stages["backend"]["Offer"]},
			remoteAddr, "198.51.100.7:5555", "X-Forwarded-For", "203.0.113.9")
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		acts := e.Activity(t)
		require.Len(t, acts, 2)
		assert.Equal(t, "198.51.100.7", acts[1].IP, "the socket peer; no proxy is trusted")
	})
}

// TestAPI_MoveCandidate_Invalid: every case is refused on one world, which
// holds nothing more at the end.
func TestAPI_MoveCandidate_Invalid(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		backend := e.Res.Jobs["backend"]
		path := adaStage(e)
		screening := e.Res.Stages["backend"]["Screening"]
		t.Run("invalid", func(t *testing.T) {
			before := len(e.Activity(t))
			for _, tc := range []struct {
				name   string
				body   any
				fields []string
			}{
				{"stage of another job", map[string]any{"stage": e.Res.Stages["frontend"]["Screening"]}, []string{"stage"}},
				{"no such stage", map[string]any{"stage": 999999}, []string{"stage"}},
				{"negative stage", map[string]any{"stage": -1}, []string{"stage"}},
				{"missing stage", map[string]any{}, []string{"stage"}},
				{"empty body", nil, []string{"stage"}},
				{"stage a string", map[string]any{"stage": itoa(screening)}, []string{"stage"}},
				{"stage a fraction", `{"stage": 2.5}`, []string{"stage"}},
				{"stage past int64", `{"stage": 1e19}`, []string{"stage"}},
				{"stage an exponent past any int64", `{"stage": 1e999999999}`, []string{"stage"}},
				{"stage null", map[string]any{"stage": nil}, []string{"stage"}},
				{"unknown field", map[string]any{"stage": screening, "status": "hired"}, []string{"status"}},
				{"malformed", `{"stage"`, []string{"body"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					r := e.do(t, "POST", path, e.token("olivia"), tc.body)
					requireValidation(t, r, tc.fields...)
				})
			}
			assert.Len(t, e.Activity(t), before)
		})
		t.Run("not found before invalid", func(t *testing.T) {
			for _, p := range []string{
				candidatePath(backend, e.Res.Candidates["ken"]) + "/stage",
				candidatePath(e.Res.Jobs["ops"], e.Res.Candidates["ola"]) + "/stage",
				jobPath(backend) + "/candidates/x/stage",
			} {
				requireError(t, e.do(t, "POST", p, e.token("olivia"), `{"stage": "x"}`), http.StatusNotFound, pipeline.ENotFound)
			}
		})
	})
}

// graceNotes is the notes path of grace, a candidate of backend.
func graceNotes(e *env) string {
	return candidatePath(e.Res.Jobs["backend"], e.Res.Candidates["grace"]) + "/notes"
}

func TestAPI_AddNote(t *testing.T) {
	each(t, "added", func(t *testing.T, e *env) {
		backend, grace := e.Res.Jobs["backend"], e.Res.Candidates["grace"]
		r := e.do(t, "POST", graceNotes(e), e.token("mia"), map[string]any{"content": "Strong on <b>systems</b>."})
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		assert.Equal(t, []string{"data"}, keys(r.Object(t)))
		d := r.Data(t)
		assert.Equal(t, sorted("id", "content", "author", "created_at"), keys(d))
		assert.Equal(t, "Strong on <b>systems</b>.", d["content"])
		assert.Equal(t, map[string]any{"id": float64(e.Res.Users["mia"]), "name": "Mia Member"}, d["author"])
		assert.Equal(t, e.clock.Now().Format("2006-01-02T15:04:05Z"), d["created_at"])

		r = e.do(t, "GET", candidatePath(backend, grace), e.token("mia"), nil)
		assert.Equal(t, 1.0, r.Data(t)["notes_count"])

		acts := e.Activity(t)
		require.Len(t, acts, 1)
		a := acts[0]
		assert.Equal(t, pipeline.ActionCandidateNoteAdded, a.Action)
		assert.Equal(t, pipeline.SubjectCandidate, a.SubjectType)
		assert.Equal(t, grace, a.SubjectID)
		assert.Equal(t, e.tokenID(t, "mia"), a.TokenID)
		assert.JSONEq(t, `{"note_id":`+itoa(num(t, d["id"]))+`}`, string(a.Changes))
	})
	each(t, "content length in code points", func(t *testing.T, e *env) {
		r := e.do(t, "POST", graceNotes(e), e.token("olivia"), map[string]any{"content": strings.Repeat("ß", 5000)})
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		requireValidation(t, e.do(t, "POST", graceNotes(e), e.token("olivia"), map[string]any{"content": strings.Repeat("ß", 5001)}), "content")
	})
	each(t, "invalid", func(t *testing.T, e *env) {
		before := len(e.Activity(t))
		for _, tc := range []struct {
			name   string
			body   any
			fields []string
		}{
			{"missing", map[string]any{}, []string{"content"}},
			{"blank", map[string]any{"content": "  \n"}, []string{"content"}},
			{"number", map[string]any{"content": 12}, []string{"content"}},
			{"null", map[string]any{"content": nil}, []string{"content"}},
			{"unknown field", map[string]any{"content": "ok", "author": "me"}, []string{"author"}},
			{"malformed", `{"content": "x",}`, []string{"body"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(t, "POST", graceNotes(e), e.token("olivia"), tc.body)
				requireValidation(t, r, tc.fields...)
			})
		}
		assert.Len(t, e.Activity(t), before)
	})
	each(t, "not found", func(t *testing.T, e *env) {
		requireError(t, e.do(t, "POST", candidatePath(e.Res.Jobs["backend"], e.Res.Candidates["ken"])+"/notes", e.token("olivia"), map[string]any{"content": "x"}),
			http.StatusNotFound, pipeline.ENotFound)
	})
}

// rateAda rates ada, a candidate of backend, as token's user.
func rateAda(t *testing.T, e *env, token, rating string) *Response {
	t.Helper()
	r := e.do(t, "POST", candidatePath(e.Res.Jobs["backend"], e.Res.Candidates["ada"])+"/rating", e.token(token), map[string]any{"rating": rating})
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	return r
}

func TestAPI_RateCandidate(t *testing.T) {
	each(t, "rated", func(t *testing.T, e *env) {
		ada := e.Res.Candidates["ada"]
		r := rateAda(t, e, "mia", "maybe")
		assert.Equal(t, []string{"data"}, keys(r.Object(t)))
		assert.Equal(t, map[string]any{
			"candidate_id": float64(ada), "rating": "maybe", "user_id": float64(e.Res.Users["mia"]),
			"updated_at": e.clock.Now().Format("2006-01-02T15:04:05Z"),
		}, r.Data(t))
		acts := e.Activity(t)
		require.Len(t, acts, 1)
		assert.Equal(t, pipeline.ActionCandidateRated, acts[0].Action)
		assert.Equal(t, ada, acts[0].SubjectID)
		assert.Equal(t, e.tokenID(t, "mia"), acts[0].TokenID)
		assert.JSONEq(t, `{"rating":{"before":null,"after":"maybe"}}`, string(acts[0].Changes))
	})
	each(t, "same rating changes nothing", func(t *testing.T, e *env) {
		rateAda(t, e, "mia", "maybe")
		r := rateAda(t, e, "mia", "maybe")
		assert.Equal(t, "maybe", r.Data(t)["rating"])
		assert.Len(t, e.Activity(t), 1)
	})
	each(t, "rating again replaces it", func(t *testing.T, e *env) {
		rateAda(t, e, "mia", "maybe")
		r := rateAda(t, e, "mia", "good_fit")
		assert.Equal(t, "good_fit", r.Data(t)["rating"])
		acts := e.Activity(t)
		require.Len(t, acts, 2)
		assert.JSONEq(t, `{"rating":{"before":"maybe","after":"good_fit"}}`, string(acts[1].Changes))
	})
	each(t, "each user has their own", func(t *testing.T, e *env) {
		rateAda(t, e, "mia", "maybe")
		rateAda(t, e, "mia", "good_fit")
		r := rateAda(t, e, "olivia", "not_a_fit")
		assert.Equal(t, float64(e.Res.Users["olivia"]), r.Data(t)["user_id"])
		assert.JSONEq(t, `{"rating":{"before":null,"after":"not_a_fit"}}`, string(e.Activity(t)[2].Changes))
	})
	each(t, "invalid", func(t *testing.T, e *env) {
		path := candidatePath(e.Res.Jobs["backend"], e.Res.Candidates["ada"]) + "/rating"
		before := len(e.Activity(t))
		for _, tc := range []struct {
			name   string
			body   any
			fields []string
		}{
			{"outside the enum", map[string]any{"rating": "great"}, []string{"rating"}},
			{"wrong case", map[string]any{"rating": "GOOD_FIT"}, []string{"rating"}},
			{"missing", map[string]any{}, []string{"rating"}},
			{"empty", map[string]any{"rating": ""}, []string{"rating"}},
			{"number", map[string]any{"rating": 3}, []string{"rating"}},
			{"null", map[string]any{"rating": nil}, []string{"rating"}},
			{"unknown field", map[string]any{"rating": "maybe", "score": 3}, []string{"score"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				requireValidation(t, e.do(t, "POST", path, e.token("olivia"), tc.body), tc.fields...)
			})
		}
		assert.Len(t, e.Activity(t), before)
	})
}
