package pipelinestore_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// TestMigration_UserEmailFold: a user stored before emails were folded in
// Go is found by their email in any letter case once migrated, beyond
// ASCII too; two users whose emails are one in another letter case stop
// the migration, naming the email, rather than stay two.
func TestMigration_UserEmailFold(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *pipelinestore.DB) {
		f := seeded(t, db)
		ctx := context.Background()
		migration := "migrations/" + db.Dialect() + "/20261204000000_user_email_fold.tx."
		run := func(file string, before ...string) error {
			raw, err := os.ReadFile(migration + file)
			require.NoError(t, err)
			return pipelinestore.ExecTx(db, append(before, strings.Split(string(raw), "--bun:split")...)...)
		}
		mia := f.User("mia")
		require.NoError(t, run("down.sql"))
		require.NoError(t, run("up.sql", `UPDATE users SET email = 'MIA.JÜRGENS@acme.test' WHERE id = `+itoa(int(mia))))
		require.NoError(t, pipelinestore.RefoldUserEmails(db))
		u, err := db.Users().ByEmail(ctx, pipeline.UserByEmailParams{Email: "mia.jürgens@ACME.test"})
		require.NoError(t, err)
		assert.Equal(t, mia, u.ID)

		require.NoError(t, run("down.sql"))
		err = run("up.sql", `UPDATE users SET email = 'mia.jürgens@acme.test' WHERE id = `+itoa(int(f.User("nina"))))
		if db.Dialect() == pipelinestore.DialectPostgres {
			// lower() folds beyond ASCII here: the index refused the
			// second user already.
			require.Error(t, err, "two users of one email in another letter case")
			return
		}
		require.NoError(t, err)
		err = pipelinestore.RefoldUserEmails(db)
		require.ErrorContains(t, err, "is another user's in another letter case", "two users of one email in another letter case")
	})
}
