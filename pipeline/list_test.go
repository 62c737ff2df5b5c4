package pipeline

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePage(t *testing.T) {
	for raw, want := range map[string]int{"1": 1, "7": 7} {
		got, err := ParsePage(raw)
		require.NoError(t, err, raw)
		assert.Equal(t, want, got)
	}
	for _, raw := range []string{"", "0", "-1", "x", "1.5", " 1", "99999999999999999999"} {
		_, err := ParsePage(raw)
		assert.Equal(t, EValidation, ErrorCode(err), raw)
		assert.Contains(t, err.(*Error).Details, "page", raw)
	}
}

func TestParseID(t *testing.T) {
	for raw, want := range map[string]int64{"1": 1, "42": 42} {
		got, ok := ParseID(raw)
		assert.True(t, ok, raw)
		assert.Equal(t, want, got)
	}
	for _, raw := range []string{"", "0", "-3", "+3", "abc", "1e3", "9223372036854775808"} {
		_, ok := ParseID(raw)
		assert.False(t, ok, raw)
	}
}

func TestList_LastPage(t *testing.T) {
	for total, want := range map[int]int{0: 1, 1: 1, 15: 1, 16: 2, 30: 2, 31: 3} {
		assert.Equal(t, want, List[int]{Total: total, PerPage: PageSize}.LastPage(), total)
	}
}

func TestFold(t *testing.T) {
	assert.Equal(t, Fold("Ingénieur"), Fold("INGÉNIEUR"))
	assert.Contains(t, Fold("Frontend Ingénieur"), Fold("INGÉN"))
}

func TestNormalizeScopes(t *testing.T) {
	got, err := NormalizeScopes("scopes", []Scope{ScopeCandidatesRead, ScopeJobsRead, ScopeJobsRead})
	require.NoError(t, err)
	assert.Equal(t, []Scope{ScopeJobsRead, ScopeCandidatesRead}, got)

	_, err = NormalizeScopes("scopes", []Scope{"jobs:delete"})
	assert.Equal(t, EValidation, ErrorCode(err))
	_, err = NormalizeScopes("scopes", nil)
	assert.Equal(t, EValidation, ErrorCode(err))
}

func TestValidIdempotencyKey(t *testing.T) {
	long := make([]byte, 256)
	for i := range long {
		long[i] = 'k'
	}
	assert.True(t, ValidIdempotencyKey("a"))
	assert.True(t, ValidIdempotencyKey("3f1c2d9e-0b7a-4a55-9d8e-2a1f6c7b8e90"))
	assert.True(t, ValidIdempotencyKey(string(long[:255])))
	assert.False(t, ValidIdempotencyKey(""))
	assert.False(t, ValidIdempotencyKey(string(long)))
	assert.False(t, ValidIdempotencyKey("tab\tkey"))
	assert.False(t, ValidIdempotencyKey("clé"))
}
