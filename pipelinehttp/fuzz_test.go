package pipelinehttp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// The fuzz tests run their seed corpus (testdata/fuzz and the f.Add calls)
// with the other tests; .ci/run also fuzzes each for a bounded time:
//
//	go test -run '^$' -fuzz '^FuzzJSONText$' -fuzztime 20s ./pipelinehttp
//
// The engine's targets serve a seeded SQLite database (fuzzing is a single
// process hammering one engine; the PostgreSQL store decodes nothing).

// FuzzJSONText: any JSON string decodes, exactly as sent: where the text is
// valid it is what encoding/json decodes, and where it is not,
// encoding/json would have replaced something by U+FFFD, as faithfulJSON
// says.
func FuzzJSONText(f *testing.F) {
	for _, s := range []string{"", "plain", `a\u0000b`, "\xff\xfe", `\ud800`, `\ud83d\ude00`, `\ud83d\u0041`, "\xed\xa0\x80", `\"\\\/\b\f\n\r\t`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw := []byte(`"` + s + `"`)
		var std string
		if json.Unmarshal(raw, &std) != nil {
			return // not a JSON string
		}
		got, ok := jsonText(raw)
		require.True(t, ok, "%q", raw)
		assert.Equal(t, utf8.ValidString(got), faithfulJSON(raw), "%q", raw)
		if utf8.ValidString(got) {
			assert.Equal(t, std, got, "%q", raw)
		} else {
			assert.Contains(t, std, "\ufffd", "%q: encoding/json keeps it, so must we", raw)
		}
	})
}

// fuzzEnv is a seeded SQLite database served by an engine whose budget the
// fuzzer never spends.
func fuzzEnv(f *testing.F) *env {
	return newEnv(f, storetest.OpenSQLite(f), withLimiter(pipeline.NewMemoryLimiter(1<<30)))
}

// FuzzWriteBody: any body sent to any write is answered as the document
// says (do checks every response against it), never with a server error;
// and what a write accepts and returns is what encoding/json reads in the
// body, so no text was repaired on the way.
func FuzzWriteBody(f *testing.F) {
	e := fuzzEnv(f)
	ada := candidatePath(e.Job("backend"), e.Res.Candidates["ada"])
	writes := []struct{ method, path string }{
		{"POST", "/api/v1/jobs"},
		{"PATCH", jobPath(e.Job("design"))},
		{"POST", ada + "/notes"},
		{"POST", ada + "/rating"},
		{"POST", ada + "/stage"},
	}
	for i, body := range []string{`{"title":"Engineer"}`, `{"description":"<p>x</p>"}`, `{"content":"Call"}`,
		`{"rating":"maybe"}`, `{"stage":1}`, `{"title":"a\u0000b"}`, "{\"content\":\"\xff\"}", `{"content":"\ud800"}`,
		`{"status":"closed","title":"\ud83d\ude00"}`, `[]`, `{`, ``} {
		f.Add(uint8(i), []byte(body))
	}
	olivia := e.token("olivia")
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		w := writes[int(op)%len(writes)]
		r := e.do(t, w.method, w.path, olivia, body)
		require.NotEqual(t, http.StatusInternalServerError, r.Code, "%s", r.Body)
		if r.Code >= 300 {
			return
		}
		var sent map[string]any
		require.NoError(t, json.Unmarshal(body, &sent), "a write accepted a body that is not a JSON object: %q", body)
		data := r.Data(t)
		for _, field := range []string{"title", "description", "content"} {
			if v, ok := sent[field].(string); ok {
				assert.Equal(t, v, data[field], "%s as sent", field)
				assert.True(t, pipeline.ValidText(v), "%s accepted: %q", field, v)
			}
		}
	})
}

// FuzzListQuery: any query string of either list is answered 200 or 422
// as the document says, never with a server error.
func FuzzListQuery(f *testing.F) {
	e := fuzzEnv(f)
	lists := []string{"/api/v1/jobs", jobPath(e.Job("backend")) + "/candidates"}
	for i, q := range []string{"", "status=draft&page=2", "search=Ing%C3%A9nieur", "search=%00", "search=%FF", "search=%ED%A0%80",
		"page=%zz", "stage=1&stage=x", "search=a;b", "page=0", "status=", "search=%25_%5C", "&&=&page"} {
		f.Add(uint8(i), q)
	}
	olivia := e.token("olivia")
	f.Fuzz(func(t *testing.T, list uint8, query string) {
		req := httptest.NewRequest("GET", lists[int(list)%len(lists)], nil)
		req.URL.RawQuery = query
		req.RequestURI = req.URL.RequestURI()
		req.Header.Set("Authorization", "Bearer "+olivia)
		r := serve(t, e.h, req, nil)
		require.Contains(t, []int{http.StatusOK, http.StatusUnprocessableEntity}, r.Code, "%q: %s", query, r.Body)
		if r.Code == http.StatusOK {
			links, _ := r.Object(t)["links"].(map[string]any)
			first, _ := links["first"].(string)
			assert.True(t, strings.HasPrefix(first, "http://example.com/api/v1/"), "%q: %s", query, first)
		}
	})
}
