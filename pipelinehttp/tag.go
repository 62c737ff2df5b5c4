package pipelinehttp

import (
	"context"
	"slices"
	"strconv"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// tagNameSchema is a tag's name's.
var tagNameSchema = described(textSchema(1, pipeline.MaxTagNameLength, `\S`),
	"1 to 50 characters, not blank, on one line, kept trimmed; unique in the team in any letter case.")

// tagID is a tag's path id.
func tagID[In any]() param[In] { return pathID[In]("tag", "Id of a tag of the token's current team.") }

// tagOf is the tag of the team a proposal names, read as the describer's
// reader, and a warning when it changed since the proposal was made.
func (d *describer) tagOf(p pipeline.Proposal, out *description, id int64) (pipeline.Tag, error) {
	tags, err := d.svc.ListTags(d.ctx)
	if err != nil {
		return pipeline.Tag{}, err
	}
	i := slices.IndexFunc(tags, func(t pipeline.Tag) bool { return t.ID == id })
	if i < 0 {
		return pipeline.Tag{}, pipeline.Errorf(pipeline.ENotFound, "The tag is gone.")
	}
	d.warnIfChanged(p, out, subjectKey{pipeline.SubjectTag, id}, "The tag “"+tags[i].Name+"”")
	return tags[i], nil
}

// tagNamed is the name of the team's tag id, or words saying it has none.
func (d *describer) tagNamed(id int64) (string, error) {
	tags, err := d.svc.ListTags(d.ctx)
	if err != nil {
		return "", err
	}
	if i := slices.IndexFunc(tags, func(t pipeline.Tag) bool { return t.ID == id }); i >= 0 {
		return "“" + tags[i].Name + "”", nil
	}
	return "with a tag the team does not have (id " + strconv.FormatInt(id, 10) + ")", nil
}

// tagOperations are the operations on the team's tags and the tags of
// candidates, in the order of the document.
var tagOperations = []operation{
	newOperation(opSpec[struct{}, data[[]pipeline.TagRecord]]{
		op: pipeline.OpListTags,
		call: func(ctx context.Context, svc *pipeline.Service, _ *input[struct{}]) (data[[]pipeline.TagRecord], bool, error) {
			tags, err := svc.ListTags(ctx)
			out := make([]pipeline.TagRecord, len(tags))
			for i, t := range tags {
				out[i] = t.Record()
			}
			return data[[]pipeline.TagRecord]{Data: out}, false, err
		},
	}),
	newOperation(opSpec[pipeline.NewTag, data[pipeline.TagRecord]]{
		op: pipeline.OpCreateTag,
		params: []param[pipeline.NewTag]{
			textField("name", true, tagNameSchema, func(in *pipeline.NewTag) *string { return &in.Name }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.NewTag]) (data[pipeline.TagRecord], bool, error) {
			res, err := svc.CreateTag(ctx, in.domain())
			return data[pipeline.TagRecord]{Data: res.Value.Record()}, res.Replayed, err
		},
		describe: func(_ *describer, p pipeline.Proposal, out *description) error {
			in, err := inputOf[pipeline.NewTag](p)
			if err != nil {
				return err
			}
			out.Title = "Create the tag “" + in.Name + "”"
			out.Details = append(out.Details, detail{"Name", in.Name})
			out.Effects = append(out.Effects, "Add it to the team’s tags, for its candidates to carry.")
			return nil
		},
	}),
	newOperation(opSpec[pipeline.TagRename, data[pipeline.TagRecord]]{
		op: pipeline.OpRenameTag,
		params: []param[pipeline.TagRename]{
			tagID[pipeline.TagRename](),
			textField("name", true, tagNameSchema, func(in *pipeline.TagRename) *string { return &in.Name }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.TagRename]) (data[pipeline.TagRecord], bool, error) {
			res, err := svc.RenameTag(ctx, in.ref.Tag, in.domain())
			return data[pipeline.TagRecord]{Data: res.Value.Record()}, res.Replayed, err
		},
		describe: func(d *describer, p pipeline.Proposal, out *description) error {
			ref, err := p.Ref()
			if err != nil {
				return err
			}
			t, err := d.tagOf(p, out, ref.Tag)
			if err != nil {
				return err
			}
			in, err := inputOf[pipeline.TagRename](p)
			if err != nil {
				return err
			}
			if p.Status != pipeline.ProposalPending {
				// Decided: the tag's name now says nothing of it.
				out.Title = "Rename a tag to “" + in.Name + "”"
				return nil
			}
			out.Title = "Rename the tag “" + t.Name + "” to “" + in.Name + "”"
			out.Changes = append(out.Changes, fieldChange{"Name", t.Name, in.Name})
			out.Effects = append(out.Effects, "Its candidates keep it, under its new name.")
			return nil
		},
	}),
	newOperation(opSpec[pipeline.TagDeletion, struct{}]{
		op:     pipeline.OpDeleteTag,
		params: []param[pipeline.TagDeletion]{tagID[pipeline.TagDeletion]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.TagDeletion]) (struct{}, bool, error) {
			res, err := svc.DeleteTag(ctx, in.ref.Tag, in.domain())
			return struct{}{}, res.Replayed, err
		},
		describe: func(d *describer, p pipeline.Proposal, out *description) error {
			ref, err := p.Ref()
			if err != nil {
				return err
			}
			t, err := d.tagOf(p, out, ref.Tag)
			if err != nil {
				return err
			}
			out.Title = "Delete the tag “" + t.Name + "”"
			out.Effects = append(out.Effects, "Take it off every candidate that carries it, for good.")
			return nil
		},
	}),
	newOperation(opSpec[pipeline.CandidateTagging, data[pipeline.CandidateRecord]]{
		op: pipeline.OpTagCandidate,
		params: []param[pipeline.CandidateTagging]{
			jobID[pipeline.CandidateTagging](), candidateID[pipeline.CandidateTagging](),
			integerField("tag_id", true, described(idSchema(), "Id of a tag of the token's current team (see GET /api/v1/tags)."),
				func(in *pipeline.CandidateTagging) *int64 { return &in.TagID }),
		},
		call: onCandidate((*pipeline.Service).TagCandidate, pipeline.Candidate.Record),
		describe: func(d *describer, p pipeline.Proposal, out *description) error {
			c, err := d.candidate(p, out)
			if err != nil {
				return err
			}
			in, err := inputOf[pipeline.CandidateTagging](p)
			if err != nil {
				return err
			}
			name, err := d.tagNamed(in.TagID)
			if err != nil {
				return err
			}
			out.Title = "Tag " + c.Name + " " + name
			return nil
		},
	}),
	newOperation(opSpec[pipeline.CandidateUntagging, struct{}]{
		op: pipeline.OpUntagCandidate,
		params: []param[pipeline.CandidateUntagging]{
			jobID[pipeline.CandidateUntagging](), candidateID[pipeline.CandidateUntagging](), tagID[pipeline.CandidateUntagging](),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.CandidateUntagging]) (struct{}, bool, error) {
			res, err := svc.UntagCandidate(ctx, in.ref.Job, in.ref.Candidate, in.ref.Tag, in.domain())
			return struct{}{}, res.Replayed, err
		},
		describe: func(d *describer, p pipeline.Proposal, out *description) error {
			c, err := d.candidate(p, out)
			if err != nil {
				return err
			}
			ref, err := p.Ref()
			if err != nil {
				return err
			}
			name, err := d.tagNamed(ref.Tag)
			if err != nil {
				return err
			}
			out.Title = "Untag " + c.Name + " " + name
			return nil
		},
	}),
}
