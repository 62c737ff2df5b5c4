package pipeline_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// tagProbes call the operations of this file's resource for the tables of
// operations (see probe).
var tagProbes = []operation{
	{pipeline.OpUntagCandidate, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.UntagCandidate(ctx, p.ref.Job, p.ref.Candidate, p.ref.Tag, pipeline.CandidateUntagging{Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
	{pipeline.OpTagCandidate, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.TagCandidate(ctx, p.ref.Job, p.ref.Candidate, pipeline.CandidateTagging{TagID: pick(p, p.ref.Tag, -1), Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
	{pipeline.OpDeleteTag, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.DeleteTag(ctx, p.ref.Tag, pipeline.TagDeletion{Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
	{pipeline.OpRenameTag, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.RenameTag(ctx, p.ref.Tag, pipeline.TagRename{Name: pick(p, newTagName(), " "), Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
	{pipeline.OpListTags, func(ctx context.Context, svc *pipeline.Service, _ probe) error {
		_, err := svc.ListTags(ctx)
		return err
	}},
	{pipeline.OpCreateTag, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.CreateTag(ctx, pipeline.NewTag{Name: pick(p, newTagName(), " "), Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
}

// tagNames numbers the names of the tags these tests make, which are
// unique in a team.
var tagNames atomic.Int64

// newTagName is a tag's name no other tag of these tests has.
func newTagName() string { return fmt.Sprintf("Probe %d", tagNames.Add(1)) }

// newTag creates a tag of olivia's team (acme) as olivia.
func newTag(t *testing.T, w world, name string) pipeline.Tag {
	t.Helper()
	res, err := w.Svc.CreateTag(w.As(t, "olivia"), pipeline.NewTag{Name: name})
	require.NoError(t, err)
	return res.Value
}

// tagEntries are the entries of the log whose subject is a tag.
func tagEntries(t *testing.T, w world) []pipeline.Activity {
	t.Helper()
	var out []pipeline.Activity
	for _, a := range w.Activity(t) {
		if a.SubjectType == pipeline.SubjectTag {
			out = append(out, a)
		}
	}
	return out
}

// adminAgent is a token of adam's (an admin of acme) with scopes whose
// writes of approval wait for a person.
func adminAgent(t *testing.T, w world, scopes []pipeline.Scope, approval ...pipeline.Op) context.Context {
	t.Helper()
	ctx := context.Background()
	_, value, err := w.Op.IssueToken(ctx, pipeline.TokenRequest{UserEmail: "adam@acme.test", Name: "tags agent",
		Scopes: scopes, Approval: approval})
	require.NoError(t, err)
	c, err := w.Svc.Authenticate(ctx, value)
	require.NoError(t, err)
	return pipeline.NewContext(ctx, c)
}

func TestService_CreateTag(t *testing.T) {
	eachWorld(t, "created trimmed, and logged on no job", func(t *testing.T, w world) {
		res, err := w.Svc.CreateTag(w.As(t, "adam"), pipeline.NewTag{Name: "  Visa sponsorship ", Reasoned: pipeline.Because("For the hiring plan.")})
		require.NoError(t, err)
		tag := res.Value
		assert.NotZero(t, tag.ID)
		assert.Equal(t, "Visa sponsorship", tag.Name)
		assert.Equal(t, w.Res.Teams["acme"], tag.TeamID)
		assert.Equal(t, pipeline.TagRecord{ID: tag.ID, Name: "Visa sponsorship"}, tag.Record())

		log := tagEntries(t, w)
		require.Len(t, log, 1)
		a := log[0]
		assert.Equal(t, pipeline.ActionTagCreated, a.Action)
		assert.Equal(t, tag.ID, a.SubjectID)
		assert.Zero(t, a.JobID, "a tag's entry concerns no job")
		assert.Equal(t, w.User("adam"), a.UserID)
		assert.Equal(t, map[string]any{"name": map[string]any{"before": nil, "after": "Visa sponsorship"}}, changesOf(t, a))
		require.NotNil(t, a.Reason)
		assert.Equal(t, "For the hiring plan.", *a.Reason)
	})
	eachWorld(t, "a name is unique in the team in any letter case, not across teams", func(t *testing.T, w world) {
		newTag(t, w, "Visa")
		newTag(t, w, "Виза")
		for _, name := range []string{"visa", " VISA ", "ВИЗА"} {
			_, err := w.Svc.CreateTag(w.As(t, "adam"), pipeline.NewTag{Name: name})
			require.ErrorIs(t, err, pipeline.ErrValidation, name)
			assert.Equal(t, pipeline.FieldErrors{"name": {"The name has already been taken."}}, pipeline.Fields(err), name)
		}
		_, err := w.Svc.CreateTag(w.As(t, "gary"), pipeline.NewTag{Name: "visa"})
		assert.NoError(t, err, "another team's tag")
		assert.Len(t, tagEntries(t, w), 3)
	})
	eachWorld(t, "refused names", func(t *testing.T, w world) {
		for _, name := range []string{"", "   ", strings.Repeat("é", pipeline.MaxTagNameLength+1), "two\nlines", "bad\x00"} {
			_, err := w.Svc.CreateTag(w.As(t, "olivia"), pipeline.NewTag{Name: name})
			require.ErrorIs(t, err, pipeline.ErrValidation, "%q", name)
			assert.Equal(t, []string{"name"}, fieldNames(err), "%q", name)
		}
		_, err := w.Svc.CreateTag(w.As(t, "olivia"), pipeline.NewTag{Name: strings.Repeat("é", pipeline.MaxTagNameLength)})
		assert.NoError(t, err, "50 characters")
		assert.Len(t, tagEntries(t, w), 1)
	})
	eachWorld(t, "owners and admins only, refused after the scope and before the input", func(t *testing.T, w world) {
		for _, user := range []string{"mia", "nina"} {
			_, err := w.Svc.CreateTag(w.As(t, user), pipeline.NewTag{Name: "", Idempotency: key("bad\tkey")})
			require.ErrorIs(t, err, pipeline.ErrForbidden, user)
			assert.Equal(t, "Only owners and admins of the team can do this.", err.(*pipeline.Error).Message)
			_, err = w.Svc.CreateTag(actAs(t, w, user, pipeline.ScopeCandidatesWrite), pipeline.NewTag{Name: ""})
			assert.ErrorIs(t, err, pipeline.ErrInsufficientScope, "the scope first: %s", user)
		}
		assert.Empty(t, tagEntries(t, w))
	})
	eachWorld(t, "at most 500 a team, the name judged first", func(t *testing.T, w world) {
		acme := w.Res.Teams["acme"]
		require.NoError(t, w.DB.Write(context.Background(), func(tx pipeline.Tx) error {
			for i := range pipeline.MaxTeamTags - 1 {
				if _, err := tx.Tags().Insert(context.Background(), pipeline.Tag{TeamID: acme, Name: fmt.Sprintf("Tag %d", i), CreatedAt: time.Now()}); err != nil {
					return err
				}
			}
			return nil
		}))
		ctx := w.As(t, "olivia")
		_, err := w.Svc.CreateTag(ctx, pipeline.NewTag{Name: "The 500th"})
		require.NoError(t, err)
		_, err = w.Svc.CreateTag(ctx, pipeline.NewTag{Name: "TAG 1"})
		assert.Equal(t, []string{"name"}, fieldNames(err), "a taken name is the answer before the limit")
		_, err = w.Svc.CreateTag(ctx, pipeline.NewTag{Name: "The 501st"})
		require.ErrorIs(t, err, pipeline.ErrForbidden)
		assert.Equal(t, "The team has 500 tags, the most it may have.", err.(*pipeline.Error).Message)
		_, err = w.Svc.CreateTag(w.As(t, "gary"), pipeline.NewTag{Name: "The 501st"})
		assert.NoError(t, err, "another team's limit is its own")
	})
	eachWorld(t, "a replay returns the same tag and writes nothing again", func(t *testing.T, w world) {
		ctx := w.As(t, "olivia")
		in := func() pipeline.NewTag { return pipeline.NewTag{Name: "Once", Idempotency: key("tag-once")} }
		first, err := w.Svc.CreateTag(ctx, in())
		require.NoError(t, err)
		again, err := w.Svc.CreateTag(ctx, in())
		require.NoError(t, err)
		assert.True(t, again.Replayed, "a replay, not the name taken")
		assert.Equal(t, first.Value, again.Value)
		assert.Len(t, tagEntries(t, w), 1)
	})
	eachWorld(t, "held for approval: nothing is made until a person approves", func(t *testing.T, w world) {
		agent := adminAgent(t, w, []pipeline.Scope{pipeline.ScopeTeamManage}, pipeline.OpCreateTag)
		_, err := w.Svc.CreateTag(agent, pipeline.NewTag{Name: "Remote", Reasoned: pipeline.Because("Asked by the board.")})
		p := proposed(t, err)
		assert.Zero(t, p.JobID, "on no job: the team's proposal")
		assert.Empty(t, tagEntries(t, w), "nothing made")

		res, err := w.Svc.ApproveProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalDecision{})
		require.NoError(t, err)
		require.Equal(t, pipeline.ProposalApplied, res.Value.Status, "%s", res.Value.Result.Body)
		log := tagEntries(t, w)
		require.Len(t, log, 1)
		assert.Equal(t, w.User("adam"), log[0].UserID, "the requester's write")
		require.NotNil(t, log[0].ApprovedBy)
		assert.Equal(t, w.User("olivia"), log[0].ApprovedBy.User.ID)
		assert.JSONEq(t, fmt.Sprintf(`{"data": {"id": %d, "name": "Remote"}}`, log[0].SubjectID), string(res.Value.Result.Body))
	})
	eachWorld(t, "its entry reaches the team's owners and admins only, and its webhooks", func(t *testing.T, w world) {
		hook := newHook(t, w, "olivia", "https://hooks.example.test/tags", pipeline.ActionTagCreated)
		newTag(t, w, "Visa")
		tagFeed := func(user string) []pipeline.FeedEntry {
			page, err := w.Svc.ListActivity(w.As(t, user), pipeline.FeedFilter{Actions: []string{pipeline.ActionTagCreated}})
			require.NoError(t, err, user)
			return page.Entries
		}
		require.Eventually(t, func() bool { return len(tagFeed("olivia")) == 1 }, 20*time.Second, 10*time.Millisecond, "the feed settles")
		for user, sees := range map[string]bool{"olivia": true, "adam": true, "mia": false, "nina": false, "gary": false} {
			assert.Equal(t, sees, len(tagFeed(user)) == 1, user)
		}
		assert.True(t, hook.Selects(pipeline.ActionTagCreated))
	})
}

func TestService_ListTags(t *testing.T) {
	eachWorld(t, "every tag of the team, oldest first, for any member with candidates:read", func(t *testing.T, w world) {
		zebra, alpha := newTag(t, w, "Zebra"), newTag(t, w, "alpha")
		_, err := w.Svc.CreateTag(w.As(t, "gary"), pipeline.NewTag{Name: "Globex only"})
		require.NoError(t, err)
		for _, user := range []string{"olivia", "mia", "nina"} {
			tags, err := w.Svc.ListTags(actAs(t, w, user, pipeline.ScopeCandidatesRead))
			require.NoError(t, err, user)
			assert.Equal(t, []pipeline.Tag{zebra, alpha}, tags, user)
		}
		_, err = w.Svc.ListTags(actAs(t, w, "olivia", pipeline.ScopeTeamManage))
		assert.ErrorIs(t, err, pipeline.ErrInsufficientScope, "managing tags is not reading them")
	})
	eachWorld(t, "none: an empty list", func(t *testing.T, w world) {
		tags, err := w.Svc.ListTags(w.As(t, "mia"))
		require.NoError(t, err)
		assert.NotNil(t, tags)
		assert.Empty(t, tags)
	})
}

func TestService_RenameTag(t *testing.T) {
	eachWorld(t, "renamed, and logged with its name before and after", func(t *testing.T, w world) {
		visa := newTag(t, w, "visa")
		res, err := w.Svc.RenameTag(w.As(t, "adam"), visa.ID, pipeline.TagRename{Name: " Visa sponsorship "})
		require.NoError(t, err)
		assert.Equal(t, pipeline.Tag{ID: visa.ID, TeamID: visa.TeamID, Name: "Visa sponsorship", CreatedAt: visa.CreatedAt}, res.Value)
		tags, err := w.Svc.ListTags(w.As(t, "mia"))
		require.NoError(t, err)
		assert.Equal(t, []pipeline.Tag{res.Value}, tags)

		log := tagEntries(t, w)
		require.Len(t, log, 2)
		a := log[1]
		assert.Equal(t, pipeline.ActionTagRenamed, a.Action)
		assert.Equal(t, visa.ID, a.SubjectID)
		assert.Zero(t, a.JobID)
		assert.Equal(t, map[string]any{"name": map[string]any{"before": "visa", "after": "Visa sponsorship"}}, changesOf(t, a))
	})
	eachWorld(t, "its own name changes nothing; another letter case is a rename", func(t *testing.T, w world) {
		visa := newTag(t, w, "visa")
		res, err := w.Svc.RenameTag(w.As(t, "olivia"), visa.ID, pipeline.TagRename{Name: "visa "})
		require.NoError(t, err)
		assert.Equal(t, visa, res.Value)
		assert.Len(t, tagEntries(t, w), 1, "nothing logged")
		res, err = w.Svc.RenameTag(w.As(t, "olivia"), visa.ID, pipeline.TagRename{Name: "VISA"})
		require.NoError(t, err)
		assert.Equal(t, "VISA", res.Value.Name)
		assert.Len(t, tagEntries(t, w), 2)
	})
	eachWorld(t, "refused: a taken name, a bad name, a tag out of reach", func(t *testing.T, w world) {
		visa, remote := newTag(t, w, "Visa"), newTag(t, w, "Remote")
		ctx := w.As(t, "olivia")
		_, err := w.Svc.RenameTag(ctx, remote.ID, pipeline.TagRename{Name: "vIsA"})
		assert.Equal(t, pipeline.FieldErrors{"name": {"The name has already been taken."}}, pipeline.Fields(err))
		_, err = w.Svc.RenameTag(ctx, remote.ID, pipeline.TagRename{Name: " "})
		assert.Equal(t, []string{"name"}, fieldNames(err))
		globex, err := w.Svc.CreateTag(w.As(t, "gary"), pipeline.NewTag{Name: "Globex"})
		require.NoError(t, err)
		for _, id := range []int64{globex.Value.ID, missing} {
			_, err = w.Svc.RenameTag(ctx, id, pipeline.TagRename{Name: " ", Idempotency: key("bad\tkey")})
			assert.ErrorIs(t, err, pipeline.ErrNotFound, "the record before the key and the input")
		}
		_, err = w.Svc.RenameTag(w.As(t, "mia"), visa.ID, pipeline.TagRename{Name: "Mine"})
		assert.ErrorIs(t, err, pipeline.ErrForbidden)
		_, err = w.Svc.RenameTag(w.As(t, "mia"), missing, pipeline.TagRename{Name: "Mine"})
		assert.ErrorIs(t, err, pipeline.ErrForbidden, "before the record is looked up")
		assert.Len(t, tagEntries(t, w), 3, "the three creations alone")
	})
	eachWorld(t, "a replay, and a proposal approved", func(t *testing.T, w world) {
		visa := newTag(t, w, "Visa")
		ctx := w.As(t, "olivia")
		first, err := w.Svc.RenameTag(ctx, visa.ID, pipeline.TagRename{Name: "Permit", Idempotency: key("rename")})
		require.NoError(t, err)
		again, err := w.Svc.RenameTag(ctx, visa.ID, pipeline.TagRename{Name: "Permit", Idempotency: key("rename")})
		require.NoError(t, err)
		assert.True(t, again.Replayed)
		assert.Equal(t, first.Value, again.Value)

		agent := adminAgent(t, w, []pipeline.Scope{pipeline.ScopeTeamManage}, pipeline.OpRenameTag)
		_, err = w.Svc.RenameTag(agent, visa.ID, pipeline.TagRename{Name: "Work permit"})
		p := proposed(t, err)
		assert.Equal(t, "/tags/"+strconv.FormatInt(visa.ID, 10), p.Path)
		res, err := w.Svc.ApproveProposal(ctx, p.ID, pipeline.ProposalDecision{})
		require.NoError(t, err)
		require.Equal(t, pipeline.ProposalApplied, res.Value.Status, "%s", res.Value.Result.Body)
		tags, err := w.Svc.ListTags(ctx)
		require.NoError(t, err)
		assert.Equal(t, "Work permit", tags[0].Name)
		assert.Len(t, tagEntries(t, w), 3)
	})
}

func TestService_DeleteTag(t *testing.T) {
	eachWorld(t, "deleted, logged with its name, and gone", func(t *testing.T, w world) {
		visa, remote := newTag(t, w, "Visa"), newTag(t, w, "Remote")
		ctx := w.As(t, "adam")
		res, err := w.Svc.DeleteTag(ctx, visa.ID, pipeline.TagDeletion{Idempotency: key("delete-visa"), Reasoned: pipeline.Because("Unused.")})
		require.NoError(t, err)
		assert.False(t, res.Replayed)
		tags, err := w.Svc.ListTags(ctx)
		require.NoError(t, err)
		assert.Equal(t, []pipeline.Tag{remote}, tags)

		log := tagEntries(t, w)
		require.Len(t, log, 3)
		a := log[2]
		assert.Equal(t, pipeline.ActionTagDeleted, a.Action)
		assert.Equal(t, visa.ID, a.SubjectID)
		assert.Zero(t, a.JobID)
		assert.Equal(t, map[string]any{"name": map[string]any{"before": "Visa", "after": nil}}, changesOf(t, a))

		again, err := w.Svc.DeleteTag(ctx, visa.ID, pipeline.TagDeletion{Idempotency: key("delete-visa"), Reasoned: pipeline.Because("Unused.")})
		require.NoError(t, err, "a retried delete replays its answer")
		assert.True(t, again.Replayed)
		_, err = w.Svc.DeleteTag(ctx, visa.ID, pipeline.TagDeletion{})
		assert.ErrorIs(t, err, pipeline.ErrNotFound, "without the key, it is gone")
		_, err = w.Svc.CreateTag(ctx, pipeline.NewTag{Name: "visa"})
		assert.NoError(t, err, "its name is free again")
	})
	eachWorld(t, "refused: out of reach, not an owner or admin", func(t *testing.T, w world) {
		visa := newTag(t, w, "Visa")
		globex, err := w.Svc.CreateTag(w.As(t, "gary"), pipeline.NewTag{Name: "Globex"})
		require.NoError(t, err)
		_, err = w.Svc.DeleteTag(w.As(t, "olivia"), globex.Value.ID, pipeline.TagDeletion{})
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		_, err = w.Svc.DeleteTag(w.As(t, "nina"), visa.ID, pipeline.TagDeletion{})
		assert.ErrorIs(t, err, pipeline.ErrForbidden)
		_, err = w.Svc.DeleteTag(actAs(t, w, "olivia", pipeline.ScopeCandidatesWrite), visa.ID, pipeline.TagDeletion{})
		assert.ErrorIs(t, err, pipeline.ErrInsufficientScope)
		tags, err := w.Svc.ListTags(w.As(t, "olivia"))
		require.NoError(t, err)
		assert.Equal(t, []pipeline.Tag{visa}, tags)
	})
	eachWorld(t, "held for approval, then approved", func(t *testing.T, w world) {
		visa := newTag(t, w, "Visa")
		agent := adminAgent(t, w, []pipeline.Scope{pipeline.ScopeTeamManage}, pipeline.OpDeleteTag)
		_, err := w.Svc.DeleteTag(agent, visa.ID, pipeline.TagDeletion{})
		p := proposed(t, err)
		tags, err := w.Svc.ListTags(w.As(t, "olivia"))
		require.NoError(t, err)
		assert.Len(t, tags, 1, "nothing deleted yet")
		res, err := w.Svc.ApproveProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalDecision{})
		require.NoError(t, err)
		require.Equal(t, pipeline.ProposalApplied, res.Value.Status, "%s", res.Value.Result.Body)
		tags, err = w.Svc.ListTags(w.As(t, "olivia"))
		require.NoError(t, err)
		assert.Empty(t, tags)
	})
}

// tagsOf are the tags a candidate carries, read from the store.
func tagsOf(t *testing.T, w world, candidate int64) []string {
	t.Helper()
	var names []string
	require.NoError(t, w.DB.Write(context.Background(), func(tx pipeline.Tx) error {
		tags, err := tx.Tags().OfCandidate(context.Background(), pipeline.CandidateTagsParams{CandidateID: candidate})
		for _, tag := range tags {
			names = append(names, tag.Name)
		}
		return err
	}))
	return names
}

// tagCandidate puts a tag on a candidate of backend as olivia.
func tagCandidate(t *testing.T, w world, candidate, tag int64) pipeline.Result[pipeline.Candidate] {
	t.Helper()
	res, err := w.Svc.TagCandidate(w.As(t, "olivia"), w.Job("backend"), candidate, pipeline.CandidateTagging{TagID: tag})
	require.NoError(t, err)
	return res
}

func TestService_TagCandidate(t *testing.T) {
	eachWorld(t, "tagged and logged on the candidate; again changes nothing", func(t *testing.T, w world) {
		visa := newTag(t, w, "Visa")
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		res, err := w.Svc.TagCandidate(w.As(t, "mia"), job, ada, pipeline.CandidateTagging{TagID: visa.ID, Reasoned: pipeline.Because("Needs sponsorship.")})
		require.NoError(t, err, "any member reaching the candidate")
		assert.Equal(t, ada, res.Value.ID)
		assert.Equal(t, "Ada Lovelace", res.Value.Name)
		assert.Equal(t, []string{"Visa"}, tagsOf(t, w, ada))

		a := lastEntry(t, w)
		assert.Equal(t, pipeline.ActionCandidateTagged, a.Action)
		assert.Equal(t, pipeline.SubjectCandidate, a.SubjectType)
		assert.Equal(t, ada, a.SubjectID)
		assert.Equal(t, job, a.JobID)
		assert.Equal(t, map[string]any{"tag_id": float64(visa.ID), "tag": "Visa"}, changesOf(t, a))

		again, err := w.Svc.TagCandidate(w.As(t, "olivia"), job, ada, pipeline.CandidateTagging{TagID: visa.ID})
		require.NoError(t, err)
		assert.Equal(t, ada, again.Value.ID)
		assert.Equal(t, a.ID, lastEntry(t, w).ID, "no entry")
	})
	eachWorld(t, "refused: no tag, another team's, one out of reach", func(t *testing.T, w world) {
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		globex, err := w.Svc.CreateTag(w.As(t, "gary"), pipeline.NewTag{Name: "Globex"})
		require.NoError(t, err)
		ctx := w.As(t, "olivia")
		for _, id := range []int64{0, -3, globex.Value.ID, missing} {
			_, err := w.Svc.TagCandidate(ctx, job, ada, pipeline.CandidateTagging{TagID: id})
			assert.Equal(t, []string{"tag_id"}, fieldNames(err), "tag %d", id)
		}
		visa := newTag(t, w, "Visa")
		for _, who := range []struct{ user, job, cand string }{{"nina", "backend", "ada"}, {"mia", "design", "don"}, {"gary", "backend", "ada"}} {
			_, err := w.Svc.TagCandidate(w.As(t, who.user), w.Job(who.job), w.Res.Candidates[who.cand], pipeline.CandidateTagging{TagID: visa.ID})
			assert.ErrorIs(t, err, pipeline.ErrNotFound, who.user)
		}
		_, err = w.Svc.TagCandidate(w.As(t, "olivia"), job, w.Res.Candidates["ken"], pipeline.CandidateTagging{TagID: visa.ID})
		assert.ErrorIs(t, err, pipeline.ErrNotFound, "a candidate of another job")
		_, err = w.Svc.TagCandidate(actAs(t, w, "olivia", pipeline.ScopeCandidatesRead, pipeline.ScopeTeamManage), job, ada, pipeline.CandidateTagging{TagID: visa.ID})
		assert.ErrorIs(t, err, pipeline.ErrInsufficientScope)
		assert.Empty(t, tagsOf(t, w, ada))
	})
	eachWorld(t, "at most 20 tags a candidate", func(t *testing.T, w world) {
		ada, grace := w.Res.Candidates["ada"], w.Res.Candidates["grace"]
		var ids []int64
		for i := range pipeline.MaxCandidateTags + 1 {
			ids = append(ids, newTag(t, w, fmt.Sprintf("Tag %02d", i)).ID)
		}
		for _, id := range ids[:pipeline.MaxCandidateTags] {
			tagCandidate(t, w, ada, id)
		}
		tagCandidate(t, w, ada, ids[0]) // one it carries: no 21st
		_, err := w.Svc.TagCandidate(w.As(t, "olivia"), w.Job("backend"), ada, pipeline.CandidateTagging{TagID: ids[pipeline.MaxCandidateTags]})
		require.ErrorIs(t, err, pipeline.ErrForbidden)
		assert.Equal(t, "A candidate can carry at most 20 tags.", err.(*pipeline.Error).Message)
		_, err = w.Svc.TagCandidate(w.As(t, "olivia"), w.Job("backend"), ada, pipeline.CandidateTagging{TagID: missing})
		assert.Equal(t, []string{"tag_id"}, fieldNames(err), "the input before the limit")
		assert.Len(t, tagsOf(t, w, ada), pipeline.MaxCandidateTags)
		tagCandidate(t, w, grace, ids[pipeline.MaxCandidateTags])
	})
	eachWorld(t, "an erased candidate: 403 after the input", func(t *testing.T, w world) {
		visa := newTag(t, w, "Visa")
		ada := w.Res.Candidates["ada"]
		_, err := w.Svc.ErasePerson(w.As(t, "olivia"), pipeline.PersonErasure{Email: "ada@example.test", Reasoned: pipeline.Because("She asked.")})
		require.NoError(t, err)
		_, err = w.Svc.TagCandidate(w.As(t, "olivia"), w.Job("backend"), ada, pipeline.CandidateTagging{TagID: missing})
		assert.Equal(t, []string{"tag_id"}, fieldNames(err))
		_, err = w.Svc.TagCandidate(w.As(t, "olivia"), w.Job("backend"), ada, pipeline.CandidateTagging{TagID: visa.ID})
		require.ErrorIs(t, err, pipeline.ErrForbidden)
		assert.Equal(t, "The candidate was erased.", err.(*pipeline.Error).Message)
		assert.Empty(t, tagsOf(t, w, ada))
	})
	eachWorld(t, "a tag's deletion takes it off its candidates; a rename keeps it on", func(t *testing.T, w world) {
		visa, remote := newTag(t, w, "Visa"), newTag(t, w, "Remote")
		ada, grace := w.Res.Candidates["ada"], w.Res.Candidates["grace"]
		tagCandidate(t, w, ada, visa.ID)
		tagCandidate(t, w, ada, remote.ID)
		tagCandidate(t, w, grace, visa.ID)
		_, err := w.Svc.RenameTag(w.As(t, "olivia"), remote.ID, pipeline.TagRename{Name: "Remote only"})
		require.NoError(t, err)
		_, err = w.Svc.DeleteTag(w.As(t, "olivia"), visa.ID, pipeline.TagDeletion{})
		require.NoError(t, err)
		assert.Equal(t, []string{"Remote only"}, tagsOf(t, w, ada))
		assert.Empty(t, tagsOf(t, w, grace))
		_, err = w.Svc.TagCandidate(w.As(t, "olivia"), w.Job("backend"), grace, pipeline.CandidateTagging{TagID: visa.ID})
		assert.Equal(t, []string{"tag_id"}, fieldNames(err), "a deleted tag")
	})
	eachWorld(t, "held for approval: nothing is tagged until a person approves", func(t *testing.T, w world) {
		visa := newTag(t, w, "Visa")
		ada := w.Res.Candidates["ada"]
		c := heldCaller(t, w, []pipeline.Scope{pipeline.ScopeCandidatesWrite}, pipeline.OpTagCandidate)
		_, err := w.Svc.TagCandidate(pipeline.NewContext(context.Background(), c), w.Job("backend"), ada, pipeline.CandidateTagging{TagID: visa.ID})
		p := proposed(t, err)
		assert.Equal(t, ada, p.CandidateID)
		assert.Empty(t, tagsOf(t, w, ada))
		res, err := w.Svc.ApproveProposal(w.As(t, "olivia"), p.ID, pipeline.ProposalDecision{})
		require.NoError(t, err)
		require.Equal(t, pipeline.ProposalApplied, res.Value.Status, "%s", res.Value.Result.Body)
		assert.Equal(t, []string{"Visa"}, tagsOf(t, w, ada))
		a := lastEntry(t, w)
		require.Equal(t, pipeline.ActionProposalApproved, a.Action)
	})
}

func TestService_UntagCandidate(t *testing.T) {
	eachWorld(t, "untagged and logged; a tag it does not carry changes nothing", func(t *testing.T, w world) {
		visa, remote := newTag(t, w, "Visa"), newTag(t, w, "Remote")
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		tagCandidate(t, w, ada, visa.ID)
		tagCandidate(t, w, ada, remote.ID)
		_, err := w.Svc.UntagCandidate(w.As(t, "mia"), job, ada, visa.ID, pipeline.CandidateUntagging{Reasoned: pipeline.Because("Sponsored.")})
		require.NoError(t, err)
		assert.Equal(t, []string{"Remote"}, tagsOf(t, w, ada))
		a := lastEntry(t, w)
		assert.Equal(t, pipeline.ActionCandidateUntagged, a.Action)
		assert.Equal(t, ada, a.SubjectID)
		assert.Equal(t, job, a.JobID)
		assert.Equal(t, map[string]any{"tag_id": float64(visa.ID), "tag": "Visa"}, changesOf(t, a))

		_, err = w.Svc.UntagCandidate(w.As(t, "olivia"), job, ada, visa.ID, pipeline.CandidateUntagging{})
		require.NoError(t, err, "absent: 204 too")
		assert.Equal(t, a.ID, lastEntry(t, w).ID, "no entry")
	})
	eachWorld(t, "refused: a tag or a candidate out of reach, an erased candidate", func(t *testing.T, w world) {
		visa := newTag(t, w, "Visa")
		job, ada := w.Job("backend"), w.Res.Candidates["ada"]
		tagCandidate(t, w, ada, visa.ID)
		globex, err := w.Svc.CreateTag(w.As(t, "gary"), pipeline.NewTag{Name: "Globex"})
		require.NoError(t, err)
		for _, id := range []int64{globex.Value.ID, missing} {
			_, err := w.Svc.UntagCandidate(w.As(t, "olivia"), job, ada, id, pipeline.CandidateUntagging{Idempotency: key("bad\tkey")})
			assert.ErrorIs(t, err, pipeline.ErrNotFound, "the tag before the key: %d", id)
		}
		_, err = w.Svc.UntagCandidate(w.As(t, "nina"), job, ada, visa.ID, pipeline.CandidateUntagging{})
		assert.ErrorIs(t, err, pipeline.ErrNotFound)
		_, err = w.Svc.UntagCandidate(actAs(t, w, "olivia", pipeline.ScopeTeamManage), job, ada, visa.ID, pipeline.CandidateUntagging{})
		assert.ErrorIs(t, err, pipeline.ErrInsufficientScope)
		assert.Equal(t, []string{"Visa"}, tagsOf(t, w, ada))

		_, err = w.Svc.ErasePerson(w.As(t, "olivia"), pipeline.PersonErasure{Email: "ada@example.test", Reasoned: pipeline.Because("She asked.")})
		require.NoError(t, err)
		_, err = w.Svc.UntagCandidate(w.As(t, "olivia"), job, ada, visa.ID, pipeline.CandidateUntagging{})
		require.ErrorIs(t, err, pipeline.ErrForbidden)
		assert.Equal(t, "The candidate was erased.", err.(*pipeline.Error).Message)
	})
	eachWorld(t, "a replay, and a proposal approved", func(t *testing.T, w world) {
		visa := newTag(t, w, "Visa")
		job, ada, grace := w.Job("backend"), w.Res.Candidates["ada"], w.Res.Candidates["grace"]
		tagCandidate(t, w, ada, visa.ID)
		tagCandidate(t, w, grace, visa.ID)
		ctx := w.As(t, "olivia")
		_, err := w.Svc.UntagCandidate(ctx, job, ada, visa.ID, pipeline.CandidateUntagging{Idempotency: key("untag")})
		require.NoError(t, err)
		again, err := w.Svc.UntagCandidate(ctx, job, ada, visa.ID, pipeline.CandidateUntagging{Idempotency: key("untag")})
		require.NoError(t, err)
		assert.True(t, again.Replayed)

		c := heldCaller(t, w, []pipeline.Scope{pipeline.ScopeCandidatesWrite}, pipeline.OpUntagCandidate)
		_, err = w.Svc.UntagCandidate(pipeline.NewContext(context.Background(), c), job, grace, visa.ID, pipeline.CandidateUntagging{})
		p := proposed(t, err)
		assert.Equal(t, []string{"Visa"}, tagsOf(t, w, grace), "nothing changed yet")
		res, err := w.Svc.ApproveProposal(ctx, p.ID, pipeline.ProposalDecision{})
		require.NoError(t, err)
		require.Equal(t, pipeline.ProposalApplied, res.Value.Status, "%s", res.Value.Result.Body)
		assert.Empty(t, tagsOf(t, w, grace))
	})
}
