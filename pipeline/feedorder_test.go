package pipeline_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// TestFeed_SameRecordChains moves one candidate from six writers at once,
// with idempotency keys, through two Services on two handles of one
// database (two replicas), then reads the whole feed: the candidate's
// stage changes chain, each entry's before being the previous entry's
// after, as a consumer that applies the feed to a copy needs.
func TestFeed_SameRecordChains(t *testing.T) {
	eachReplicated(t, "concurrent keyed moves of one candidate", sameRecordChains)
}

func sameRecordChains(t *testing.T, first world, other *pipeline.Service) {
	replicas := []*pipeline.Service{first.Svc, other}
	as := first.As(t, "olivia")
	job := first.Job("backend")
	cand := first.Res.Candidates["ada"]
	stages := first.Res.Stages["backend"]
	var ids []int64
	for _, id := range stages {
		ids = append(ids, id)
	}

	const writers, moves = 6, 16
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range moves {
				in := pipeline.CandidateMove{
					StageID:     ids[(w+i)%len(ids)],
					Idempotency: &pipeline.Idempotency{Key: fmt.Sprintf("w%d-m%d", w, i)},
				}
				for {
					_, err := replicas[(w+i)%2].MoveCandidate(as, job, cand, in)
					if pipeline.ErrorCode(err) == pipeline.EConflict {
						continue // the key is in flight elsewhere: never here
					}
					require.NoError(t, err)
					break
				}
			}
		})
	}
	wg.Wait()

	// Another transaction open on the server holds the feed's horizon
	// back: read until the feed has served every entry of the log.
	logged := 0
	for _, a := range first.Activity(t) {
		if a.Action == pipeline.ActionCandidateStageChanged && a.SubjectID == cand {
			logged++
		}
	}
	var chain []map[string]pipeline.Change
	after := ""
	for deadline := time.Now().Add(30 * time.Second); len(chain) < logged && time.Now().Before(deadline); {
		page, err := replicas[0].ListActivity(as, pipeline.FeedFilter{After: after, Limit: pipeline.MaxFeedLimit,
			Actions: []string{pipeline.ActionCandidateStageChanged}})
		require.NoError(t, err)
		for _, e := range page.Entries {
			if e.SubjectID != cand {
				continue
			}
			var ch map[string]pipeline.Change
			require.NoError(t, json.Unmarshal(e.Changes, &ch))
			chain = append(chain, ch)
		}
		after = page.Next
		if !page.HasMore && len(chain) < logged {
			time.Sleep(10 * time.Millisecond)
		}
	}
	require.Len(t, chain, logged, "the feed serves every entry of the log")
	broken := 0
	for i := 1; i < len(chain); i++ {
		if chain[i]["stage"].Before != chain[i-1]["stage"].After {
			broken++
		}
	}
	require.Zero(t, broken, "of %d stage changes in feed order, %d did not chain", len(chain), broken)
	got, err := replicas[1].GetCandidate(as, job, cand)
	require.NoError(t, err)
	require.Equal(t, got.Stage, chain[len(chain)-1]["stage"].After, "the last entry names the stage the candidate is in")
}
