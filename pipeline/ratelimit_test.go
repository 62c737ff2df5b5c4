package pipeline

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMemoryLimiter(t *testing.T) {
	ctx := context.Background()
	l := NewMemoryLimiter(3)
	assert.Equal(t, 3, l.Limit())
	t0 := time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC)

	for i, want := range []int{2, 1, 0} {
		q, err := l.Take(ctx, "user:1", t0.Add(time.Duration(i)*time.Second))
		require.NoError(t, err)
		assert.True(t, q.Allowed)
		assert.Equal(t, 3, q.Limit)
		assert.Equal(t, want, q.Remaining)
		assert.Equal(t, t0.Add(RateWindow), q.Reset, "the window opens with the first request")
	}
	q, err := l.Take(ctx, "user:1", t0.Add(59*time.Second))
	require.NoError(t, err)
	assert.False(t, q.Allowed, "fourth request in the window")
	assert.Equal(t, 0, q.Remaining)

	other, err := l.Take(ctx, "user:2", t0.Add(59*time.Second))
	require.NoError(t, err)
	assert.True(t, other.Allowed, "buckets are independent")

	q, err = l.Take(ctx, "user:1", t0.Add(RateWindow))
	require.NoError(t, err)
	assert.True(t, q.Allowed, "a new window after 60 s")
	assert.Equal(t, 2, q.Remaining)
	assert.Equal(t, t0.Add(2*RateWindow), q.Reset)
}
