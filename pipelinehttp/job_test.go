package pipelinehttp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

var (
	jobItemFields = sorted("id", "title", "status", "description", "created_at")
	jobFullFields = sorted("id", "title", "status", "description", "created_at",
		"work_mode", "employment_type", "application_deadline", "updated_at")
)

func TestAPI_ListJobs(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		t.Run("shape", func(t *testing.T) {
			r := e.do(t, "GET", "/api/v1/jobs", e.token("olivia"), nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			assert.Equal(t, sorted("data", "links", "meta"), keys(r.Object(t)))
			// Open jobs of acme, newest first; drafts and closed jobs are
			// left out by the default status.
			assert.Equal(t, []int64{e.Res.Jobs["frontend"], e.Res.Jobs["backend"]}, r.IDs(t))
			it := r.Items(t)[1]
			assert.Equal(t, jobItemFields, keys(it))
			assert.Equal(t, "Backend Engineer", it["title"])
			assert.Equal(t, "open", it["status"])
			assert.Equal(t, "<p>Go and PostgreSQL.</p>", it["description"])
			assert.Equal(t, "2026-01-02T10:00:00Z", it["created_at"])
			assert.Equal(t, map[string]any{"current_page": 1.0, "last_page": 1.0, "per_page": 15.0, "total": 2.0}, r.Object(t)["meta"])
			assert.Equal(t, map[string]any{
				"first": "http://example.com/api/v1/jobs?page=1",
				"last":  "http://example.com/api/v1/jobs?page=1",
				"prev":  nil,
				"next":  nil,
			}, r.Object(t)["links"])
		})
		t.Run("description always a string", func(t *testing.T) {
			r := e.do(t, "GET", "/api/v1/jobs?status=draft", e.token("olivia"), nil)
			require.Equal(t, http.StatusOK, r.Code)
			require.Len(t, r.Items(t), 1)
			assert.Equal(t, "", r.Items(t)[0]["description"])
		})
		t.Run("status filter", func(t *testing.T) {
			for status, want := range map[string][]int64{
				"open":   {e.Res.Jobs["frontend"], e.Res.Jobs["backend"]},
				"draft":  {e.Res.Jobs["design"]},
				"closed": {e.Res.Jobs["archive"]},
			} {
				r := e.do(t, "GET", "/api/v1/jobs?status="+status, e.token("adam"), nil)
				require.Equal(t, http.StatusOK, r.Code)
				assert.Equal(t, want, r.IDs(t), status)
			}
		})
		t.Run("visibility", func(t *testing.T) {
			for user, want := range map[string][]int64{
				"olivia": {e.Res.Jobs["frontend"], e.Res.Jobs["backend"]},
				"adam":   {e.Res.Jobs["frontend"], e.Res.Jobs["backend"]},
				"mia":    {e.Res.Jobs["backend"]},
				"nina":   {e.Res.Jobs["frontend"]},
				"gary":   {e.Res.Jobs["ops"]},
			} {
				r := e.do(t, "GET", "/api/v1/jobs", e.token(user), nil)
				require.Equal(t, http.StatusOK, r.Code)
				assert.Equal(t, want, r.IDs(t), user)
			}
			r := e.do(t, "GET", "/api/v1/jobs?status=draft", e.token("mia"), nil)
			assert.Empty(t, r.Items(t), "mia is not assigned to design")
		})
	})
}

func TestAPI_ListJobs_Search(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		cases := []struct {
			search string
			want   []int64
		}{
			{"INGÉNIEUR", []int64{e.Res.Jobs["frontend"]}},
			{"ingénieur", []int64{e.Res.Jobs["frontend"]}},
			{"engineer", []int64{e.Res.Jobs["backend"]}},
			{"", []int64{e.Res.Jobs["frontend"], e.Res.Jobs["backend"]}},
			{"%", nil},
			{"_", nil},
			{"nothing like it", nil},
		}
		for _, tc := range cases {
			r := e.do(t, "GET", "/api/v1/jobs?search="+urlQuery(tc.search), e.token("olivia"), nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			assert.Equal(t, tc.want, nilIfEmpty(r.IDs(t)), "search %q", tc.search)
		}

		// Case folding, not only lower case: a word's final ς is σ in
		// capitals.
		r := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), map[string]any{"title": "Λογιστής"})
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		id := num(t, r.Data(t)["id"])
		for _, search := range []string{"ΛΟΓΙΣΤΉΣ", "λογιστής", "ΣΤΉΣ"} {
			r = e.do(t, "GET", "/api/v1/jobs?search="+urlQuery(search), e.token("olivia"), nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			assert.Equal(t, []int64{id}, r.IDs(t), "search %q", search)
		}
	})
}

func TestAPI_ListJobs_BadQuery(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		for _, tc := range []struct{ query, field string }{
			{"status=OPEN", "status"},
			{"status=archived", "status"},
			{"page=0", "page"},
			{"page=-1", "page"},
			{"page=abc", "page"},
			{"page=1.5", "page"},
			{"page=", "page"},
			{"status=", "status"},
			{"page=99999999999999999999", "page"},
			// A parameter given twice: the bad value does not hide behind
			// the good one, and two good ones are not a guess.
			{"status=open&status=bogus", "status"},
			{"status=bogus&status=open", "status"},
			{"page=1&page=2", "page"},
			{"search=a&search=b", "search"},
		} {
			t.Run(tc.query, func(t *testing.T) {
				requireValidation(t, e.do(t, "GET", "/api/v1/jobs?"+tc.query, e.token("olivia"), nil), tc.field)
			})
		}
	})
}

func TestAPI_ListJobs_Search_Literal(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		ids := map[string]int64{}
		for _, title := range []string{"100% remote", "snake_case dev", `C:\path admin`, "1000 remote", "snakeXcase dev", "C:Xpath admin"} {
			r := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), map[string]any{"title": title})
			require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
			ids[title] = num(t, r.Data(t)["id"])
		}
		for search, title := range map[string]string{"0%": "100% remote", "%": "100% remote", "e_c": "snake_case dev", "_": "snake_case dev", `:\`: `C:\path admin`, `\`: `C:\path admin`} {
			r := e.do(t, "GET", "/api/v1/jobs?search="+urlQuery(search), e.token("olivia"), nil)
			require.Equal(t, http.StatusOK, r.Code)
			assert.Equal(t, []int64{ids[title]}, r.IDs(t), "search %q", search)
		}
	})
}

// paginated creates 17 more open jobs on acme, a second apart: 19 open in
// all, two pages; the team's limit of 20 jobs that are not closed is then
// reached. It returns their ids, oldest first.
func paginated(t *testing.T, e *env) []int64 {
	t.Helper()
	var created []int64
	for i := range 17 {
		e.clock.Advance(time.Second)
		r := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), map[string]any{"title": fmt.Sprintf("Role %02d", i)})
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		created = append(created, num(t, r.Data(t)["id"]))
	}
	return created
}

// pageOf returns the links and meta of a list response.
func pageOf(t *testing.T, r *Response) (links, meta map[string]any) {
	t.Helper()
	o := r.Object(t)
	return o["links"].(map[string]any), o["meta"].(map[string]any)
}

func TestAPI_ListJobs_Pagination(t *testing.T) {
	each(t, "first page", func(t *testing.T, e *env) {
		created := paginated(t, e)
		r := e.do(t, "GET", "/api/v1/jobs", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, r.Code)
		ids := r.IDs(t)
		require.Len(t, ids, 15)
		assert.Equal(t, created[16], ids[0], "newest first")
		links, meta := pageOf(t, r)
		assert.Equal(t, map[string]any{"current_page": 1.0, "last_page": 2.0, "per_page": 15.0, "total": 19.0}, meta)
		assert.Nil(t, links["prev"])
		assert.Equal(t, "http://example.com/api/v1/jobs?page=2", links["next"])
		assert.Equal(t, "http://example.com/api/v1/jobs?page=1", links["first"])
		assert.Equal(t, "http://example.com/api/v1/jobs?page=2", links["last"])
	})
	each(t, "last page", func(t *testing.T, e *env) {
		created := paginated(t, e)
		r := e.do(t, "GET", "/api/v1/jobs?page=2", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, r.Code)
		assert.Equal(t, []int64{created[1], created[0], e.Res.Jobs["frontend"], e.Res.Jobs["backend"]}, r.IDs(t))
		links, meta := pageOf(t, r)
		assert.Equal(t, 2.0, meta["current_page"])
		assert.Equal(t, "http://example.com/api/v1/jobs?page=1", links["prev"])
		assert.Nil(t, links["next"])
	})
	each(t, "past the last page", func(t *testing.T, e *env) {
		paginated(t, e)
		r := e.do(t, "GET", "/api/v1/jobs?page=5", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, r.Code)
		assert.Equal(t, []any{}, r.Object(t)["data"])
		links, meta := pageOf(t, r)
		assert.Equal(t, map[string]any{"current_page": 5.0, "last_page": 2.0, "per_page": 15.0, "total": 19.0}, meta)
		assert.Equal(t, "http://example.com/api/v1/jobs?page=4", links["prev"])
		assert.Nil(t, links["next"])
	})
	each(t, "a page so far out its offset would overflow", func(t *testing.T, e *env) {
		paginated(t, e)
		r := e.do(t, "GET", "/api/v1/jobs?page=922337203685477580", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, []any{}, r.Object(t)["data"])
		_, meta := pageOf(t, r)
		assert.Equal(t, map[string]any{"current_page": 922337203685477580.0, "last_page": 2.0, "per_page": 15.0, "total": 19.0}, meta)
	})
	each(t, "links keep the filters", func(t *testing.T, e *env) {
		paginated(t, e)
		r := e.do(t, "GET", "/api/v1/jobs?status=open&search=role&page=1&junk=1", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, r.Code)
		links, meta := pageOf(t, r)
		assert.Equal(t, 17.0, meta["total"])
		assert.Equal(t, "http://example.com/api/v1/jobs?page=2&search=role&status=open", links["next"])
		assert.Equal(t, "http://example.com/api/v1/jobs?page=1&search=role&status=open", links["first"])
	})
	each(t, "job limit reached", func(t *testing.T, e *env) {
		created := paginated(t, e)
		r := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), map[string]any{"title": "One too many"})
		requireError(t, r, http.StatusForbidden, pipeline.EForbidden)
		r = e.do(t, "GET", "/api/v1/jobs", e.token("olivia"), nil)
		assert.Equal(t, 19.0, r.Object(t)["meta"].(map[string]any)["total"], "nothing created")
		// Closing a job frees a place.
		r = e.do(t, "PATCH", jobPath(created[0]), e.token("olivia"), map[string]any{"status": "closed"})
		require.Equal(t, http.StatusOK, r.Code)
		r = e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), map[string]any{"title": "Now it fits"})
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
	})
}

func TestAPI_ListJobs_BaseURL(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		r := e.do(t, "GET", "/api/v1/jobs?search=e&page=2", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, r.Code)
		links := r.Object(t)["links"].(map[string]any)
		assert.Equal(t, "https://jobs.example.test/api/v1/jobs?page=1&search=e", links["first"])
		assert.Equal(t, "https://jobs.example.test/api/v1/jobs?page=1&search=e", links["prev"])
		assert.Nil(t, links["next"])
	}, func(c *envConfig) { c.BaseURL = "https://jobs.example.test/" })
}

func TestAPI_Job(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		t.Run("shape", func(t *testing.T) {
			r := e.do(t, "GET", jobPath(e.Res.Jobs["backend"]), e.token("mia"), nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			assert.Equal(t, []string{"data"}, keys(r.Object(t)))
			d := r.Data(t)
			assert.Equal(t, jobFullFields, keys(d))
			assert.Equal(t, e.Res.Jobs["backend"], num(t, d["id"]))
			assert.Equal(t, "onsite", d["work_mode"])
			assert.Equal(t, "full_time", d["employment_type"])
			assert.Equal(t, "2026-02-01", d["application_deadline"])
			assert.Equal(t, "2026-01-02T10:00:00Z", d["created_at"])
			assert.Regexp(t, timestampRE, d["updated_at"])
		})
		t.Run("not found", func(t *testing.T) {
			for _, p := range []string{"999999", "0", "-1", "abc", "1.5", "+1", "99999999999999999999"} {
				requireError(t, e.do(t, "GET", "/api/v1/jobs/"+p, e.token("olivia"), nil), http.StatusNotFound, pipeline.ENotFound)
			}
		})
	})
}

func TestAPI_CreateJob(t *testing.T) {
	each(t, "created", func(t *testing.T, e *env) {
		r := e.do(t, "POST", "/api/v1/jobs", e.token("mia"), map[string]any{"title": "Data Engineer", "description": "<p>SQL</p>"})
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		d := r.Data(t)
		assert.Equal(t, jobFullFields, keys(d))
		id := num(t, d["id"])
		assert.Equal(t, "/api/v1/jobs/"+itoa(id), r.Header.Get("Location"))
		now := e.clock.Now()
		assert.Equal(t, "Data Engineer", d["title"])
		assert.Equal(t, "<p>SQL</p>", d["description"])
		assert.Equal(t, "open", d["status"])
		assert.Equal(t, "onsite", d["work_mode"])
		assert.Equal(t, "full_time", d["employment_type"])
		assert.Equal(t, pipeline.Date(now).AddDate(0, 0, 30).Format(time.DateOnly), d["application_deadline"])
		assert.Equal(t, now.Format(time.RFC3339), d["created_at"])
		assert.Equal(t, now.Format(time.RFC3339), d["updated_at"])
		assert.Contains(t, string(r.Body), `"<p>SQL</p>"`, "HTML is not escaped")

		// The creator owns it: mia, a member, can read it and its
		// default pipeline.
		r = e.do(t, "GET", jobPath(id)+"/stages", e.token("mia"), nil)
		require.Equal(t, http.StatusOK, r.Code)
		var names []any
		for _, s := range r.Items(t) {
			names = append(names, s["name"])
		}
		assert.Equal(t, []any{"Applied", "Screening", "Interview", "Offer", "Hired"}, names)

		acts := e.Activity(t)
		require.Len(t, acts, 1)
		a := acts[0]
		assert.Equal(t, pipeline.ActionJobCreated, a.Action)
		assert.Equal(t, pipeline.SubjectJob, a.SubjectType)
		assert.Equal(t, id, a.SubjectID)
		assert.Equal(t, e.Res.Users["mia"], a.UserID)
		assert.Equal(t, e.Res.Teams["acme"], a.TeamID)
		assert.Equal(t, e.tokenID(t, "mia"), a.TokenID)
		assert.Equal(t, "192.0.2.1", a.IP)
		var changes map[string]map[string]any
		require.NoError(t, json.Unmarshal(a.Changes, &changes))
		assert.Equal(t, map[string]any{"before": nil, "after": "Data Engineer"}, changes["title"])
	})
	each(t, "empty description", func(t *testing.T, e *env) {
		r := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), map[string]any{"title": "No description"})
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		assert.Equal(t, "", r.Data(t)["description"])
	})
	each(t, "title length in code points", func(t *testing.T, e *env) {
		r := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), map[string]any{"title": strings.Repeat("é", 255)})
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		assert.Equal(t, strings.Repeat("é", 255), r.Data(t)["title"])
		r = e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), map[string]any{"title": strings.Repeat("日", 255)})
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
	})
}

// TestAPI_CreateJob_Invalid: every case is refused on one world, which
// holds nothing more at the end.
func TestAPI_CreateJob_Invalid(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		before := len(e.Activity(t))
		cases := []struct {
			name   string
			body   any
			fields []string
		}{
			{"missing title", map[string]any{"description": "x"}, []string{"title"}},
			{"empty body", "", []string{"title"}},
			{"empty object", "{}", []string{"title"}},
			{"title 256 code points", map[string]any{"title": strings.Repeat("é", 256)}, []string{"title"}},
			{"title 256 ascii", map[string]any{"title": strings.Repeat("a", 256)}, []string{"title"}},
			{"blank title", map[string]any{"title": " \t\n "}, []string{"title"}},
			{"empty title", map[string]any{"title": ""}, []string{"title"}},
			{"status is an unknown field", map[string]any{"title": "x", "status": "open"}, []string{"status"}},
			{"unknown fields", map[string]any{"title": "x", "work_mode": "remote", "foo": 1}, []string{"work_mode", "foo"}},
			{"title a number", map[string]any{"title": 5}, []string{"title"}},
			{"title null", map[string]any{"title": nil}, []string{"title"}},
			{"title an array", map[string]any{"title": []string{"x"}}, []string{"title"}},
			{"description wrong type", map[string]any{"title": "x", "description": true}, []string{"description"}},
			{"every offending field", map[string]any{"title": 1, "description": nil, "extra": "x"}, []string{"title", "description", "extra"}},
			{"malformed JSON", `{"title": "x"`, []string{"body"}},
			{"trailing garbage", `{"title": "x"} x`, []string{"body"}},
			{"array", `[{"title": "x"}]`, []string{"body"}},
			{"string", `"title"`, []string{"body"}},
			{"null", `null`, []string{"body"}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), tc.body)
				requireValidation(t, r, tc.fields...)
			})
		}
		assert.Len(t, e.Activity(t), before, "nothing written")
	})
}

func TestAPI_UpdateJob(t *testing.T) {
	each(t, "status", func(t *testing.T, e *env) {
		backend := e.Res.Jobs["backend"]
		e.clock.Advance(time.Minute)
		r := e.do(t, "PATCH", jobPath(backend), e.token("mia"), map[string]any{"status": "draft"})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		d := r.Data(t)
		assert.Equal(t, jobFullFields, keys(d))
		assert.Equal(t, "draft", d["status"])
		assert.Equal(t, "Backend Engineer", d["title"])
		assert.Equal(t, e.clock.Now().Format(time.RFC3339), d["updated_at"])
		assert.Equal(t, "2026-01-02T10:00:00Z", d["created_at"])

		acts := e.Activity(t)
		require.Len(t, acts, 1)
		assert.Equal(t, pipeline.ActionJobUpdated, acts[0].Action)
		assert.Equal(t, backend, acts[0].SubjectID)
		assert.Equal(t, e.Res.Users["mia"], acts[0].UserID)
		assert.Equal(t, e.tokenID(t, "mia"), acts[0].TokenID)
		assert.JSONEq(t, `{"status":{"before":"open","after":"draft"}}`, string(acts[0].Changes))
	})
	each(t, "any status may follow any", func(t *testing.T, e *env) {
		for _, s := range []string{"closed", "open", "draft", "open"} {
			r := e.do(t, "PATCH", jobPath(e.Res.Jobs["backend"]), e.token("olivia"), map[string]any{"status": s})
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			assert.Equal(t, s, r.Data(t)["status"])
		}
	})
	each(t, "title and description", func(t *testing.T, e *env) {
		before := len(e.Activity(t))
		r := e.do(t, "PATCH", jobPath(e.Res.Jobs["backend"]), e.token("olivia"), map[string]any{"title": "Backend Ingénieur", "description": ""})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, "Backend Ingénieur", r.Data(t)["title"])
		assert.Equal(t, "", r.Data(t)["description"])
		acts := e.Activity(t)
		require.Len(t, acts, before+1)
		assert.JSONEq(t, `{"title":{"before":"Backend Engineer","after":"Backend Ingénieur"},"description":{"before":"<p>Go and PostgreSQL.</p>","after":""}}`,
			string(acts[before].Changes))
	})
	each(t, "unchanged writes nothing", func(t *testing.T, e *env) {
		path := jobPath(e.Res.Jobs["backend"])
		r := e.do(t, "PATCH", path, e.token("olivia"), map[string]any{"title": "Backend Ingénieur"})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		before := len(e.Activity(t))
		r = e.do(t, "PATCH", path, e.token("olivia"), map[string]any{"title": "Backend Ingénieur", "status": "open"})
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Len(t, e.Activity(t), before)
	})
}

// TestAPI_UpdateJob_Invalid: every case is refused on one world, which
// holds nothing more at the end.
func TestAPI_UpdateJob_Invalid(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		backend := e.Res.Jobs["backend"]
		t.Run("invalid", func(t *testing.T) {
			before := len(e.Activity(t))
			cases := []struct {
				name   string
				body   any
				fields []string
			}{
				{"no fields", map[string]any{}, []string{"body"}},
				{"empty body", nil, []string{"body"}},
				{"status OPEN", map[string]any{"status": "OPEN"}, []string{"status"}},
				{"status unknown", map[string]any{"status": "archived"}, []string{"status"}},
				{"status null", map[string]any{"status": nil}, []string{"status"}},
				{"blank title", map[string]any{"title": "  "}, []string{"title"}},
				{"long title", map[string]any{"title": strings.Repeat("ü", 256)}, []string{"title"}},
				{"unknown field", map[string]any{"work_mode": "remote"}, []string{"work_mode"}},
				{"wrong types", map[string]any{"title": 1, "description": 2, "status": 3}, []string{"title", "description", "status"}},
				{"malformed JSON", `{"status":`, []string{"body"}},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					requireValidation(t, e.do(t, "PATCH", jobPath(backend), e.token("olivia"), tc.body), tc.fields...)
				})
			}
			assert.Len(t, e.Activity(t), before)
		})
		t.Run("not found before invalid", func(t *testing.T) {
			for _, path := range []string{jobPath(e.Res.Jobs["frontend"]), jobPath(999999), "/api/v1/jobs/abc"} {
				r := e.do(t, "PATCH", path, e.token("mia"), `{"status": "OPEN", "x": 1}`)
				requireError(t, r, http.StatusNotFound, pipeline.ENotFound)
			}
		})
	})
}

func TestAPI_Stages(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		r := e.do(t, "GET", jobPath(e.Res.Jobs["backend"])+"/stages", e.token("olivia_jobs_read"), nil)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, []string{"data"}, keys(r.Object(t)))
		st := e.Res.Stages["backend"]
		var want []map[string]any
		for _, name := range pipeline.DefaultStages {
			want = append(want, map[string]any{"id": float64(st[name]), "name": name})
		}
		assert.Equal(t, want, r.Items(t))
	})
}
