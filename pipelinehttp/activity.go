package pipelinehttp

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// entryItem is an activity entry as the feed and webhook deliveries show
// it; the IP address stays out.
type entryItem struct {
	ID        int64           `json:"id"`
	Action    string          `json:"action"`
	Subject   entrySubject    `json:"subject"`
	JobID     *int64          `json:"job_id"`
	Actor     entryActor      `json:"actor"`
	Changes   json.RawMessage `json:"changes"`
	CreatedAt string          `json:"created_at"`
}

type entrySubject struct {
	Type string `json:"type"`
	ID   int64  `json:"id"`
}

type entryActor struct {
	User    named  `json:"user"`
	TokenID *int64 `json:"token_id"` // null for a write made without a token
}

func newEntryItem(e pipeline.FeedEntry) entryItem {
	it := entryItem{
		ID:        e.ID,
		Action:    e.Action,
		Subject:   entrySubject{Type: e.SubjectType, ID: e.SubjectID},
		Actor:     entryActor{User: named{ID: e.Actor.ID, Name: e.Actor.Name}},
		Changes:   e.Changes,
		CreatedAt: timestamp(e.CreatedAt),
	}
	if e.JobID != 0 {
		it.JobID = &e.JobID
	}
	if e.TokenID != 0 {
		it.Actor.TokenID = &e.TokenID
	}
	if len(it.Changes) == 0 {
		it.Changes = json.RawMessage("{}")
	}
	return it
}

// feed is the feed's envelope: links.next and meta.next_cursor are on
// every page.
type feed struct {
	Data  []entryItem `json:"data"`
	Links feedLinks   `json:"links"`
	Meta  feedMeta    `json:"meta"`
}

type feedLinks struct {
	Next string `json:"next"`
}

type feedMeta struct {
	NextCursor string `json:"next_cursor"`
	HasMore    bool   `json:"has_more"`
}

// Messages of feed parameters that cannot be read.
const (
	msgQuerySince = "The since parameter must be an RFC 3339 date and time, such as 2026-01-05T10:00:00Z."
	msgQueryLimit = "The limit must be an integer from 1 to 100."
	msgQueryAfter = "The after cursor must not be empty."
)

// feedFilter reads the feed's query parameters into a filter; what cannot
// be read goes to q.bad.
func (q *query) feedFilter() pipeline.FeedFilter {
	f := pipeline.FeedFilter{Actions: q.values["action"]}
	if raw, ok := q.get("after"); ok {
		f.After = raw
		if raw == "" {
			q.bad.Add("after", msgQueryAfter)
		}
	}
	if f.After == "" { // since is ignored after a cursor, however it is sent
		if raw, ok := q.get("since"); ok {
			t, err := time.Parse(time.RFC3339, raw)
			if err != nil {
				q.bad.Add("since", msgQuerySince)
			} else {
				f.Since = &t
			}
		}
	}
	if raw, ok := q.get("limit"); ok {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > pipeline.MaxFeedLimit {
			q.bad.Add("limit", msgQueryLimit)
		} else {
			f.Limit = n
		}
	}
	return f
}

// listActivity serves GET /activity?after=&since=&limit=&action=.
func (a *api) listActivity(c *gin.Context) {
	q := newQuery(c, "after", "since", "limit", "action")
	f := q.feedFilter()
	if len(q.bad) > 0 {
		fail(c, a.svc.Reject(c.Request.Context(), pipeline.OpListActivity, pipeline.Ref{}, nil, merged(q.bad, f.Validate())))
		return
	}
	page, err := a.svc.ListActivity(c.Request.Context(), f)
	if err != nil {
		fail(c, err)
		return
	}
	respond(c, http.StatusOK, newFeed(a.origin(c.Request)+c.Request.URL.EscapedPath(), f, page))
}

// newFeed renders a page of the feed read with f at the URL base. Its next
// link keeps the page's size and actions; since has done its part.
func newFeed(base string, f pipeline.FeedFilter, page pipeline.FeedPage) feed {
	items := make([]entryItem, len(page.Entries))
	for i, e := range page.Entries {
		items[i] = newEntryItem(e)
	}
	next := url.Values{"after": {page.Next}}
	if f.Limit != 0 {
		next.Set("limit", strconv.Itoa(f.Limit))
	}
	if len(f.Actions) > 0 {
		next["action"] = f.Actions
	}
	return feed{
		Data:  items,
		Links: feedLinks{Next: base + "?" + next.Encode()},
		Meta:  feedMeta{NextCursor: page.Next, HasMore: page.HasMore},
	}
}
