package pipelinehttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

func TestAPI_Health(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		t.Run("healthz", func(t *testing.T) {
			r := do(t, New(pipeline.NewService(db), Config{}), "GET", "/healthz", "", nil)
			require.Equal(t, http.StatusOK, r.Code)
			assert.Equal(t, `{"status":"ok"}`, string(r.Body))
		})
		t.Run("readyz", func(t *testing.T) {
			r := do(t, New(pipeline.NewService(db), Config{}), "GET", "/readyz", "", nil)
			require.Equal(t, http.StatusOK, r.Code)
			assert.Equal(t, `{"status":"ok"}`, string(r.Body))
		})
		t.Run("readyz without a database", func(t *testing.T) {
			store := unreachableStore{Store: db}
			r := do(t, New(pipeline.NewService(store), Config{}), "GET", "/readyz", "", nil)
			require.Equal(t, http.StatusServiceUnavailable, r.Code)
			assert.Equal(t, `{"status":"unavailable"}`, string(r.Body))
		})
		t.Run("no token needed", func(t *testing.T) {
			r := do(t, New(pipeline.NewService(db), Config{}), "GET", "/healthz", "", nil, "Authorization", "Bearer nope")
			require.Equal(t, http.StatusOK, r.Code)
		})
	})
}

// unreachableStore is a store whose database does not answer a ping.
type unreachableStore struct{ pipeline.Store }

func (unreachableStore) Ping(context.Context) error {
	return errors.New("dial tcp: connection refused")
}

// panickingStore panics on every job list.
type panickingStore struct{ pipeline.Store }

func (s panickingStore) Jobs() pipeline.JobStore { return panickingJobs{s.Store.Jobs()} }

type panickingJobs struct{ pipeline.JobStore }

func (panickingJobs) List(context.Context, pipeline.ListJobsParams) (pipeline.List[pipeline.Job], error) {
	panic("jobs_secret_internal exploded")
}

// failingStore fails every job list with a driver error carrying details
// that must not reach the client.
type failingStore struct{ pipeline.Store }

func (s failingStore) Jobs() pipeline.JobStore { return failingJobs{s.Store.Jobs()} }

type failingJobs struct{ pipeline.JobStore }

func (failingJobs) List(context.Context, pipeline.ListJobsParams) (pipeline.List[pipeline.Job], error) {
	return pipeline.List[pipeline.Job]{}, errors.New(`pq: relation "jobs_secret_internal" does not exist`)
}

func TestAPI_Routing(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		olivia := e.token("olivia")
		t.Run("unknown route", func(t *testing.T) {
			for _, path := range []string{"/api/v1/nowhere", "/api/v2/jobs", "/api/v1/jobs/", "/api/v1/JOBS", "/api/v1/jobs/1/candidates/2/stage/x"} {
				r := e.do(t, "GET", path, olivia, nil)
				requireError(t, r, http.StatusNotFound, pipeline.ENotFound)
			}
		})
		t.Run("unknown route without a token", func(t *testing.T) {
			r := e.do(t, "GET", "/api/v1/nowhere", "", nil)
			require.Equal(t, http.StatusUnauthorized, r.Code)
			assert.Equal(t, unauthenticatedBody, string(r.Body))
		})
		t.Run("unknown route outside the API", func(t *testing.T) {
			for _, path := range []string{"/nowhere", "/x/api/v1/me"} {
				r := e.do(t, "GET", path, "", nil)
				requireError(t, r, http.StatusNotFound, pipeline.ENotFound)
				assert.Empty(t, r.Header.Get(HeaderRateLimit), "%s is not rate-limited", path)
			}
		})
		t.Run("wrong method", func(t *testing.T) {
			for _, tc := range []struct{ method, path, allow string }{
				{"DELETE", jobPath(e.Res.Jobs["backend"]), "GET, PATCH"},
				{"PUT", "/api/v1/jobs", "GET, POST"},
				{"PUT", candidatePath(1, 2) + "/notes", "GET, POST"},
				{"POST", "/api/v1/me", "GET"},
			} {
				r := e.do(t, tc.method, tc.path, olivia, nil)
				requireError(t, r, http.StatusMethodNotAllowed, CodeMethodNotAllowed)
				assert.ElementsMatch(t, strings.Split(tc.allow, ", "), strings.Split(r.Header.Get("Allow"), ", "), "%s %s", tc.method, tc.path)
			}
			r := e.do(t, "POST", "/healthz", "", nil)
			requireError(t, r, http.StatusMethodNotAllowed, CodeMethodNotAllowed)
			assert.Equal(t, "GET, HEAD", r.Header.Get("Allow"))
		})
	})
}

func TestAPI_PayloadTooLarge(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		olivia := e.token("olivia")
		// A valid body of exactly 1 MiB is read; one byte more is refused.
		// The body is padded with JSON white space, since a description
		// may hold no more than 65,535 characters.
		prefix, suffix := `{"title":"Big","description":"<p>Go</p>"`, `}`
		exact := prefix + strings.Repeat(" ", MaxBodyBytes-len(prefix)-len(suffix)) + suffix
		require.Len(t, exact, MaxBodyBytes)
		r := e.do(t, "POST", "/api/v1/jobs", olivia, exact)
		require.Equal(t, http.StatusCreated, r.Code)

		over := prefix + strings.Repeat(" ", MaxBodyBytes-len(prefix)-len(suffix)+1) + suffix
		before := len(e.Activity(t))
		for _, path := range []string{"/api/v1/jobs", candidatePath(e.Res.Jobs["backend"], e.Res.Candidates["ada"]) + "/notes"} {
			r = e.do(t, "POST", path, olivia, over)
			requireError(t, r, http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
		}
		r = e.do(t, "PATCH", jobPath(e.Res.Jobs["backend"]), olivia, over)
		requireError(t, r, http.StatusRequestEntityTooLarge, CodePayloadTooLarge)
		assert.Len(t, e.Activity(t), before)

		// The checks before the body come first (decisions §3).
		r = e.do(t, "POST", "/api/v1/jobs", e.token("olivia_jobs_read"), over)
		requireError(t, r, http.StatusForbidden, pipeline.EInsufficientScope)
		r = e.do(t, "PATCH", jobPath(999999), olivia, over)
		requireError(t, r, http.StatusNotFound, pipeline.ENotFound)
		r = e.do(t, "PATCH", jobPath(e.Res.Jobs["backend"]), "", over)
		requireError(t, r, http.StatusUnauthorized, pipeline.EUnauthenticated)
	})
}

func TestAPI_RequestID(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		for _, tc := range []struct {
			name, sent string
			echoed     bool
		}{
			{"sane", "req-42_A.b", true},
			{"128 characters", strings.Repeat("a", 128), true},
			{"129 characters", strings.Repeat("a", 129), false},
			{"space", "req 42", false},
			{"newline", "req\n42", false},
			{"non-ASCII", "réq", false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				for _, path := range []string{"/api/v1/me", "/healthz", "/api/v1/nowhere"} {
					r := e.do(t, "GET", path, e.token("olivia"), nil, RequestIDHeader, tc.sent)
					if tc.echoed {
						assert.Equal(t, tc.sent, r.Header.Get(RequestIDHeader))
					} else {
						assert.NotEqual(t, tc.sent, r.Header.Get(RequestIDHeader))
					}
				}
			})
		}
		t.Run("generated", func(t *testing.T) {
			a := e.do(t, "GET", "/api/v1/me", "", nil).Header.Get(RequestIDHeader)
			b := e.do(t, "GET", "/api/v1/me", "", nil).Header.Get(RequestIDHeader)
			assert.NotEqual(t, a, b)
		})
	})
}

func TestAPI_AccessLog(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		olivia := e.token("olivia")
		e.do(t, "GET", "/api/v1/jobs?search=x&access_token="+olivia, olivia, nil, RequestIDHeader, "log-1")
		e.do(t, "POST", "/api/v1/jobs", olivia, map[string]any{"title": "Logged"}, IdempotencyKeyHeader, "log-key")
		e.do(t, "GET", "/api/v1/me", e.token("olivia_revoked"), nil)
		e.do(t, "GET", "/api/v1/me", "", nil, "Authorization", "Basic "+e.token("adam"))
		logs := e.logs.String()
		for key, value := range e.Res.Tokens {
			assert.NotContains(t, logs, value, "token %s", key)
			assert.NotContains(t, logs, value[len(pipeline.TokenPrefix):], "token %s", key)
		}
		assert.NotContains(t, logs, "Bearer")
		assert.NotContains(t, logs, "Authorization")
		assert.NotContains(t, logs, "access_token")
		lines := strings.Split(strings.TrimSpace(logs), "\n")
		require.Len(t, lines, 4)
		first := lines[0]
		for _, want := range []string{"method=GET", "path=/api/v1/jobs ", "status=200", "request_id=log-1", "user_id=" + itoa(e.Res.Users["olivia"]), "duration="} {
			assert.Contains(t, first, want)
		}
		assert.Contains(t, lines[1], "status=201")
		assert.Contains(t, lines[2], "status=401")
		assert.NotContains(t, lines[2], "user_id=")
	})
}

func TestAPI_ServerError(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		seed := storetest.Seed(t, pipeline.NewOperator(db))
		t.Run("panic", func(t *testing.T) {
			var logs syncBuffer
			svc := pipeline.NewService(panickingStore{Store: db})
			h := New(svc, Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			r := do(t, h, "GET", "/api/v1/jobs", seed.Tokens["olivia"], nil)
			requireError(t, r, http.StatusInternalServerError, pipeline.EInternal)
			assert.Equal(t, `{"error":{"code":"server_error","message":"Server error.","details":null}}`, string(r.Body))
			assert.Contains(t, logs.String(), "jobs_secret_internal", "the panic is logged")
			assert.Contains(t, logs.String(), "status=500")

			// The process keeps serving.
			r = do(t, h, "GET", "/api/v1/me", seed.Tokens["olivia"], nil)
			assert.Equal(t, http.StatusOK, r.Code)
		})
		t.Run("internal error", func(t *testing.T) {
			var logs syncBuffer
			svc := pipeline.NewService(failingStore{Store: db})
			h := New(svc, Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			r := do(t, h, "GET", "/api/v1/jobs", seed.Tokens["olivia"], nil)
			requireError(t, r, http.StatusInternalServerError, pipeline.EInternal)
			assert.Equal(t, `{"error":{"code":"server_error","message":"Server error.","details":null}}`, string(r.Body))
			assert.Contains(t, logs.String(), "jobs_secret_internal", "the cause is logged")
		})
		// A tool's failure is the same server_error, as a tool error, its
		// cause logged with the tool's name; the process keeps serving.
		for name, store := range map[string]pipeline.Store{"mcp panic": panickingStore{Store: db}, "mcp internal error": failingStore{Store: db}} {
			t.Run(name, func(t *testing.T) {
				var logs syncBuffer
				h := New(pipeline.NewService(store), Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
				srv := httptest.NewServer(h)
				defer srv.Close()
				cs, err := mcpClient(t, srv.URL+MCPPath, seed.Tokens["olivia"])
				require.NoError(t, err)
				body, code := toolError(t, callTool(t, cs, "list_jobs", nil))
				assert.Equal(t, pipeline.EInternal, code)
				assert.Equal(t, map[string]any{"error": map[string]any{"code": "server_error", "message": "Server error.", "details": nil}}, body)
				assert.Regexp(t, `level=ERROR msg="server error" .*tool=list_jobs error=.*jobs_secret_internal`, logs.String())
				content(t, callTool(t, cs, "get_me", nil))
			})
		}
	})
}

func TestMount(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		svc := pipeline.NewService(db)
		seed := storetest.Seed(t, pipeline.NewOperator(db))
		app := gin.New()
		app.GET("/", func(c *gin.Context) { c.String(http.StatusOK, "host") })
		Mount(app.Group(testMount), svc, Config{BaseURL: "https://example.test/proxied/"})
		token := seed.Tokens["olivia"]

		r := do(t, app, "GET", "/hiring/api/v1/me", token, nil)
		require.Equal(t, http.StatusOK, r.Code)
		r = do(t, app, "POST", "/hiring/api/v1/jobs", token, map[string]any{"title": "Mounted"})
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		assert.Equal(t, "/proxied/hiring/api/v1/jobs/"+itoa(num(t, r.Data(t)["id"])), r.Header.Get("Location"))
		r = do(t, app, "GET", "/hiring/api/v1/jobs", token, nil)
		require.Equal(t, http.StatusOK, r.Code)
		assert.Equal(t, "https://example.test/proxied/hiring/api/v1/jobs?page=1", r.Object(t)["links"].(map[string]any)["first"])
		r = do(t, app, "GET", "/hiring/api/v1/me", "", nil)
		assert.Equal(t, http.StatusUnauthorized, r.Code)

		// As New does: envelopes for unknown routes and wrong methods.
		r = do(t, app, "GET", "/hiring/api/v1/nothing", token, nil)
		requireError(t, r, http.StatusNotFound, pipeline.ENotFound)
		r = do(t, app, "DELETE", "/hiring/api/v1/me", token, nil)
		requireError(t, r, http.StatusMethodNotAllowed, CodeMethodNotAllowed)
		assert.Equal(t, "GET", r.Header.Get("Allow"))
		r = do(t, app, "GET", "/hiring/api/v1/nothing", "", nil)
		requireError(t, r, http.StatusUnauthorized, pipeline.EUnauthenticated)

		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		assert.Equal(t, "host", rec.Body.String(), "the application's own routes stay its own")
	})
}

// TestNew_Quiet: building the API writes nothing to stdout, as Gin's debug
// mode would.
func TestNew_Quiet(t *testing.T) {
	if os.Getenv(gin.EnvGinMode) != "" {
		t.Skip("GIN_MODE chooses the mode")
	}
	mode := gin.Mode()
	t.Cleanup(func() { gin.SetMode(mode) })
	gin.SetMode(gin.DebugMode)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	stdout := os.Stdout
	os.Stdout = w
	New(nil, Config{})
	Mount(gin.New().Group("/x"), nil, Config{})
	os.Stdout = stdout
	require.NoError(t, w.Close())
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Empty(t, string(out))
}

// TestAPI_ReadObject covers the reading of a body without a database.
func TestAPI_ReadObject(t *testing.T) {
	type body struct {
		title *string
		stage int64
	}
	params := []param[body]{
		optionalField("title", titleSchema, func(in *body) **string { return &in.title }),
		integerField("stage", false, idSchema(), func(in *body) *int64 { return &in.stage }),
	}
	read := func(raw string) (body, pipeline.FieldErrors) {
		in := &input[body]{unread: pipeline.FieldErrors{}}
		readObject(in, []byte(raw), "body", params)
		return in.value, in.unread
	}
	for _, tc := range []struct {
		name string
		body string
		want []string
	}{
		{"empty", "", nil},
		{"whitespace", " \n ", nil},
		{"object", `{"title":"x","stage":3}`, nil},
		{"big integer", `{"stage":9223372036854775807}`, nil},
		{"integer overflow", `{"stage":9223372036854775808}`, []string{"stage"}},
		{"exponent", `{"stage":1e2}`, nil},
		{"whole with a fraction", `{"stage":100.00}`, nil},
		{"fraction", `{"stage":1.5}`, []string{"stage"}},
		{"negative exponent, not whole", `{"stage":15e-1}`, []string{"stage"}},
		{"exponent overflow", `{"stage":1e19}`, []string{"stage"}},
		{"huge exponent", `{"stage":1e999999}`, []string{"stage"}},
		{"huge negative exponent", `{"stage":1e-999999}`, []string{"stage"}},
		{"exponent within the digits", `{"stage":1000000000000000000000e-20}`, nil},
		{"null", `{"title":null}`, []string{"title"}},
		{"spaced null", `{"title": null }`, []string{"title"}},
		{"object value", `{"title":{}}`, []string{"title"}},
		{"unknown", `{"x":1,"y":2}`, []string{"x", "y"}},
		{"not an object", `1`, []string{"body"}},
		{"invalid", `{`, []string{"body"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := read(tc.body)
			var got []string
			for k := range errs {
				got = append(got, k)
			}
			assert.ElementsMatch(t, tc.want, got)
		})
	}
	t.Run("not JSON, or not an object", func(t *testing.T) {
		_, errs := read(`{"a":`)
		assert.Equal(t, []string{"The body is not valid JSON."}, errs["body"])
		_, errs = read(`[1]`)
		assert.Equal(t, []string{"The body must be a JSON object."}, errs["body"])
	})
	t.Run("values", func(t *testing.T) {
		v, errs := read(`{"title":"Ingénieur","stage":7}`)
		assert.Empty(t, errs)
		require.NotNil(t, v.title, "a sent field is present")
		assert.Equal(t, "Ingénieur", *v.title)
		assert.Equal(t, int64(7), v.stage)
		v, errs = read(`{"stage":7}`)
		assert.Empty(t, errs)
		assert.Nil(t, v.title, "an absent field stays absent")
	})
	t.Run("text as sent", func(t *testing.T) {
		// Decoded, not judged: the Service refuses what is not valid text.
		for raw, want := range map[string]string{
			`{"title":"a\u0000b"}`:     "a\x00b",
			"{\"title\":\"\xff\xfe\"}": "\xff\xfe",
			`{"title":"\ud800"}`:       "\xed\xa0\x80",
			`{"title": "x\udc00y" }`:   "x\xed\xb0\x80y",
		} {
			v, errs := read(raw)
			require.Empty(t, errs, raw)
			require.NotNil(t, v.title, raw)
			assert.Equal(t, want, *v.title, raw)
		}
	})
}

// TestJSONText: JSON strings decode exactly as sent; where encoding/json
// agrees (valid text), to the same string.
func TestJSONText(t *testing.T) {
	for raw, want := range map[string]string{
		`""`:                 "",
		`"plain"`:            "plain",
		`"\"\\\/\b\f\n\r\t"`: "\"\\/\b\f\n\r\t",
		`"\u00e9t\u00C9"`:    "étÉ",
		`"\ud83d\ude00"`:     "😀",
		`"\ud83d\u0041"`:     "\xed\xa0\xbdA",
		`"\ude00\ud83d"`:     "\xed\xb8\x80\xed\xa0\xbd",
		`"\ud83d"`:           "\xed\xa0\xbd",
		`"a\u0000b"`:         "a\x00b",
		"\"\xff\"":           "\xff",
		"\"\xc0\xaf\"":       "\xc0\xaf",
		`"é😀"`:               "é😀",
	} {
		got, ok := jsonText([]byte(raw))
		require.True(t, ok, raw)
		assert.Equal(t, want, got, raw)
		var std string
		require.NoError(t, json.Unmarshal([]byte(raw), &std))
		if utf8.ValidString(got) {
			assert.Equal(t, std, got, "where the text is valid, as encoding/json: %s", raw)
		} else {
			assert.Contains(t, std, "\ufffd", "encoding/json would have replaced it: %s", raw)
		}
	}
	for _, raw := range []string{``, `"`, `x`, `1`, `"\u12"`, `"\x"`, `"\"`} {
		_, ok := jsonText([]byte(raw))
		assert.False(t, ok, raw)
	}
}

// TestFaithfulJSON: whether encoding/json decodes a body's text as sent.
func TestFaithfulJSON(t *testing.T) {
	for body, want := range map[string]bool{
		`{"a":"plain é"}`:          true,
		`{"a":"\ud83d\ude00"}`:     true,
		`{"a":"\\ud800"}`:          true, // a backslash, then text
		`{"a":"\u0000\ufffd"}`:     true,
		`{"\ud800":1}`:             false,
		`{"a":"\ud800"}`:           false,
		`{"a":"\udc00\ud800"}`:     false,
		`{"a":"\ud83d\u0041"}`:     false,
		`{"a":"\ud83d"}`:           false,
		"{\"a\":\"\xff\"}":         false,
		"{\"a\":\"\xed\xa0\x80\"}": false,
	} {
		assert.Equal(t, want, faithfulJSON([]byte(body)), body)
	}
}

func TestParseID(t *testing.T) {
	for raw, want := range map[string]int64{"1": 1, "42": 42} {
		got, ok := parseID(raw)
		assert.True(t, ok, raw)
		assert.Equal(t, want, got)
	}
	for _, raw := range []string{"", "0", "-3", "+3", "abc", "1e3", "9223372036854775808"} {
		_, ok := parseID(raw)
		assert.False(t, ok, raw)
	}
}
