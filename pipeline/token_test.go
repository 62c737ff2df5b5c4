package pipeline

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewTokenValue(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		v := NewTokenValue()
		require.True(t, strings.HasPrefix(v, TokenPrefix), v)
		require.Len(t, v, len(TokenPrefix)+tokenRandomLen+tokenCheckLen)
		require.True(t, WellFormedToken(v), v)
		require.False(t, seen[v], "token values repeat")
		seen[v] = true
	}
}

func TestWellFormedToken(t *testing.T) {
	v := NewTokenValue()
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	for name, value := range map[string]string{
		"empty":             "",
		"no prefix":         strings.TrimPrefix(v, TokenPrefix),
		"other prefix":      "ghp_" + strings.TrimPrefix(v, TokenPrefix),
		"short":             v[:len(v)-1],
		"long":              v + "A",
		"typo in body":      flip(v, len(TokenPrefix)+3),
		"typo in checksum":  flip(v, len(v)-1),
		"non base62 symbol": v[:len(v)-2] + "-" + v[len(v)-1:],
	} {
		t.Run(name, func(t *testing.T) {
			assert.False(t, WellFormedToken(value))
		})
	}
}

func TestHashToken(t *testing.T) {
	v := NewTokenValue()
	h := HashToken(v)
	assert.Len(t, h, 64)
	assert.Equal(t, h, HashToken(v))
	assert.NotContains(t, h, strings.TrimPrefix(v, TokenPrefix))
	assert.NotEqual(t, h, HashToken(NewTokenValue()))
}
