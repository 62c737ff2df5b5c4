package pipelinestore_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

func TestMigration_InterviewUIDs(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		migration := "migrations/" + db.Dialect() + "/20261130100000_interview_uids.tx."
		run := func(file string) {
			raw, err := os.ReadFile(migration + file)
			require.NoError(t, err)
			require.NoError(t, pipelinestore.ExecTx(db, strings.Split(string(raw), "--bun:split")...), file)
		}
		ctx, job, ada := f.As(t, "olivia"), f.Job("backend"), f.Res.Candidates["ada"]
		var ids []int64
		for h := range 2 {
			start := time.Now().UTC().Add(time.Duration(48+2*h) * time.Hour).Truncate(time.Hour)
			res, err := f.Svc.ScheduleInterview(ctx, job, ada, pipeline.NewInterview{Start: start.Format(time.RFC3339),
				End: start.Add(time.Hour).Format(time.RFC3339), InterviewerIDs: []int64{f.User("mia")}})
			require.NoError(t, err)
			ids = append(ids, res.Value.ID)
		}
		run("down.sql")
		run("up.sql")
		var uids []string
		for _, id := range ids {
			iv, err := f.Svc.GetInterview(ctx, job, ada, id)
			require.NoError(t, err)
			assert.Regexp(t, fmt.Sprintf(`^interview-%d-[0-9a-f]{16}@localhost$`, id), iv.UID, "an interview scheduled before gets a UID")
			assert.Equal(t, "noreply@localhost", iv.Organizer.Email)
			uids = append(uids, iv.UID[strings.Index(iv.UID, "-")+1:])
		}
		assert.NotEqual(t, strings.SplitN(uids[0], "-", 2)[1], strings.SplitN(uids[1], "-", 2)[1], "random digits of their own")
	})
}
