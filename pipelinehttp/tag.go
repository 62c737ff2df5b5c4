package pipelinehttp

import (
	"context"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// tagNameSchema is a tag's name's.
var tagNameSchema = described(textSchema(1, pipeline.MaxTagNameLength, `\S`),
	"1 to 50 characters, not blank, on one line, kept trimmed; unique in the team in any letter case.")

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
}
