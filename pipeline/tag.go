package pipeline

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The limits of tags (evaluation.md §7).
const (
	// MaxTagNameLength is the longest name of a tag, in characters.
	MaxTagNameLength = 50
	// MaxTeamTags is the most tags a team may have.
	MaxTeamTags = 500
	// MaxCandidateTags is the most tags a candidate may carry.
	MaxCandidateTags = 20
)

// Tag is a label of a team's, which its candidates carry. Its name is
// unique in the team in any letter case (compared as Fold folds it).
type Tag struct {
	ID        int64
	TeamID    int64
	Name      string
	CreatedAt time.Time
}

// TagRecord is a tag as the API shows it.
type TagRecord struct {
	ID   int64  `json:"id" schema:"ref: Id"`
	Name string `json:"name" schema:"minLength: 1, maxLength: 50"`
}

// Record is t as the API shows it.
func (t Tag) Record() TagRecord { return TagRecord{ID: t.ID, Name: t.Name} }

// NewTag is the input of CreateTag.
type NewTag struct {
	Name        string       `json:"name"`
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *NewTag) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *NewTag) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the input, without consulting the
// team's other tags.
func (in NewTag) Validate() error { return inputVerdict(in.Unread, checkTagName(in.Name).Err()) }

// checkTagName judges a tag's name as sent: 1–50 characters, not blank,
// on one line.
func checkTagName(name string) FieldErrors {
	f := FieldErrors{}
	switch trimmed := strings.TrimSpace(name); {
	case !checkText(f, "name", name):
	case trimmed == "":
		f.Add("name", "The name field is required.")
	case utf8.RuneCountInString(name) > MaxTagNameLength:
		f.Add("name", "The name may not be greater than 50 characters.")
	case strings.ContainsAny(trimmed, "\r\n\u0085\u2028\u2029"):
		f.Add("name", "The name may not contain a line break.")
	}
	return f
}

// errNameTaken is the 422 of a tag's name that another tag of the team has
// in some letter case.
func errNameTaken() error { return Invalid("name", "The name has already been taken.") }

// tagAdmin returns the caller of the tag operation op: one whose token
// carries team:manage and whose user owns or administers the team (see
// teamAdmin).
func (s *Service) tagAdmin(ctx context.Context, op Op) (Caller, error) {
	return s.teamAdmin(ctx, op, "Only owners and admins of the team can do this.")
}

// CreateTag adds a tag to the caller's current team; its name is kept
// trimmed. Scope: team:manage; the caller's user must own or administer
// the team. Errors: unauthenticated, insufficient_scope, forbidden (not an
// owner or admin; the team has MaxTeamTags tags), validation_failed (name,
// also a name another tag of the team has in any letter case), conflict
// (idempotency key in flight).
func (s *Service) CreateTag(ctx context.Context, in NewTag) (Result[Tag], error) {
	c, err := s.tagAdmin(ctx, OpCreateTag)
	if err != nil {
		return Result[Tag]{}, err
	}
	k, err := takeKey(OpCreateTag, Ref{}, &in, &in.Idempotency)
	if err != nil {
		return Result[Tag]{}, err
	}
	return write(s, ctx, c, k, nil, func(tx Tx, _ struct{}) (Tag, error) {
		if err := in.Validate(); err != nil {
			return Tag{}, err
		}
		// The team's lock holds its tags' names and number until the
		// write ends.
		if _, err := tx.Teams().Lock(ctx, TeamParams{ID: c.team.ID}); err != nil {
			return Tag{}, err
		}
		name := strings.TrimSpace(in.Name)
		taken, err := tx.Tags().NameTaken(ctx, TagNameParams{TeamID: c.team.ID, Name: name})
		if err != nil {
			return Tag{}, err
		}
		if taken {
			return Tag{}, errNameTaken()
		}
		n, err := tx.Tags().Count(ctx, TeamTagsParams{TeamID: c.team.ID})
		if err != nil {
			return Tag{}, err
		}
		if n >= MaxTeamTags {
			return Tag{}, Errorf(EForbidden, "The team has %d tags, the most it may have.", MaxTeamTags)
		}
		t, err := tx.Tags().Insert(ctx, Tag{TeamID: c.team.ID, Name: name, CreatedAt: s.now()})
		if err != nil {
			return Tag{}, err
		}
		return t, s.log(ctx, tx, c, t.TeamID, 0, ActionTagCreated, SubjectTag, t.ID, map[string]Change{"name": {After: t.Name}})
	})
}

// ListTags returns every tag of the caller's current team, oldest first:
// a team has at most MaxTeamTags, so the list is not paged. Scope:
// candidates:read, for any member of the team. Errors: unauthenticated,
// insufficient_scope.
func (s *Service) ListTags(ctx context.Context) ([]Tag, error) {
	c, err := authorize(ctx, OpListTags)
	if err != nil {
		return nil, err
	}
	return s.store.Tags().List(ctx, TeamTagsParams{TeamID: c.team.ID})
}

// TagRename is the input of RenameTag.
type TagRename struct {
	Name        string       `json:"name"`
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *TagRename) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *TagRename) SetUnread(err error) { in.Unread = err }

// Validate reports what is wrong with the input, without consulting the
// team's other tags.
func (in TagRename) Validate() error { return inputVerdict(in.Unread, checkTagName(in.Name).Err()) }

// lockTag returns a tag of the team, the team locked: its tags' names
// hold until the write ends.
func lockTag(ctx context.Context, tx Tx, teamID, id int64) (Tag, error) {
	if _, err := tx.Teams().Lock(ctx, TeamParams{ID: teamID}); err != nil {
		return Tag{}, err
	}
	return tx.Tags().Get(ctx, TagParams{TeamID: teamID, ID: id})
}

// RenameTag renames a tag of the caller's current team; its name is kept
// trimmed. Its own name again (exactly) changes and logs nothing; the same
// name in another letter case is a rename. Scope: team:manage; the
// caller's user must own or administer the team. Errors: unauthenticated,
// insufficient_scope, forbidden (not an owner or admin), not_found (also
// another team's tag), validation_failed (name, also a name another tag of
// the team has in any letter case), conflict (idempotency key in flight).
func (s *Service) RenameTag(ctx context.Context, id int64, in TagRename) (Result[Tag], error) {
	c, err := s.tagAdmin(ctx, OpRenameTag)
	if err != nil {
		return Result[Tag]{}, err
	}
	k, err := takeKey(OpRenameTag, Ref{Tag: id}, &in, &in.Idempotency)
	if err != nil {
		return Result[Tag]{}, err
	}
	load := func(tx Tx, _ KeyClaim) (Tag, error) { return lockTag(ctx, tx, c.team.ID, id) }
	return write(s, ctx, c, k, load, func(tx Tx, t Tag) (Tag, error) {
		if err := in.Validate(); err != nil {
			return Tag{}, err
		}
		name := strings.TrimSpace(in.Name)
		if name == t.Name {
			return t, nil
		}
		taken, err := tx.Tags().NameTaken(ctx, TagNameParams{TeamID: t.TeamID, Name: name, Except: t.ID})
		if err != nil {
			return Tag{}, err
		}
		if taken {
			return Tag{}, errNameTaken()
		}
		if err := tx.Tags().Rename(ctx, RenameTagParams{ID: t.ID, Name: name}); err != nil {
			return Tag{}, err
		}
		before := t.Name
		t.Name = name
		return t, s.log(ctx, tx, c, t.TeamID, 0, ActionTagRenamed, SubjectTag, t.ID, map[string]Change{"name": {Before: before, After: name}})
	})
}

// TagDeletion is the input of DeleteTag, which takes nothing but its key
// and reason.
type TagDeletion struct {
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *TagDeletion) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *TagDeletion) SetUnread(err error) { in.Unread = err }

// DeleteTag deletes a tag of the caller's current team and takes it off
// every candidate that carries it, in one entry (tag.deleted). Scope:
// team:manage; the caller's user must own or administer the team. Errors:
// unauthenticated, insufficient_scope, forbidden (not an owner or admin),
// not_found (also another team's tag), validation_failed (an input that
// could not be read), conflict (idempotency key in flight).
func (s *Service) DeleteTag(ctx context.Context, id int64, in TagDeletion) (Result[struct{}], error) {
	c, err := s.tagAdmin(ctx, OpDeleteTag)
	if err != nil {
		return Result[struct{}]{}, err
	}
	k, err := takeKey(OpDeleteTag, Ref{Tag: id}, &in, &in.Idempotency)
	if err != nil {
		return Result[struct{}]{}, err
	}
	load := func(tx Tx, _ KeyClaim) (Tag, error) { return lockTag(ctx, tx, c.team.ID, id) }
	return write(s, ctx, c, k, load, func(tx Tx, t Tag) (struct{}, error) {
		if in.Unread != nil {
			return struct{}{}, in.Unread
		}
		if err := tx.Tags().Delete(ctx, DeleteTagParams{ID: t.ID}); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, s.log(ctx, tx, c, t.TeamID, 0, ActionTagDeleted, SubjectTag, t.ID, map[string]Change{"name": {Before: t.Name}})
	})
}

// CandidateTagging is the input of TagCandidate.
type CandidateTagging struct {
	TagID       int64        `json:"tag_id"` // required: a tag of the candidate's team
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *CandidateTagging) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *CandidateTagging) SetUnread(err error) { in.Unread = err }

// msgNotATag is the 422 of a tag_id that names no tag of the team.
const msgNotATag = "The tag_id is not a tag of the team."

// Validate reports what is wrong with the input without consulting
// storage; whether the tag is the team's is checked by TagCandidate.
func (in CandidateTagging) Validate() error { return inputVerdict(in.Unread, in.check().Err()) }

func (in CandidateTagging) check() FieldErrors {
	f := FieldErrors{}
	switch {
	case in.TagID == 0:
		f.Add("tag_id", "The tag_id field is required.")
	case in.TagID < 0:
		f.Add("tag_id", msgNotATag)
	}
	return f
}

// taggedChanges are the changes of a candidate.tagged or .untagged entry.
func taggedChanges(t Tag) map[string]any { return map[string]any{"tag_id": t.ID, "tag": t.Name} }

// TagCandidate puts a tag of the team on a candidate and returns the
// candidate. A tag the candidate carries already changes and logs nothing.
// Scope: candidates:write. Errors: unauthenticated, insufficient_scope,
// not_found, validation_failed (tag_id missing or no tag of the
// candidate's team), forbidden (the candidate was erased; it carries
// MaxCandidateTags tags), conflict (idempotency key in flight).
func (s *Service) TagCandidate(ctx context.Context, jobID, candidateID int64, in CandidateTagging) (Result[Candidate], error) {
	c, err := authorize(ctx, OpTagCandidate)
	if err != nil {
		return Result[Candidate]{}, err
	}
	k, err := takeKey(OpTagCandidate, Ref{Job: jobID, Candidate: candidateID}, &in, &in.Idempotency)
	if err != nil {
		return Result[Candidate]{}, err
	}
	return write(s, ctx, c, k, s.loadCandidate(ctx, c, jobID, candidateID), func(tx Tx, cand Candidate) (Candidate, error) {
		f := in.check()
		var tag Tag
		if checkable(in.Unread, f, "tag_id") {
			var err error
			tag, err = tx.Tags().Get(ctx, TagParams{TeamID: cand.TeamID, ID: in.TagID})
			switch {
			case ErrorCode(err) == ENotFound:
				f.Add("tag_id", msgNotATag)
			case err != nil:
				return Candidate{}, err
			}
		}
		if err := inputVerdict(in.Unread, f.Err()); err != nil {
			return Candidate{}, err
		}
		if cand.ErasedAt != nil {
			return Candidate{}, errErased()
		}
		carried, err := tx.Tags().OfCandidate(ctx, CandidateTagsParams{CandidateID: cand.ID})
		if err != nil {
			return Candidate{}, err
		}
		if slices.ContainsFunc(carried, func(t Tag) bool { return t.ID == tag.ID }) {
			return cand, nil
		}
		if len(carried) >= MaxCandidateTags {
			return Candidate{}, Errorf(EForbidden, "A candidate can carry at most %d tags.", MaxCandidateTags)
		}
		err = tx.Tags().Put(ctx, CandidateTagParams{CandidateID: cand.ID, TagID: tag.ID, At: s.now()})
		if ErrorCode(err) == ENotFound {
			// Deleted since it was read (its deletion does not wait for
			// the candidate's lock).
			return Candidate{}, Invalid("tag_id", msgNotATag)
		}
		if err != nil {
			return Candidate{}, err
		}
		return cand, s.log(ctx, tx, c, cand.TeamID, cand.JobID, ActionCandidateTagged, SubjectCandidate, cand.ID, taggedChanges(tag))
	})
}

// CandidateUntagging is the input of UntagCandidate, which takes nothing
// but its key and reason.
type CandidateUntagging struct {
	Idempotency *Idempotency `json:"-"`
	Reasoned
	// Unread is what a face could not read of the input; nil: all of it.
	Unread error `json:"-"`
}

// SetIdempotency sets the key the request named (a face's reading).
func (in *CandidateUntagging) SetIdempotency(key *Idempotency) { in.Idempotency = key }

// SetUnread sets what a face could not read of the request.
func (in *CandidateUntagging) SetUnread(err error) { in.Unread = err }

// taggedCandidate is a candidate locked for a write, and a tag of its team.
type taggedCandidate struct {
	cand Candidate
	tag  Tag
}

// UntagCandidate takes a tag of the team off a candidate; a tag the
// candidate does not carry changes and logs nothing. Scope:
// candidates:write. Errors: unauthenticated, insufficient_scope, not_found
// (also a tag that is no tag of the candidate's team), validation_failed
// (an input that could not be read), forbidden (the candidate was erased),
// conflict (idempotency key in flight).
func (s *Service) UntagCandidate(ctx context.Context, jobID, candidateID, tagID int64, in CandidateUntagging) (Result[struct{}], error) {
	c, err := authorize(ctx, OpUntagCandidate)
	if err != nil {
		return Result[struct{}]{}, err
	}
	k, err := takeKey(OpUntagCandidate, Ref{Job: jobID, Candidate: candidateID, Tag: tagID}, &in, &in.Idempotency)
	if err != nil {
		return Result[struct{}]{}, err
	}
	load := func(tx Tx, kc KeyClaim) (taggedCandidate, error) {
		cand, err := lockCandidate(ctx, tx, LockCandidateParams{Viewer: c.user.ID, JobID: jobID, ID: candidateID, Claim: kc})
		if err != nil {
			return taggedCandidate{}, err
		}
		tag, err := tx.Tags().Get(ctx, TagParams{TeamID: cand.TeamID, ID: tagID})
		return taggedCandidate{cand, tag}, err
	}
	return write(s, ctx, c, k, load, func(tx Tx, t taggedCandidate) (struct{}, error) {
		if in.Unread != nil {
			return struct{}{}, in.Unread
		}
		if t.cand.ErasedAt != nil {
			return struct{}{}, errErased()
		}
		taken, err := tx.Tags().Take(ctx, CandidateTagParams{CandidateID: t.cand.ID, TagID: t.tag.ID})
		if err != nil || !taken {
			return struct{}{}, err
		}
		return struct{}{}, s.log(ctx, tx, c, t.cand.TeamID, t.cand.JobID, ActionCandidateUntagged, SubjectCandidate, t.cand.ID, taggedChanges(t.tag))
	})
}

// The operations on tags.
const (
	OpListTags  Op = "list_tags"
	OpCreateTag Op = "create_tag"
	OpRenameTag Op = "rename_tag"
	OpDeleteTag Op = "delete_tag"

	OpTagCandidate   Op = "tag_candidate"
	OpUntagCandidate Op = "untag_candidate"
)

// tagPath is the path of one tag of the team, below /api/v1.
const tagPath = "/tags/{tag}"

// tagOps are the rows of opTable for these operations, in the order of the
// API's document.
var tagOps = []opRow{
	{OpListTags, opTraits{ScopeCandidatesRead, mGet, "/tags", 0}, nil, &Words{Title: "List tags",
		Description: "Every tag of the token's team, oldest first, as {id, name}, in one list of at most 500 (GET /api/v1/tags)."}, Doc{
		Tag: "Candidates", Summary: "List the team's tags",
		Description: "Scope: `candidates:read`. Every tag of the token's current team, oldest first (in the order " +
			"they were made), in one list that is not paged: a team has at most 500.",
		Success: "The team's tags, oldest first.",
	}},
	{OpCreateTag, opTraits{ScopeTeamManage, mPost, "/tags", forbids | creates}, runs(onTeam((*Service).CreateTag), Tag.Record), &Words{Title: "Create a tag",
		Description: "Adds a tag to the token's team and returns it (POST /api/v1/tags): name 1–50 characters, unique in the team in any letter case. forbidden unless the token's user owns or administers the team, or when the team has 500 tags."}, Doc{
		Tag: "Candidates", Summary: "Create a tag",
		Description: "Scope: `team:manage`, and an owner or admin of the token's current team. Adds a tag to the " +
			"team, its name trimmed, for its candidates to carry. Creating it is an activity entry (`tag.created`, " +
			"on no job: only the team's owners and admins read it).",
		Success: "The tag was created (or this is the replay of its creation).",
		Forbidden: "`insufficient_scope`: the token lacks `team:manage`. `forbidden`: the token's user is no owner " +
			"or admin of the team (\"Only owners and admins of the team can do this.\", before the body is read), or " +
			"the team has 500 tags.",
		Invalid: "`validation_failed`: `name` is missing, blank, longer than 50 characters, on more than one " +
			"line or not valid text, or another tag of the team has it in any letter case (\"The name has already " +
			"been taken.\"); or the body or `Idempotency-Key` is invalid.",
	}},
	{OpRenameTag, opTraits{ScopeTeamManage, mPatch, tagPath, forbids}, runs(func(s *Service, ctx context.Context, r Ref, in TagRename) (Result[Tag], error) {
		return s.RenameTag(ctx, r.Tag, in)
	}, Tag.Record), &Words{Title: "Rename a tag", Idempotent: true,
		Description: "Renames a tag of the token's team and returns it (PATCH /api/v1/tags/{tag}): name 1–50 characters, unique in the team in any letter case. Its candidates keep it. forbidden unless the token's user owns or administers the team."}, Doc{
		Tag: "Candidates", Summary: "Rename a tag",
		Description: "Scope: `team:manage`, and an owner or admin of the token's current team. Renames the tag, its " +
			"name trimmed; the candidates that carry it keep it. Its own name again changes and logs nothing; " +
			"another name is an activity entry (`tag.renamed`, on no job).",
		Success:   "The tag as it is now.",
		Forbidden: teamAdminForbidden,
		Invalid: "`validation_failed`: `name` is missing, blank, longer than 50 characters, on more than one " +
			"line or not valid text, or another tag of the team has it in any letter case (\"The name has already " +
			"been taken.\"); or the body or `Idempotency-Key` is invalid.",
	}},
	{OpDeleteTag, opTraits{ScopeTeamManage, mDelete, tagPath, forbids | empties}, runs[TagDeletion, struct{}, struct{}](func(s *Service, ctx context.Context, r Ref, in TagDeletion) (Result[struct{}], error) {
		return s.DeleteTag(ctx, r.Tag, in)
	}, nil), &Words{Title: "Delete a tag", Destructive: true,
		Description: "Deletes a tag of the token's team and takes it off every candidate that carries it (DELETE /api/v1/tags/{tag}); answers nothing. forbidden unless the token's user owns or administers the team."}, Doc{
		Tag: "Candidates", Summary: "Delete a tag",
		Description: "Scope: `team:manage`, and an owner or admin of the token's current team. Deletes the tag and " +
			"takes it off every candidate that carries it, in one activity entry (`tag.deleted`, on no job; no " +
			"`candidate.untagged` for each).",
		Success:   "The tag was deleted (or this is the replay of its deletion).",
		Forbidden: teamAdminForbidden,
		Invalid:   invalidReasonOnly,
	}},
	{OpTagCandidate, opTraits{ScopeCandidatesWrite, mPost, candidatePath + "/tags", forbids}, runs(onCandidate((*Service).TagCandidate), Candidate.Record), &Words{Title: "Tag a candidate", Idempotent: true,
		Description: "Puts a tag of the team (tag_id, see list_tags) on a candidate and returns the candidate (POST /api/v1/jobs/{job}/candidates/{candidate}/tags); a tag it carries already changes nothing. forbidden for a 21st tag, or an erased candidate."}, Doc{
		Tag: "Candidates", Summary: "Tag a candidate",
		Description: "Scope: `candidates:write`. Puts a tag of the token's team on the candidate, logged as " +
			"`candidate.tagged` (`changes` `{\"tag_id\": 3, \"tag\": \"visa\"}`). A tag the candidate carries " +
			"already changes and logs nothing, and answers the same.",
		Success: "The candidate, tagged.",
		Forbidden: "`insufficient_scope`: the token lacks `candidates:write`. `forbidden`: the candidate carries 20 " +
			"tags already (\"A candidate can carry at most 20 tags.\"), or was erased (\"The candidate was " +
			"erased.\").",
		Invalid: "`validation_failed`: `tag_id` is missing, not an integer or not the id of a tag of the team; or " +
			"the body or `Idempotency-Key` is invalid.",
	}},
	{OpUntagCandidate, opTraits{ScopeCandidatesWrite, mDelete, candidatePath + "/tags/{tag}", forbids | empties}, runs[CandidateUntagging, struct{}, struct{}](func(s *Service, ctx context.Context, r Ref, in CandidateUntagging) (Result[struct{}], error) {
		return s.UntagCandidate(ctx, r.Job, r.Candidate, r.Tag, in)
	}, nil), &Words{Title: "Untag a candidate", Idempotent: true,
		Description: "Takes a tag of the team off a candidate (DELETE /api/v1/jobs/{job}/candidates/{candidate}/tags/{tag}); answers nothing, and nothing changes when the candidate does not carry it. forbidden for an erased candidate."}, Doc{
		Tag: "Candidates", Summary: "Untag a candidate",
		Description: "Scope: `candidates:write`. Takes the tag off the candidate, logged as `candidate.untagged` " +
			"(`changes` `{\"tag_id\": 3, \"tag\": \"visa\"}`). A tag of the team that the candidate does not " +
			"carry changes and logs nothing, and answers the same; a tag that is not the team's answers 404.",
		Success: "The candidate does not carry the tag (or this is the replay of its untagging).",
		Forbidden: "`insufficient_scope`: the token lacks `candidates:write`. `forbidden`: the candidate was erased " +
			"(\"The candidate was erased.\").",
		Invalid: invalidReasonOnly,
	}},
}

// teamAdminForbidden is the 403 of an operation for the team's owners and
// admins that refuses nothing else.
const teamAdminForbidden = "`insufficient_scope`: the token lacks `team:manage`. `forbidden`: the token's user is no " +
	"owner or admin of the team (\"Only owners and admins of the team can do this.\", before the tag is looked up or " +
	"the body read)."

// TagStore is what the Service reads of a team's tags outside a write.
type TagStore interface {
	// List returns every tag of a team, oldest first.
	List(ctx context.Context, p TeamTagsParams) ([]Tag, error)
}

// TagTx is what a write transaction does to a team's tags. The caller
// holds the team locked (TeamTx.Lock) while it reads and changes them.
type TagTx interface {
	// Insert stores a tag and returns it with its id.
	Insert(ctx context.Context, t Tag) (Tag, error)
	// NameTaken reports whether a tag of the team other than Except has
	// the name in any letter case.
	NameTaken(ctx context.Context, p TagNameParams) (bool, error)
	// Count returns how many tags the team has.
	Count(ctx context.Context, p TeamTagsParams) (int, error)
	// Get returns a tag of a team.
	Get(ctx context.Context, p TagParams) (Tag, error)
	// Rename stores a tag's new name, folded too.
	Rename(ctx context.Context, p RenameTagParams) error
	// Delete deletes a tag, which takes it off its candidates.
	Delete(ctx context.Context, p DeleteTagParams) error

	// OfCandidate returns the tags a candidate carries, oldest tag first.
	// The caller holds the candidate locked (CandidateTx.Lock).
	OfCandidate(ctx context.Context, p CandidateTagsParams) ([]Tag, error)
	// Put puts a tag on a candidate that does not carry it; not_found when
	// the tag is gone.
	Put(ctx context.Context, p CandidateTagParams) error
	// Take takes a tag off a candidate and reports whether it carried it.
	Take(ctx context.Context, p CandidateTagParams) (bool, error)
}

// CandidateTagsParams names the candidate whose tags are read.
type CandidateTagsParams struct {
	CandidateID int64
}

// CandidateTagParams is a tag put on a candidate, and when.
type CandidateTagParams struct {
	CandidateID, TagID int64
	At                 time.Time
}

// DeleteTagParams names the tag to delete.
type DeleteTagParams struct {
	ID int64
}

// TagParams names a tag of a team.
type TagParams struct {
	TeamID, ID int64
}

// RenameTagParams is a tag's new name.
type RenameTagParams struct {
	ID   int64
	Name string
}

// TagNameParams names a tag's name in a team, and the tag (0: none) whose
// own name it may be.
type TagNameParams struct {
	TeamID int64
	Name   string
	Except int64
}

// TeamTagsParams names the team whose tags are read.
type TeamTagsParams struct {
	TeamID int64
}
