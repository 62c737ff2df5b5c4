package pipeline

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Limits of a feed page.
const (
	DefaultFeedLimit = 50
	MaxFeedLimit     = 100
)

// FeedFilter selects a page of the activity feed. The zero value selects
// the first DefaultFeedLimit entries from the beginning.
type FeedFilter struct {
	// After is the cursor of the last entry seen (FeedPage.Next); "" starts
	// from the beginning.
	After string
	// Since, when After is "", starts the page at the first entry created
	// at or after it; the entries after that one follow in feed order, as
	// from a cursor, whatever their own times.
	Since *time.Time
	// Limit is the most entries on the page, 1–100; 0 takes the default.
	Limit int
	// Actions keeps only entries of these actions; none keeps all.
	Actions []string
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error
}

// SetUnread sets what a face could not read of the request.
func (in *FeedFilter) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the filter.
func (f FeedFilter) Validate() error { return inputVerdict(f.Unread, f.check()) }

func (f FeedFilter) check() error {
	bad := FieldErrors{}
	if f.After != "" {
		if _, err := ParseFeedCursor(f.After); err != nil {
			bad.Add("after", "The after cursor is not one this feed handed out.")
		}
	}
	if f.Limit < 0 || f.Limit > MaxFeedLimit {
		bad.Add("limit", fmt.Sprintf("The limit must be an integer from 1 to %d.", MaxFeedLimit))
	}
	for _, a := range f.Actions {
		if !slices.Contains(Actions, a) {
			bad.Add("action", "The selected action "+strconv.Quote(a)+" is invalid.")
		}
	}
	return bad.Err()
}

// FeedPosition is a place in the feed's order: the sequence of the
// transaction that wrote an entry, then the entry's id. On PostgreSQL the
// sequence is the writing transaction's id, and an entry is served only
// once every transaction that took an id before its own has ended, so no
// entry can later appear before a position already handed out. On SQLite,
// where one writer commits at a time and ids follow commits, it is 0.
type FeedPosition struct {
	Seq int64
	ID  int64
}

// After reports whether p comes after q in the feed.
func (p FeedPosition) After(q FeedPosition) bool {
	return p.Seq > q.Seq || (p.Seq == q.Seq && p.ID > q.ID)
}

// cursorVersion starts every cursor, so that its form may change later.
const cursorVersion = "1."

// String is p as an opaque cursor.
func (p FeedPosition) String() string {
	raw := cursorVersion + strconv.FormatInt(p.Seq, 10) + "." + strconv.FormatInt(p.ID, 10)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// ParseFeedCursor reads a cursor made by FeedPosition.String.
func ParseFeedCursor(s string) (FeedPosition, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	rest, ok := strings.CutPrefix(string(b), cursorVersion)
	if err != nil || !ok {
		return FeedPosition{}, ErrValidation
	}
	seq, id, ok := strings.Cut(rest, ".")
	p := FeedPosition{}
	var err1, err2 error
	p.Seq, err1 = strconv.ParseInt(seq, 10, 64)
	p.ID, err2 = strconv.ParseInt(id, 10, 64)
	if !ok || err1 != nil || err2 != nil || p.Seq < 0 || p.ID < 0 {
		return FeedPosition{}, ErrValidation
	}
	return p, nil
}

// FeedEntry is an activity entry as the feed and the webhooks show it:
// with its actor's name and its place in the feed, without its IP address.
type FeedEntry struct {
	Activity
	Actor    User // ID and Name
	Position FeedPosition
}

// FeedQuery is what the store is asked for a page of the feed.
type FeedQuery struct {
	Viewer  int64 // the user whose reach selects the entries
	After   FeedPosition
	Since   *time.Time // only when After is the zero position: see FeedFilter.Since
	Limit   int        // rows to return at most
	Actions []string   // none: all
	// EndIfEmpty asks, when no entry matches, for the last position that
	// is final now (see FeedResult.End).
	EndIfEmpty bool
}

// FeedResult is what the store returns for a FeedQuery.
type FeedResult struct {
	// Entries are the matching entries after the position, in feed order,
	// at most Limit of them, all final: committed and never to be preceded
	// by an entry that has not appeared yet.
	Entries []FeedEntry
	// End is, when Entries is empty and EndIfEmpty was asked, the position
	// of the last final entry of the whole log (whoever may read it), or
	// the zero position.
	End FeedPosition
}

// FeedPage is a page of the activity feed.
type FeedPage struct {
	Entries []FeedEntry
	// Next is the cursor to ask for the entries after this page; it is set
	// on every page, the last included, and never passes an entry that can
	// still appear.
	Next    string
	HasMore bool
}

// ListActivity returns a page of the activity feed: the entries of the jobs
// the caller's user reaches now, and those on no job (of webhooks, tokens,
// tags, exports and erasures) of the teams the user owns or administers,
// in commit order (see FeedPosition), oldest first.
// Scope: activity:read. Errors: unauthenticated, insufficient_scope,
// validation_failed (after, limit, action).
func (s *Service) ListActivity(ctx context.Context, f FeedFilter) (FeedPage, error) {
	c, err := authorize(ctx, OpListActivity)
	if err != nil {
		return FeedPage{}, err
	}
	if err := f.Validate(); err != nil {
		return FeedPage{}, err
	}
	limit := f.Limit
	if limit == 0 {
		limit = DefaultFeedLimit
	}
	q := FeedQuery{Viewer: c.user.ID, Limit: limit + 1, Actions: f.Actions}
	if f.After != "" {
		q.After, _ = ParseFeedCursor(f.After)
	} else {
		q.Since = f.Since
		q.EndIfEmpty = true
	}
	res, err := s.store.Activity().Feed(ctx, q)
	if err != nil {
		return FeedPage{}, err
	}
	page := FeedPage{Entries: res.Entries, Next: q.After.String()}
	if len(page.Entries) > limit {
		page.Entries, page.HasMore = page.Entries[:limit], true
	}
	switch {
	case len(page.Entries) > 0:
		page.Next = page.Entries[len(page.Entries)-1].Position.String()
	case res.End.After(q.After):
		// Nothing of the log up to End is for this reader: following the
		// cursor later starts after it, never before what it asked for.
		page.Next = res.End.String()
	}
	return page, nil
}

// The operation on the activity feed.
const (
	OpListActivity Op = "list_activity"
)

// activityOps are the rows of opTable for these operations, in the order of
// the API's document.
var activityOps = []opRow{
	{OpListActivity, opTraits{ScopeActivityRead, mGet, "/activity", 0}, nil, &Words{Title: "Read the activity feed",
		Description: "The activity entries of what the token's user reaches, oldest first, in commit order (GET /api/v1/activity). " +
			"Pass meta.next_cursor back as after to read on: no entry is missed or seen twice, and from the last page it returns what was written since."}, Doc{
		Tag: "Activity", Summary: "Read the activity feed",
		Description: "Scope: `activity:read`. The activity entries the token's user may read now, in commit order, " +
			"oldest first, from a cursor (see \"The activity feed\" above). Follow `links.next` to read on; on " +
			"the last page it is where the entries written later will appear.",
		Success: "A page of the feed, possibly empty.",
		Invalid: "`validation_failed`: `after`, `since`, `limit` or `action` cannot be read; `details` names the " +
			"parameter.",
		Params: map[string]string{
			"after": "The cursor of the last entry seen (`meta.next_cursor`); absent starts from the beginning. A " +
				"cursor the feed did not hand out, an empty one included, answers 422 naming `after`.",
			"since": "Without `after`: start at the first entry created at or after this RFC 3339 time; the " +
				"entries after it follow in feed order, as from a cursor, whatever their own times (a replica's " +
				"clock may lag). Ignored with `after`. Any other value answers 422 naming `since`.",
			"limit": "Entries a page, 1 to 100; 50 when absent. Any other value answers 422 naming `limit`.",
			"action": "Only entries of these actions; repeat the parameter for several " +
				"(`action=job.created&action=job.updated`). An unknown action answers 422 naming `action`.",
		},
	}},
}
