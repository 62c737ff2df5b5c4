package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// TestError_Sentinels: a particular failure matches its own sentinel and
// its code's, wrapped or not, and still carries its code, message and
// field details; other errors of the code do not match it.
func TestError_Sentinels(t *testing.T) {
	each(t, "ErrLastOwner", func(t *testing.T, w world) {
		_, err := w.Op.SetRole(context.Background(), "olivia@acme.test", w.Res.Teams["acme"], pipeline.RoleMember)
		wrapped := fmt.Errorf("set-role: %w", err)
		for _, err := range []error{err, wrapped} {
			assert.ErrorIs(t, err, pipeline.ErrLastOwner)
			assert.ErrorIs(t, err, pipeline.ErrValidation)
			assert.NotErrorIs(t, err, pipeline.ErrOnlyTeam)
			assert.NotErrorIs(t, err, pipeline.ErrNameMismatch)
			assert.NotErrorIs(t, err, pipeline.ErrNotFound)
			var e *pipeline.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, pipeline.EValidation, e.Code)
			assert.Equal(t, "The given data was invalid.", e.Message)
			assert.Equal(t, pipeline.FieldErrors{"role": {"Team acme would have no owner."}}, e.Details)
			assert.Equal(t, pipeline.EValidation, pipeline.ErrorCode(err))
		}
	})
	t.Run("other errors of the code", func(t *testing.T) {
		err := pipeline.Invalid("role", "The role must be owner, admin or member.")
		assert.ErrorIs(t, err, pipeline.ErrValidation)
		assert.NotErrorIs(t, err, pipeline.ErrLastOwner)
		assert.NotErrorIs(t, errors.New("role"), pipeline.ErrLastOwner)
	})
	t.Run("the sentinel itself", func(t *testing.T) {
		assert.ErrorIs(t, pipeline.ErrOnlyTeam, pipeline.ErrOnlyTeam)
		assert.ErrorIs(t, pipeline.ErrOnlyTeam, pipeline.ErrValidation)
		assert.NotErrorIs(t, pipeline.ErrValidation, pipeline.ErrOnlyTeam)
	})
}
