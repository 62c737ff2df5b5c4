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
	ID     int64  `json:"id" schema:"ref: Id"`
	Action string `json:"action" schema:"ref: Action"`
	// What the write changed.
	Subject entrySubject `json:"subject"`
	// The job concerned; `null` for the entries of a webhook, a token or a tag.
	JobID   *int64          `json:"job_id" schema:"format: int64, minimum: 1"`
	Actor   entryActor      `json:"actor"`
	Changes json.RawMessage `json:"changes"`
	// The reason the write was given, as sent; `null` when it was given
	// none, and on the entries the server makes itself.
	Reason *string `json:"reason"`
	// Who approved the proposal this write ran from (its actor is the
	// proposal's requester); `token_id` is `null` when it was approved on
	// a page or by an operator. `null` on every entry that was not
	// approved.
	ApprovedBy *approvedBy `json:"approved_by"`
	CreatedAt  string      `json:"created_at" schema:"ref: Timestamp"`
}

type approvedBy struct {
	User    pipeline.Named `json:"user"`
	TokenID *int64         `json:"token_id" schema:"format: int64, minimum: 1"`
}

type entrySubject struct {
	Type string `json:"type" schema:"enum: [job, candidate, webhook, interview, team, proposal, token, tag]"`
	ID   int64  `json:"id" schema:"ref: Id"`
}

type entryActor struct {
	// The user who made the write; `null` for what the server did by
	// itself (`candidate.message_sent`, `candidate.message_failed`) and
	// for what an operator did with `pipelined` (`token.*`).
	User *pipeline.Named `json:"user"`
	// The token it was made with; `null` when it was made without one (by
	// the server itself, or an operator's program).
	TokenID *int64 `json:"token_id" schema:"format: int64, minimum: 1"`
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
	// The page's entries in commit order, oldest first.
	Data  []entryItem `json:"data" schema:"maxItems: 100"`
	Links feedLinks   `json:"links"`
	Meta  feedMeta    `json:"meta"`
}

type feedLinks struct {
	// The absolute URL of the entries after this page, with the same
	// `limit` and `action`; on every page, the last included.
	Next string `json:"next" schema:"format: uri"`
}

type feedMeta struct {
	// The opaque cursor of `links.next`, for `after`.
	NextCursor string `json:"next_cursor" schema:"minLength: 1"`
	// Whether more entries could be read at once.
	HasMore bool `json:"has_more"`
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
