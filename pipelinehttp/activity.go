package pipelinehttp

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// entryItem is an activity entry as the feed and webhook deliveries show
// it; the IP address stays out.
type entryItem struct {
	ID      int64           `json:"id"`
	Action  string          `json:"action"`
	Subject entrySubject    `json:"subject"`
	JobID   *int64          `json:"job_id"`
	Actor   entryActor      `json:"actor"`
	Changes json.RawMessage `json:"changes"`
	Reason  *string         `json:"reason"` // null when the write gave none
	// ApprovedBy is who approved the proposal whose run made the entry;
	// null on every other entry.
	ApprovedBy *approvedBy `json:"approved_by"`
	CreatedAt  string      `json:"created_at"`
}

type approvedBy struct {
	User    pipeline.Named `json:"user"`
	TokenID *int64         `json:"token_id"` // null: decided on a page or by the CLI
}

type entrySubject struct {
	Type string `json:"type"`
	ID   int64  `json:"id"`
}

type entryActor struct {
	User *pipeline.Named `json:"user"` // null for the server's own entry

	TokenID *int64 `json:"token_id"` // null for a write made without a token
}

func newEntryItem(e pipeline.FeedEntry) entryItem {
	it := entryItem{
		ID:        e.ID,
		Action:    e.Action,
		Subject:   entrySubject{Type: e.SubjectType, ID: e.SubjectID},
		Changes:   e.Changes,
		Reason:    e.Reason,
		CreatedAt: pipeline.FormatTime(e.CreatedAt),
	}
	if e.JobID != 0 {
		it.JobID = &e.JobID
	}
	if b := e.ApprovedBy; b != nil {
		it.ApprovedBy = &approvedBy{User: pipeline.Named{ID: b.User.ID, Name: b.User.Name}, TokenID: b.TokenID}
	}
	if e.Actor.ID != 0 {
		it.Actor.User = &pipeline.Named{ID: e.Actor.ID, Name: e.Actor.Name}
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

// activityOperations are the operations on the activity feed, in the order of the
// document.
var activityOperations = []operation{
	newOperation(opSpec[pipeline.FeedFilter, feed]{
		op: pipeline.OpListActivity,
		params: feedParams(
			described(textSchema(1, 0, ""), "The cursor of the last entry seen (meta.next_cursor); absent: from the beginning."),
			described(&jsonschema.Schema{Type: "string"}, "RFC 3339 date and time: start at the first entry at or after it. Ignored with after."),
			described(&jsonschema.Schema{Type: "integer", Minimum: jsonschema.Ptr(1.0), Maximum: jsonschema.Ptr(float64(pipeline.MaxFeedLimit))}, "Entries per page, 1 to 100; 50 when absent."),
			described(&jsonschema.Schema{Type: "array", Items: enumSchema(pipeline.Actions...)}, "Only entries of these actions."),
		),
		afterRead: ignoreSinceAfterCursor,
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.FeedFilter]) (feed, bool, error) {
			f := in.domain()
			page, err := svc.ListActivity(ctx, f)
			return newFeed(in.self, f, page), false, err
		},
	}),
}
