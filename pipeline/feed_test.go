package pipeline_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

func TestFeedCursor(t *testing.T) {
	for _, p := range []pipeline.FeedPosition{{}, {Seq: 0, ID: 17}, {Seq: 1 << 40, ID: 3}} {
		got, err := pipeline.ParseFeedCursor(p.String())
		require.NoError(t, err)
		assert.Equal(t, p, got)
		assert.NotContains(t, p.String(), "=", "a cursor needs no escaping in a URL")
	}
	for _, bad := range []string{"", "x", "MS4x", "Mi4xLjE", "MS4tMS4x", "MS5hLjE"} {
		_, err := pipeline.ParseFeedCursor(bad)
		assert.Error(t, err, bad)
	}
	assert.True(t, pipeline.FeedPosition{Seq: 2, ID: 1}.After(pipeline.FeedPosition{Seq: 1, ID: 9}))
	assert.True(t, pipeline.FeedPosition{Seq: 2, ID: 2}.After(pipeline.FeedPosition{Seq: 2, ID: 1}))
	assert.False(t, pipeline.FeedPosition{Seq: 1, ID: 9}.After(pipeline.FeedPosition{Seq: 2, ID: 1}))
}

func TestFeedFilter_Validate(t *testing.T) {
	assert.NoError(t, pipeline.FeedFilter{}.Validate())
	assert.NoError(t, pipeline.FeedFilter{Limit: 100, Actions: pipeline.Actions}.Validate())
	for field, f := range map[string]pipeline.FeedFilter{
		"after":  {After: "nope"},
		"limit":  {Limit: 101},
		"action": {Actions: []string{"job.deleted"}},
	} {
		assert.Contains(t, pipeline.Fields(f.Validate()), field)
	}
}

// activityProbes call the operations of this file's resource for the tables of
// operations (see probe).
var activityProbes = []operation{
	{pipeline.OpListActivity, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.ListActivity(ctx, pipeline.FeedFilter{Limit: pick(p, 0, pipeline.MaxFeedLimit+1)})
		return err
	}},
}
