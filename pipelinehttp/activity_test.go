package pipelinehttp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

var entryFields = sorted("id", "action", "subject", "job_id", "actor", "changes", "reason", "approved_by", "created_at")

// feedPage reads one page of the feed at path as token.
func feedPage(t *testing.T, h http.Handler, path, token string) (ids []int64, next string, r *Response) {
	t.Helper()
	r = do(t, h, "GET", path, token, nil)
	require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
	links := r.Object(t)["links"].(map[string]any)
	meta := r.Object(t)["meta"].(map[string]any)
	next = links["next"].(string)
	require.Contains(t, next, "after="+url.QueryEscape(meta["next_cursor"].(string)), "links.next carries meta.next_cursor")
	u, err := url.Parse(next)
	require.NoError(t, err)
	return r.IDs(t), u.RequestURI(), r
}

// awaitFeed waits until token's feed shows n entries: on PostgreSQL the feed
// serves an entry once every transaction older than its own has ended,
// anywhere on the server (other tests' included), so a committed entry may
// take a moment to appear. What it shows then stays as it is.
func awaitFeed(t *testing.T, h http.Handler, token string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ids, _, _ := feedPage(t, h, "/api/v1/activity?limit=100", token)
		if len(ids) >= n || time.Now().After(deadline) {
			require.Len(t, ids, n, "the feed settles")
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestAPI_Activity(t *testing.T) {
	each(t, "shape", func(t *testing.T, e *env) {
		moveAda(t, e, "olivia", "Screening")
		awaitFeed(t, e.h, e.token("olivia"), 1)
		r := e.do(t, "GET", "/api/v1/activity", e.token("olivia"), nil)
		require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
		assert.Equal(t, sorted("data", "links", "meta"), keys(r.Object(t)))
		items := r.Items(t)
		require.Len(t, items, 1)
		entry := items[0]
		assert.Equal(t, entryFields, keys(entry))
		assert.Equal(t, "candidate.stage_changed", entry["action"])
		assert.Equal(t, map[string]any{"type": "candidate", "id": float64(e.Res.Candidates["ada"])}, entry["subject"])
		assert.Equal(t, float64(e.Job("backend")), entry["job_id"])
		assert.Equal(t, map[string]any{
			"user":     map[string]any{"id": float64(e.User("olivia")), "name": "Olivia Owner"},
			"token_id": float64(e.tokenID(t, "olivia")),
		}, entry["actor"])
		assert.Equal(t, map[string]any{"stage": map[string]any{"before": "Applied", "after": "Screening"}}, entry["changes"])
		assert.Regexp(t, timestampRE, entry["created_at"])
		assert.NotContains(t, string(r.Body), storetest.IP, "the IP address stays out")
		meta := r.Object(t)["meta"].(map[string]any)
		assert.Equal(t, false, meta["has_more"])
		assert.Equal(t, "http://example.com/api/v1/activity?after="+url.QueryEscape(meta["next_cursor"].(string)),
			r.Object(t)["links"].(map[string]any)["next"])
	})
	each(t, "following next", func(t *testing.T, e *env) {
		for _, stage := range []string{"Screening", "Interview", "Offer", "Hired", "Applied"} {
			moveAda(t, e, "olivia", stage)
		}
		awaitFeed(t, e.h, e.token("olivia"), 5)
		all := e.Activity(t)
		var want []int64
		for _, a := range all {
			want = append(want, a.ID)
		}
		var got []int64
		path := "/api/v1/activity?limit=2"
		for range 3 {
			ids, next, r := feedPage(t, e.h, path, e.token("olivia"))
			assert.LessOrEqual(t, len(ids), 2)
			assert.Equal(t, len(got)+len(ids) < len(want), r.Object(t)["meta"].(map[string]any)["has_more"])
			assert.Contains(t, next, "limit=2", "next keeps the page size")
			got = append(got, ids...)
			path = next
		}
		assert.Equal(t, want, got)
		// The last page's next is where later entries appear.
		ids, same, _ := feedPage(t, e.h, path, e.token("olivia"))
		assert.Empty(t, ids)
		assert.Equal(t, path, same, "an empty page keeps the cursor")
		moveAda(t, e, "olivia", "Screening")
		awaitFeed(t, e.h, e.token("olivia"), 6)
		ids, _, _ = feedPage(t, e.h, path, e.token("olivia"))
		assert.Len(t, ids, 1, "following next later returns what was written since")
	})
}

func TestAPI_Activity_Filters(t *testing.T) {
	each(t, "filters", func(t *testing.T, e *env) {
		moveAda(t, e, "olivia", "Screening")
		r := e.do(t, "POST", "/api/v1/jobs", e.token("olivia"), map[string]any{"title": "Data Engineer"})
		require.Equal(t, http.StatusCreated, r.Code)
		moveAda(t, e, "olivia", "Interview")
		awaitFeed(t, e.h, e.token("olivia"), 3)

		ids, next, _ := feedPage(t, e.h, "/api/v1/activity?action=job.created&action=job.updated", e.token("olivia"))
		assert.Len(t, ids, 1)
		assert.Contains(t, next, "action=job.created&action=job.updated")
		ids, _, _ = feedPage(t, e.h, "/api/v1/activity?action=candidate.stage_changed", e.token("olivia"))
		assert.Len(t, ids, 2)

		future := url.QueryEscape(e.clock.Now().Add(time.Hour).Format(time.RFC3339))
		ids, next, _ = feedPage(t, e.h, "/api/v1/activity?since="+future, e.token("olivia"))
		assert.Empty(t, ids)
		assert.NotContains(t, next, "since", "since has done its part")
		e.clock.Advance(2 * time.Hour)
		moveAda(t, e, "olivia", "Offer")
		awaitFeed(t, e.h, e.token("olivia"), 4)
		ids, _, _ = feedPage(t, e.h, next, e.token("olivia"))
		assert.Len(t, ids, 1, "an empty page from since resumes after what was there")
		past := url.QueryEscape(e.clock.Now().Add(-48 * time.Hour).Format(time.RFC3339))
		ids, _, _ = feedPage(t, e.h, "/api/v1/activity?since="+past, e.token("olivia"))
		assert.Len(t, ids, 4)
		ids, _, _ = feedPage(t, e.h, next+"&since="+future, e.token("olivia"))
		assert.Len(t, ids, 1, "since is ignored after a cursor")
		ids, _, _ = feedPage(t, e.h, next+"&since="+future+"&since=yesterday", e.token("olivia"))
		assert.Len(t, ids, 1, "however it is sent")
	})
}

// TestAPI_Activity_Since: since names where the feed starts, the first
// entry created at or after it; the entries after that one follow in feed
// order whatever their own times (a replica's clock behind the others'),
// and the page size does not change which entries are seen.
func TestAPI_Activity_Since(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		t0 := e.clock.Now()
		e.clock.Advance(10 * time.Second)
		moveAda(t, e, "olivia", "Screening")
		e.clock.Advance(-5 * time.Second) // written by a replica 5 s behind
		moveAda(t, e, "olivia", "Interview")
		e.clock.Advance(15 * time.Second)
		moveAda(t, e, "olivia", "Offer")
		awaitFeed(t, e.h, e.token("olivia"), 3)
		all, _, _ := feedPage(t, e.h, "/api/v1/activity", e.token("olivia"))
		require.Len(t, all, 3)

		since := url.QueryEscape(t0.Add(8 * time.Second).UTC().Format(time.RFC3339))
		for _, limit := range []string{"50", "2", "1"} {
			var seen []int64
			path := "/api/v1/activity?limit=" + limit + "&since=" + since
			for range 5 {
				ids, next, _ := feedPage(t, e.h, path, e.token("olivia"))
				seen = append(seen, ids...)
				path = next
			}
			assert.Equal(t, all, seen, "limit %s", limit)
		}
		since = url.QueryEscape(t0.Add(12 * time.Second).UTC().Format(time.RFC3339))
		ids, _, _ := feedPage(t, e.h, "/api/v1/activity?since="+since, e.token("olivia"))
		assert.Equal(t, all[2:], ids, "the first entry at or after since is the last one")
	})
}

func TestAPI_Activity_BadQuery(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		t.Run("bad query", func(t *testing.T) {
			for _, tc := range []struct{ query, field string }{
				{"limit=0", "limit"}, {"limit=101", "limit"}, {"limit=x", "limit"}, {"limit=", "limit"},
				{"since=yesterday", "since"}, {"since=", "since"},
				{"after=", "after"}, {"after=bm9wZQ", "after"}, {"after=%21%21", "after"},
				{"action=job.deleted", "action"}, {"action=", "action"},
				{"limit=5&limit=500", "limit"}, {"since=2026-01-01T00:00:00Z&since=2026-01-02T00:00:00Z", "since"},
			} {
				requireValidation(t, e.do(t, "GET", "/api/v1/activity?"+tc.query, e.token("olivia"), nil), tc.field)
			}
		})
		t.Run("scope", func(t *testing.T) {
			r := e.do(t, "GET", "/api/v1/activity?limit=0", e.token("olivia_jobs_read"), nil)
			requireError(t, r, http.StatusForbidden, pipeline.EInsufficientScope)
			assert.Equal(t, map[string]any{"required_scope": "activity:read"}, r.Details(t))
		})
	})
}

// TestAPI_Activity_Visibility: the feed shows the entries of the jobs the
// reader reaches, and a webhook's entries to its team's owners and admins.
func TestAPI_Activity_Visibility(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		moveAda(t, e, "olivia", "Screening") // backend: mia is assigned
		ken := candidatePath(e.Job("frontend"), e.Res.Candidates["ken"]) + "/notes"
		r := e.do(t, "POST", ken, e.token("nina"), map[string]any{"content": "Strong."}) // frontend: nina's
		require.Equal(t, http.StatusCreated, r.Code)
		hook := createWebhook(t, e, "olivia", map[string]any{"url": "https://hooks.example.test/a"})
		r = e.do(t, "DELETE", "/api/v1/webhooks/"+itoa(hook.id), e.token("adam"), nil)
		require.Equal(t, http.StatusNoContent, r.Code)
		ops := e.do(t, "PATCH", jobPath(e.Job("ops")), e.token("gary"), map[string]any{"status": "draft"})
		require.Equal(t, http.StatusOK, ops.Code)
		awaitFeed(t, e.h, e.token("olivia"), 4)
		awaitFeed(t, e.h, e.token("gary"), 1)

		actions := func(token string) []string {
			r := e.do(t, "GET", "/api/v1/activity", e.token(token), nil)
			require.Equal(t, http.StatusOK, r.Code, "%s", r.Body)
			var out []string
			for _, it := range r.Items(t) {
				out = append(out, it["action"].(string))
			}
			return out
		}
		all := []string{"candidate.stage_changed", "candidate.note_added", "webhook.created", "webhook.deleted"}
		assert.Equal(t, all, actions("olivia"), "an owner reads the whole team")
		assert.Equal(t, all, actions("adam"), "so does an admin")
		assert.Equal(t, []string{"candidate.stage_changed"}, actions("mia"), "a member: the jobs she is assigned to")
		assert.Equal(t, []string{"candidate.note_added"}, actions("nina"), "a member: the jobs she owns")
		assert.Equal(t, []string{"job.updated"}, actions("gary"), "another team's owner reads none of acme's")

		webhookEntry := e.do(t, "GET", "/api/v1/activity?action=webhook.created", e.token("adam"), nil).Items(t)[0]
		assert.Nil(t, webhookEntry["job_id"])
		assert.Equal(t, map[string]any{"type": "webhook", "id": float64(hook.id)}, webhookEntry["subject"])
	})
}

// TestAPI_Activity_ConcurrentReplicas follows the feed while 4 writers
// write through two handlers (two store handles, as two replicas) on one
// database: the reader sees every entry exactly once, in the feed's order.
func TestAPI_Activity_ConcurrentReplicas(t *testing.T) {
	opens := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return "sqlite:" + t.TempDir() + "/pipeline.db" },
		"postgres": func(t *testing.T) string { return storetest.PostgresSchemaDSN(t) },
	}
	for name, dsn := range opens {
		t.Run(name, func(t *testing.T) { concurrentFeed(t, dsn(t)) })
	}
}

func concurrentFeed(t *testing.T, dsn string) {
	ctx := context.Background()
	open := func() (*pipelinestore.DB, http.Handler) {
		db, err := pipelinestore.Open(ctx, dsn)
		require.NoError(t, err)
		t.Cleanup(func() { _ = db.Close() })
		require.NoError(t, db.Migrate(ctx))
		svc := pipeline.NewService(db, pipeline.WithLimiter(pipeline.NewMemoryLimiter(1<<20)))
		return db, New(svc, Config{})
	}
	db1, h1 := open()
	_, h2 := open()
	replicas := []http.Handler{h1, h2}
	seed := storetest.Seed(t, pipeline.NewOperator(db1))
	olivia := seed.Tokens["olivia"]

	const writers, writes = 4, 15
	var wg sync.WaitGroup
	done := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			cands := []string{"ada", "grace", "linus"}
			for i := range writes {
				path := candidatePath(seed.Jobs["backend"], seed.Candidates[cands[(w+i)%3]]) + "/notes"
				r := send(replicas[(w+i)%2], "POST", path, olivia, fmt.Sprintf(`{"content":"writer %d note %d"}`, w, i))
				assert.Equal(t, http.StatusCreated, r.code, "%s", r.body)
			}
		})
	}
	go func() { wg.Wait(); close(done) }()

	var seen []int64
	path := "/api/v1/activity?limit=7"
	read := func(i int) {
		ids, next, _ := feedPage(t, replicas[i%2], path, olivia)
		seen = append(seen, ids...)
		path = next
	}
	for i := 0; ; i++ {
		select {
		case <-done:
		default:
			read(i)
			continue
		}
		break
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(seen) < writers*writes && time.Now().Before(deadline) {
		read(0)
	}
	read(1) // nothing more comes
	require.Len(t, seen, writers*writes, "every entry, exactly once")
	unique := slices.Clone(seen)
	slices.Sort(unique)
	assert.Len(t, slices.Compact(unique), writers*writes, "no entry twice")

	// The order is the feed's: read again from the beginning, at rest.
	var again []int64
	path = "/api/v1/activity?limit=100"
	ids, _, _ := feedPage(t, h2, path, olivia)
	again = append(again, ids...)
	assert.Equal(t, again, seen, "in the feed's order")
	var logged []int64
	entries, err := pipeline.NewOperator(db1).ActivityLog(ctx, nil)
	require.NoError(t, err)
	for _, a := range entries {
		logged = append(logged, a.ID)
	}
	assert.ElementsMatch(t, logged, seen, "the whole log")
	if strings.HasPrefix(dsn, "sqlite:") {
		assert.True(t, slices.IsSorted(seen), "on SQLite the order is the ids'")
	}
}
