package main

import (
	"context"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// runActivity prints the activity log as JSON lines in commit order.
func runActivity(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	withDB(&e, fs)
	team := fs.String("team", "", "only the entries of this team (id or key)")
	var f pipeline.ActivityFilter
	fs.Int64Var(&f.AfterID, "since-id", 0, "only the entries after this entry id")
	fs.IntVar(&f.Limit, "limit", 0, "at most this many entries; 0: all")
	if err := parseFlagsOnly(e, fs, args); err != nil {
		return err
	}
	switch {
	case f.AfterID < 0:
		return usageErrorf(e, fs, "--since-id %d is not an entry id", f.AfterID)
	case f.Limit < 0:
		return usageErrorf(e, fs, "--limit %d is negative", f.Limit)
	}
	return withOperator(ctx, e.cfg, reads, func(op *pipeline.Operator) error {
		if *team != "" {
			t, err := op.TeamByRef(ctx, *team)
			if err != nil {
				return err
			}
			f.TeamID = &t.ID
		}
		entries, err := op.ListActivity(ctx, f)
		if err != nil {
			return err
		}
		return printJSONLines(e.stdout, entries, toActivityJSON)
	})
}

// activityJSON is an entry as activity prints it: the domain's entry, with
// user_id and token_id null where the API's are (the server's own entry;
// one made without a token: on a page, by pipelined), and approved_by as
// the feed shows it, {user: {id, name}, token_id}.
type activityJSON struct {
	pipeline.Activity
	UserID     *int64          `json:"user_id"`
	TokenID    *int64          `json:"token_id"`
	ApprovedBy *approvedByJSON `json:"approved_by"` // null: not approved
}

// orNull is id, or nil for 0 (none).
func orNull(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

type approvedByJSON struct {
	User    namedJSON `json:"user"`
	TokenID *int64    `json:"token_id"` // null: decided on a page or by pipelined proposal
}

// namedJSON is a record by id and name.
type namedJSON struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

func toActivityJSON(a pipeline.Activity) activityJSON {
	a.CreatedAt = timestamp(a.CreatedAt)
	out := activityJSON{Activity: a, UserID: orNull(a.UserID), TokenID: orNull(a.TokenID)}
	if b := a.ApprovedBy; b != nil {
		out.ApprovedBy = &approvedByJSON{User: namedJSON{ID: b.User.ID, Name: b.User.Name}, TokenID: b.TokenID}
	}
	return out
}
