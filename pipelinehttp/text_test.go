package pipelinehttp

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// badJSONStrings are JSON strings, as sent on the wire, whose text cannot be
// stored as sent: encoding/json would decode every one but the NUL to
// U+FFFD.
var badJSONStrings = map[string]string{
	"NUL escape":            `"a\u0000b"`,
	"bytes not UTF-8":       "\"\xff\xfe\"",
	"lone high surrogate":   `"\ud800"`,
	"lone low surrogate":    `"x\udc00"`,
	"high, then no low":     `"\ud83d\u0041"`,
	"surrogate as bytes":    "\"\xed\xa0\x80\"",
	"overlong UTF-8":        "\"\xc0\xaf\"",
	"truncated UTF-8":       "\"caf\xc3\"",
	"surrogates reversed":   `"\ude00\ud83d"`,
	"escaped NUL in middle": `"Engineer\u0000(remote)"`,
}

// TestAPI_Text_Body: a string field of any write whose text is not valid
// answers 422 naming the field, and nothing is written.
func TestAPI_Text_Body(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		olivia := e.token("olivia")
		backend, ada := jobPath(e.Job("backend")), candidatePath(e.Job("backend"), e.Res.Candidates["ada"])
		writes := []struct {
			method, path, field, body string // body holds %s where the string goes
		}{
			{"POST", "/api/v1/jobs", "title", `{"title":%s}`},
			{"POST", "/api/v1/jobs", "description", `{"title":"Engineer","description":%s}`},
			{"PATCH", backend, "title", `{"title":%s}`},
			{"PATCH", backend, "description", `{"description":%s}`},
			{"PATCH", backend, "status", `{"status":%s}`},
			{"POST", ada + "/notes", "content", `{"content":%s}`},
			{"POST", ada + "/rating", "rating", `{"rating":%s}`},
			{"POST", ada + "/stage", "stage", `{"stage":%s}`},
		}
		for name, bad := range badJSONStrings {
			t.Run(name, func(t *testing.T) {
				for _, w := range writes {
					body := fmt.Sprintf(w.body, bad)
					r := e.do(t, w.method, w.path, olivia, body, IdempotencyKeyHeader, "text-"+w.field)
					requireValidation(t, r, w.field)
				}
				assert.Empty(t, e.Activity(t), "nothing was written")
				r := e.do(t, "GET", backend, olivia, nil)
				assert.Equal(t, "Backend Engineer", r.Data(t)["title"])
			})
		}
	})
	each(t, "stored as sent", func(t *testing.T, e *env) {
		olivia := e.token("olivia")
		ada := candidatePath(e.Job("backend"), e.Res.Candidates["ada"])
		r := e.do(t, "POST", ada+"/notes", olivia, `{"content":"\ud83d\ude00 caf\u00e9 \u00e0 \"Paris\"\t\\"}`)
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		assert.Equal(t, "😀 café à \"Paris\"\t\\", r.Data(t)["content"])
		r = e.do(t, "POST", "/api/v1/jobs", olivia, `{"title":"Ingénieur \ud834\udd1e"}`)
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		r = e.do(t, "GET", jobPath(num(t, r.Data(t)["id"])), olivia, nil)
		assert.Equal(t, "Ingénieur 𝄞", r.Data(t)["title"])
	})
	each(t, "a key is not fooled by repaired text", func(t *testing.T, e *env) {
		ada := candidatePath(e.Job("backend"), e.Res.Candidates["ada"]) + "/notes"
		r := e.do(t, "POST", ada, e.token("olivia"), `{"content":"\ufffd"}`, IdempotencyKeyHeader, "k1")
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		// encoding/json reads this body as the first one; it is another.
		r = e.do(t, "POST", ada, e.token("olivia"), `{"content":"\ud800"}`, IdempotencyKeyHeader, "k1")
		requireValidation(t, r, IdempotencyKeyHeader)
	})
	each(t, "a refused key is free", func(t *testing.T, e *env) {
		r := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), `{"title":"\ud800"}`, IdempotencyKeyHeader, "k1")
		requireValidation(t, r, "title")
		r = e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), `{"title":"Fixed"}`, IdempotencyKeyHeader, "k1")
		require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		assert.Empty(t, r.Header.Get(ReplayHeader))
	})
}

// badQueryValues are query values, percent-encoded as sent, that are not
// valid text or not percent-encoded at all.
var badQueryValues = map[string]string{
	"NUL":                 "a%00b",
	"bytes not UTF-8":     "%FF%FE",
	"surrogate as bytes":  "%ED%A0%80",
	"overlong UTF-8":      "%C0%AF",
	"broken escape":       "a%zz",
	"truncated escape":    "a%F",
	"NUL after text":      "Backend%00",
	"truncated character": "caf%C3",
}

// TestAPI_Text_Query: each query parameter of the lists answers 422 naming
// it when its value is not valid text or not percent-encoded, after the
// scope and record checks.
func TestAPI_Text_Query(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		olivia := e.token("olivia")
		candidates := jobPath(e.Job("backend")) + "/candidates"
		for name, bad := range badQueryValues {
			t.Run(name, func(t *testing.T) {
				for _, tc := range []struct{ path, param string }{
					{"/api/v1/jobs", "search"},
					{"/api/v1/jobs", "status"},
					{"/api/v1/jobs", "page"},
					{candidates, "search"},
					{candidates, "stage"},
					{candidates, "page"},
				} {
					r := e.do(t, "GET", tc.path+"?"+tc.param+"="+bad, olivia, nil)
					requireValidation(t, r, tc.param)
				}
				// The record comes first: a job the token cannot reach is 404.
				r := e.do(t, "GET", jobPath(e.Job("ops"))+"/candidates?search="+bad, olivia, nil)
				requireError(t, r, http.StatusNotFound, "not_found")
			})
		}
		t.Run("valid text", func(t *testing.T) {
			r := e.do(t, "GET", "/api/v1/jobs?search=%F0%9F%98%80", olivia, nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			assert.Empty(t, r.Items(t))
		})
		t.Run("a semicolon is a character", func(t *testing.T) {
			r := e.do(t, "GET", "/api/v1/jobs?search=Backend;x", olivia, nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			assert.Empty(t, r.Items(t), "no title holds \"Backend;x\"")
			first, _ := r.Object(t)["links"].(map[string]any)["first"].(string)
			assert.Contains(t, first, "search=Backend%3Bx")
		})
	})
}

// TestAPI_Text_Headers: the headers the API reads. A token holding bytes
// that are not a token's is no token (401); an Idempotency-Key that is not
// printable ASCII is refused naming it (422) in its place of the order,
// with nothing written; an X-Request-Id that is not sane is replaced.
func TestAPI_Text_Headers(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		olivia := e.token("olivia")
		bad := []string{"\x00", "\xff", "\xed\xa0\x80", "k\x00ey", "clé\xff"}
		for _, v := range bad {
			t.Run(fmt.Sprintf("%q", v), func(t *testing.T) {
				r := e.do(t, "GET", "/api/v1/me", "", nil, "Authorization", "Bearer "+olivia[:10]+v+olivia[10:])
				require.Equal(t, http.StatusUnauthorized, r.Code)
				assert.Equal(t, unauthenticatedBody, string(r.Body))

				r = e.do(t, "POST", "/api/v1/jobs", olivia, map[string]any{"title": "Keyed"}, IdempotencyKeyHeader, v)
				requireValidation(t, r, IdempotencyKeyHeader)
				r = e.do(t, "POST", candidatePath(e.Job("backend"), e.Res.Candidates["ken"])+"/notes", olivia,
					map[string]any{"content": "x"}, IdempotencyKeyHeader, v)
				requireError(t, r, http.StatusNotFound, "not_found")

				r = e.do(t, "GET", "/api/v1/me", olivia, nil, RequestIDHeader, "req"+v)
				require.Equal(t, http.StatusOK, r.Code)
				assert.NotContains(t, r.Header.Get(RequestIDHeader), "req", "a fresh id")
				assert.True(t, saneRequestID(r.Header.Get(RequestIDHeader)))
			})
		}
		t.Run("nothing written", func(t *testing.T) {
			for _, v := range bad {
				e.do(t, "POST", "/api/v1/jobs", olivia, map[string]any{"title": "Keyed"}, IdempotencyKeyHeader, v)
			}
			assert.Empty(t, e.Activity(t))
			r := e.do(t, "GET", "/api/v1/jobs?search=Keyed", olivia, nil)
			assert.Empty(t, r.Items(t))
			assert.False(t, strings.Contains(e.logs.String(), "\x00"), "no NUL reaches the log")
		})
	})
}
