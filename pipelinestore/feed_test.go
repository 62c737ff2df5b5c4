package pipelinestore_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestFeed_LateCommit holds a transaction open after its entry took its id,
// while a later transaction commits an entry with a larger id: the feed
// hands out neither, nor a cursor past them, until the first commits, then
// both, the first first. (SQLite has one writer: no entry commits late.)
func TestFeed_LateCommit(t *testing.T) {
	db := storetest.OpenPostgres(t)
	f := seeded(t, db)
	ctx := context.Background()
	olivia := f.As(t, "olivia")
	entry := func(note int) pipeline.Activity {
		return pipeline.Activity{
			TeamID: f.Res.Teams["acme"], JobID: f.Job("backend"), UserID: f.User("olivia"),
			Action: pipeline.ActionCandidateNoteAdded, SubjectType: pipeline.SubjectCandidate,
			SubjectID: f.Res.Candidates["ada"], Changes: json.RawMessage(`{"note_id":` + itoa(note) + `}`), CreatedAt: time.Now(),
		}
	}
	held, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- db.Write(ctx, func(tx pipeline.Tx) error {
			if err := tx.Activity().Insert(ctx, entry(1)); err != nil {
				return err
			}
			// A read sends the waiting insert: the entry has its id now.
			if _, err := tx.Ratings().Get(ctx, pipeline.RatingParams{CandidateID: f.Res.Candidates["ada"], UserID: f.User("olivia")}); err != nil {
				return err
			}
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	require.NoError(t, db.Write(ctx, func(tx pipeline.Tx) error { return tx.Activity().Insert(ctx, entry(2)) }))
	log := f.Activity(t)
	require.Len(t, log, 1, "only the later entry has committed")
	late := log[0].ID

	page, err := f.Svc.ListActivity(olivia, pipeline.FeedFilter{})
	require.NoError(t, err)
	assert.Empty(t, page.Entries, "the committed entry waits for the one before it")
	cursor := page.Next

	close(release)
	require.NoError(t, <-done)
	var got []pipeline.FeedEntry
	deadline := time.Now().Add(20 * time.Second)
	for len(got) < 2 && time.Now().Before(deadline) {
		page, err := f.Svc.ListActivity(olivia, pipeline.FeedFilter{After: cursor})
		require.NoError(t, err)
		got = append(got, page.Entries...)
		cursor = page.Next
	}
	require.Len(t, got, 2)
	assert.Less(t, got[0].ID, late, "the entry that took its id first comes first")
	assert.Equal(t, late, got[1].ID)
	assert.JSONEq(t, `{"note_id":1}`, string(got[0].Changes))
}

// commitAfterPage runs fn once, right after the feed's first read of
// entries (its page, or where since starts it) returns.
type commitAfterPage struct {
	armed atomic.Bool
	fn    func()
}

func (h *commitAfterPage) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (h *commitAfterPage) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	read := strings.Contains(e.Query, "FROM activity") && !strings.Contains(e.Query, "max(id)")
	if read && h.armed.CompareAndSwap(true, false) {
		h.fn()
	}
}

// TestFeed_CommitDuringFirstPage: an entry that commits while an empty
// first page is read, from the beginning or from since, is not passed over
// by the page's cursor: following it shows the entry once.
func TestFeed_CommitDuringFirstPage(t *testing.T) {
	since := time.Now().Add(-time.Hour)
	for name, filter := range map[string]pipeline.FeedFilter{"from the beginning": {}, "since": {Since: &since}} {
		t.Run(name, func(t *testing.T) {
			h := &commitAfterPage{}
			storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
				f := seeded(t, db)
				olivia := f.As(t, "olivia")
				h.fn = func() {
					_, err := f.Svc.AddNote(olivia, f.Job("backend"), f.Res.Candidates["ada"], pipeline.NewNote{Content: "Meanwhile."})
					require.NoError(t, err)
				}
				h.armed.Store(true)
				first, err := f.Svc.ListActivity(olivia, filter)
				require.NoError(t, err)
				require.False(t, h.armed.Load(), "the note was written while the page was read")
				require.Len(t, f.Activity(t), 1)
				seen := first.Entries
				next := first.Next
				for deadline := time.Now().Add(20 * time.Second); len(seen) == 0 && time.Now().Before(deadline); {
					page, err := f.Svc.ListActivity(olivia, pipeline.FeedFilter{After: next})
					require.NoError(t, err)
					seen, next = append(seen, page.Entries...), page.Next
				}
				require.Len(t, seen, 1, "the entry is seen once")
				assert.Equal(t, pipeline.ActionCandidateNoteAdded, seen[0].Action)
			}, pipelinestore.WithQueryHook(h))
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
