package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// readFeed follows the feed from cursor after in pages of limit until a
// page says there is no more, and returns every entry and the last cursor.
func readFeed(t *testing.T, w world, ctx context.Context, after string, limit int) ([]pipeline.FeedEntry, string) {
	t.Helper()
	var all []pipeline.FeedEntry
	for range 100 {
		page, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{After: after, Limit: limit})
		require.NoError(t, err)
		require.NotEmpty(t, page.Next, "every page has a cursor")
		assert.LessOrEqual(t, len(page.Entries), limit)
		all = append(all, page.Entries...)
		after = page.Next
		if !page.HasMore {
			return all, after
		}
	}
	t.Fatal("the feed does not end")
	return nil, ""
}

// settleFeed waits until the feed of the caller on ctx shows n entries:
// on PostgreSQL the feed serves an entry once every transaction older than
// its own has ended, anywhere on the server (other tests' included), so a
// committed entry may take a moment to appear.
func settleFeed(t *testing.T, w world, ctx context.Context, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		page, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{Limit: pipeline.MaxFeedLimit})
		require.NoError(t, err)
		if len(page.Entries) >= n || time.Now().After(deadline) {
			require.Len(t, page.Entries, n, "the feed settles")
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// mustJSONField is the JSON of one field of a JSON object.
func mustJSONField(t *testing.T, raw json.RawMessage, field string) string {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m))
	return string(m[field])
}

// notes adds n notes to ada on backend as olivia.
func notes(t *testing.T, w world, n int) {
	t.Helper()
	for i := range n {
		_, err := w.Svc.AddNote(w.As(t, "olivia"), w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewNote{Content: fmt.Sprintf("Note %d", i)})
		require.NoError(t, err)
	}
}

// TestService_FeedPages: the feed in commit order, oldest first, page
// after page, every entry once.
func TestService_FeedPages(t *testing.T) {
	eachWorld(t, "following the cursor reads every entry once, in order", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		notes(t, w, 4)
		_, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Fifth"})
		require.NoError(t, err)
		settleFeed(t, w, ctx, 5)
		entries, next := readFeed(t, w, ctx, "", 2)
		log := w.Activity(t)
		require.Len(t, entries, len(log))
		for i, e := range entries {
			assert.Equal(t, log[i].ID, e.ID, "the log's order")
		}
		later, _ := readFeed(t, w, ctx, next, 2)
		assert.Empty(t, later, "nothing new yet")

		_, err = w.Svc.RateCandidate(ctx, w.Job("backend"), w.Res.Candidates["grace"], pipeline.NewRating{Value: pipeline.Maybe})
		require.NoError(t, err)
		settleFeed(t, w, ctx, 6)
		later, _ = readFeed(t, w, ctx, next, 2)
		assert.Equal(t, []string{pipeline.ActionCandidateRated}, feedActions(later), "the last page's cursor leads to what was written since")
	})
	eachWorld(t, "an empty feed still hands out a cursor", func(t *testing.T, w world) {
		ctx := w.As(t, "adam")
		page, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{})
		require.NoError(t, err)
		assert.Empty(t, page.Entries, "the seed writes no activity")
		assert.False(t, page.HasMore)
		require.NotEmpty(t, page.Next)
		_, err = w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "First"})
		require.NoError(t, err)
		settleFeed(t, w, ctx, 1)
		next, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{After: page.Next})
		require.NoError(t, err)
		assert.Equal(t, []string{pipeline.ActionJobCreated}, feedActions(next.Entries))
	})
	eachWorld(t, "the default limit is 50, the largest 100", func(t *testing.T, w world) {
		notes(t, w, pipeline.DefaultFeedLimit+1)
		ctx := w.As(t, "olivia")
		settleFeed(t, w, ctx, pipeline.DefaultFeedLimit+1)
		page, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{})
		require.NoError(t, err)
		assert.Len(t, page.Entries, pipeline.DefaultFeedLimit)
		assert.True(t, page.HasMore)
		rest, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{After: page.Next})
		require.NoError(t, err)
		assert.Len(t, rest.Entries, 1)
		assert.False(t, rest.HasMore)
		all, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{Limit: pipeline.MaxFeedLimit})
		require.NoError(t, err)
		assert.Len(t, all.Entries, pipeline.DefaultFeedLimit+1)
		assert.False(t, all.HasMore)
		one, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{Limit: 1})
		require.NoError(t, err)
		assert.Len(t, one.Entries, 1)
		assert.True(t, one.HasMore)
	})
	eachWorld(t, "an entry as the feed shows it", func(t *testing.T, w world) {
		ctx := w.As(t, "mia")
		moved, err := w.Svc.MoveCandidate(ctx, w.Job("backend"), w.Res.Candidates["ada"], pipeline.CandidateMove{StageID: w.Res.Stages["backend"]["Offer"]})
		require.NoError(t, err)
		settleFeed(t, w, ctx, 1)
		page, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{})
		require.NoError(t, err)
		require.Len(t, page.Entries, 1)
		e := page.Entries[0]
		log := w.Activity(t)
		assert.Equal(t, storetest.IP, log[0].IP, "the log keeps the address")
		assert.Empty(t, e.IP, "the feed does not show it")
		assert.Equal(t, pipeline.User{ID: w.User("mia"), Name: "Mia Member"}, e.Actor)
		assert.Equal(t, log[0].ID, e.ID)
		assert.Equal(t, log[0].TokenID, e.TokenID)
		assert.Equal(t, moved.Value.ID, e.SubjectID)
		assert.Equal(t, w.Job("backend"), e.JobID)
		assert.Equal(t, page.Next, e.Position.String(), "the page ends at its last entry")
		assert.JSONEq(t, `{"stage":{"before":"Applied","after":"Offer"}}`, string(e.Changes))
	})
}

// TestService_FeedFilters: the actions and the start time of the feed.
func TestService_FeedFilters(t *testing.T) {
	eachWorld(t, "only the actions asked for", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		_, err := w.Svc.UpdateJob(ctx, job, pipeline.JobPatch{Title: new("Backend Lead")})
		require.NoError(t, err)
		notes(t, w, 1)
		_, err = w.Svc.RateCandidate(ctx, job, ada, pipeline.NewRating{Value: pipeline.GoodFit})
		require.NoError(t, err)
		_, err = w.Svc.UpdateJob(ctx, job, pipeline.JobPatch{Title: new("Backend Engineer")})
		require.NoError(t, err)
		settleFeed(t, w, ctx, 4)
		for _, tc := range []struct {
			actions, want []string
		}{
			{[]string{pipeline.ActionJobUpdated}, []string{pipeline.ActionJobUpdated, pipeline.ActionJobUpdated}},
			{[]string{pipeline.ActionCandidateRated, pipeline.ActionCandidateNoteAdded}, []string{pipeline.ActionCandidateNoteAdded, pipeline.ActionCandidateRated}},
			{[]string{pipeline.ActionWebhookCreated}, []string{}},
			{nil, []string{pipeline.ActionJobUpdated, pipeline.ActionCandidateNoteAdded, pipeline.ActionCandidateRated, pipeline.ActionJobUpdated}},
		} {
			page, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{Actions: tc.actions})
			require.NoError(t, err)
			assert.Equal(t, tc.want, feedActions(page.Entries), "%v", tc.actions)
		}
		first, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{Actions: []string{pipeline.ActionJobUpdated}, Limit: 1})
		require.NoError(t, err)
		require.True(t, first.HasMore)
		rest, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{Actions: []string{pipeline.ActionJobUpdated}, After: first.Next})
		require.NoError(t, err)
		require.Len(t, rest.Entries, 1, "the filter holds across pages")
		assert.JSONEq(t, `{"title":{"before":"Backend Lead","after":"Backend Engineer"}}`, string(rest.Entries[0].Changes))
	})
	eachClockedWorld(t, "since starts at the first entry at or after a time", func(t *testing.T, w world, clock *time.Time) {
		ctx := w.As(t, "olivia")
		start := *clock
		for i := range 3 {
			*clock = start.Add(time.Duration(i) * time.Hour)
			_, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: fmt.Sprintf("Hour %d", i)})
			require.NoError(t, err)
		}
		settleFeed(t, w, ctx, 3)
		for _, tc := range []struct {
			since time.Time
			n     int
		}{
			{start.Add(-time.Minute), 3},
			{start.Add(time.Hour), 2},
			{start.Add(time.Hour + time.Second), 1},
			{start.Add(3 * time.Hour), 0},
		} {
			page, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{Since: &tc.since})
			require.NoError(t, err)
			assert.Len(t, page.Entries, tc.n, "since %v", tc.since.Sub(start))
			for _, e := range page.Entries {
				assert.False(t, e.CreatedAt.Before(tc.since))
			}
		}
		all, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{Limit: 1})
		require.NoError(t, err)
		late := start.Add(3 * time.Hour)
		page, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{After: all.Next, Since: &late})
		require.NoError(t, err)
		assert.Len(t, page.Entries, 2, "since is ignored with a cursor")
	})
	eachClockedWorld(t, "since after every entry hands out a cursor for what comes next", func(t *testing.T, w world, clock *time.Time) {
		ctx := w.As(t, "olivia")
		_, err := w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "Before"})
		require.NoError(t, err)
		settleFeed(t, w, ctx, 1)
		later := clock.Add(time.Hour)
		page, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{Since: &later, Actions: []string{pipeline.ActionJobCreated}})
		require.NoError(t, err)
		assert.Empty(t, page.Entries)
		require.NotEmpty(t, page.Next)
		*clock = later.Add(time.Minute)
		notes(t, w, 1)
		_, err = w.Svc.CreateJob(ctx, pipeline.NewJob{Title: "After"})
		require.NoError(t, err)
		settleFeed(t, w, ctx, 3)
		next, err := w.Svc.ListActivity(ctx, pipeline.FeedFilter{After: page.Next, Actions: []string{pipeline.ActionJobCreated}})
		require.NoError(t, err)
		require.Len(t, next.Entries, 1, "only what came after, of the actions asked for")
		assert.JSONEq(t, `{"before":null,"after":"After"}`, mustJSONField(t, next.Entries[0].Changes, "title"))
	})
	eachWorld(t, "bad filters name their field", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		for _, tc := range []struct {
			f     pipeline.FeedFilter
			field string
		}{
			{pipeline.FeedFilter{After: "not a cursor"}, "after"},
			{pipeline.FeedFilter{Limit: -1}, "limit"},
			{pipeline.FeedFilter{Limit: pipeline.MaxFeedLimit + 1}, "limit"},
			{pipeline.FeedFilter{Actions: []string{pipeline.ActionJobCreated, "job.deleted"}}, "action"},
			{pipeline.FeedFilter{Actions: []string{"JOB.CREATED"}}, "action"},
		} {
			_, err := w.Svc.ListActivity(ctx, tc.f)
			require.ErrorIs(t, err, pipeline.ErrValidation, "%+v", tc.f)
			assert.Equal(t, []string{tc.field}, fieldNames(err), "%+v", tc.f)
		}
	})
}

// TestService_FeedVisibility: a reader sees the entries of the jobs they
// reach, and the webhook entries of the teams they own or administer.
func TestService_FeedVisibility(t *testing.T) {
	eachWorld(t, "each reader sees their share", func(t *testing.T, w world) {
		write := func(token, job, cand string) {
			_, err := w.Svc.AddNote(w.As(t, token), w.Job(job), w.Res.Candidates[cand], pipeline.NewNote{Content: "By " + token})
			require.NoError(t, err)
		}
		write("mia", "backend", "grace")
		write("nina", "frontend", "ken")
		write("olivia", "design", "don")
		write("gary", "ops", "ola")
		newHook(t, w, "adam", "https://hooks.example.test/acme")
		newHook(t, w, "gary", "https://hooks.example.test/globex")
		settleFeed(t, w, w.As(t, "olivia"), 4)
		settleFeed(t, w, w.As(t, "gary"), 2)
		for _, tc := range []struct {
			token string
			jobs  []string // the job of each entry; "" for a webhook's
		}{
			{"olivia", []string{"backend", "frontend", "design", ""}},
			{"adam", []string{"backend", "frontend", "design", ""}},
			{"mia", []string{"backend"}},
			{"nina", []string{"frontend"}},
			{"gary", []string{"ops", ""}},
		} {
			entries, _ := readFeed(t, w, w.As(t, tc.token), "", 3)
			var jobs []string
			for _, e := range entries {
				name := ""
				for key, id := range w.Res.Jobs {
					if id == e.JobID && e.JobID != 0 {
						name = key
					}
				}
				jobs = append(jobs, name)
			}
			assert.Equal(t, tc.jobs, jobs, tc.token)
		}
	})
	eachWorld(t, "a first page with nothing for the reader starts its cursor past what it skipped", func(t *testing.T, w world) {
		mia := w.As(t, "mia")
		empty, err := w.Svc.ListActivity(mia, pipeline.FeedFilter{})
		require.NoError(t, err)
		_, err = w.Svc.CreateJob(w.As(t, "olivia"), pipeline.NewJob{Title: "Not for mia"})
		require.NoError(t, err)
		settleFeed(t, w, w.As(t, "olivia"), 1)
		hidden, err := w.Svc.ListActivity(mia, pipeline.FeedFilter{})
		require.NoError(t, err)
		assert.Empty(t, hidden.Entries)
		assert.NotEqual(t, empty.Next, hidden.Next, "the cursor moves past the entry mia may not see")
		notes(t, w, 1)
		settleFeed(t, w, w.As(t, "olivia"), 2)
		seen, err := w.Svc.ListActivity(mia, pipeline.FeedFilter{After: hidden.Next})
		require.NoError(t, err)
		assert.Equal(t, []string{pipeline.ActionCandidateNoteAdded}, feedActions(seen.Entries), "the next entry mia may see, and only it")
		again, err := w.Svc.ListActivity(mia, pipeline.FeedFilter{After: empty.Next})
		require.NoError(t, err)
		assert.Equal(t, feedActions(seen.Entries), feedActions(again.Entries), "either cursor leads there")
	})
}
