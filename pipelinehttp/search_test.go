package pipelinehttp

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAPI_ListCandidates_CommonSearch pages through a search that most of
// a job's candidates match, whose first page walks the list's order and
// whose later pages are sorted from the matches on PostgreSQL: the pages
// together are the job's list filtered by the term, each with the exact
// total and links that keep the search.
func TestAPI_ListCandidates_CommonSearch(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		backend := e.Res.Jobs["backend"]
		list := jobPath(backend) + "/candidates"
		for i := range 60 {
			name := fmt.Sprintf("Person %d", i)
			if i%3 != 0 {
				name = fmt.Sprintf("Pat Johnson %d", i)
			}
			body := fmt.Sprintf(`{"name":%q,"email":"p%d@example.test","applied":"2026-03-%02d"}`, name, i, 1+i%20)
			r := e.do(t, "POST", list, e.token("olivia"), []byte(body))
			require.Equal(t, http.StatusCreated, r.Code, "%s", r.Body)
		}
		var want []int64
		for page := 1; page <= 5; page++ {
			r := e.do(t, "GET", list+"?page="+itoa(int64(page)), e.token("olivia"), nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			for _, item := range r.Items(t) {
				if strings.Contains(item["name"].(string), "Johnson") {
					want = append(want, int64(item["id"].(float64)))
				}
			}
		}
		require.Len(t, want, 40)
		var got []int64
		for page := 1; page <= 3; page++ {
			r := e.do(t, "GET", list+"?search=JOHNSON&page="+itoa(int64(page)), e.token("olivia"), nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			got = append(got, r.IDs(t)...)
			assert.Equal(t, map[string]any{"current_page": float64(page), "last_page": 3.0, "per_page": 15.0, "total": 40.0},
				r.Object(t)["meta"])
			links := r.Object(t)["links"].(map[string]any)
			at := func(p int) string { return "http://example.com" + list + "?page=" + itoa(int64(p)) + "&search=JOHNSON" }
			assert.Equal(t, at(1), links["first"])
			assert.Equal(t, at(3), links["last"])
			if page > 1 {
				assert.Equal(t, at(page-1), links["prev"])
			}
			if page < 3 {
				assert.Equal(t, at(page+1), links["next"])
			} else {
				assert.Nil(t, links["next"])
			}
		}
		assert.Equal(t, want, got)
	})
}
