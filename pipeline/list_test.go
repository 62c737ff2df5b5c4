package pipeline

import (
	"math"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOffset(t *testing.T) {
	assert.Equal(t, 0, Offset(1))
	assert.Equal(t, 0, Offset(0), "0 is the first page")
	assert.Equal(t, 15, Offset(2))
	assert.Equal(t, math.MaxInt, Offset(math.MaxInt), "saturates instead of overflowing")
}

func TestList_LastPage(t *testing.T) {
	for total, want := range map[int]int{0: 1, 1: 1, 15: 1, 16: 2, 30: 2, 31: 3} {
		assert.Equal(t, want, List[int]{Total: total, PerPage: PageSize}.LastPage(), total)
	}
}

func TestFold(t *testing.T) {
	assert.Equal(t, Fold("Ingénieur"), Fold("INGÉNIEUR"))
	assert.Contains(t, Fold("Frontend Ingénieur"), Fold("INGÉN"))
	assert.Equal(t, Fold("Λογιστής"), Fold("ΛΟΓΙΣΤΉΣ"), "final sigma")
	assert.Equal(t, Fold("Maſs"), Fold("MASS"), "long s")
	assert.NotEqual(t, Fold("kırmızı"), Fold("KIRMIZI"), "dotless ı is its own letter")
	// Over every rune: runes equal under simple case folding fold alike,
	// and a folded rune folds to itself.
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		f := Fold(string(r))
		if Fold(f) != f {
			t.Fatalf("%U: Fold is not idempotent", r)
		}
		for o := unicode.SimpleFold(r); o != r; o = unicode.SimpleFold(o) {
			if Fold(string(o)) != f {
				t.Fatalf("%U and %U are equal under case folding but fold apart", r, o)
			}
		}
	}
}

func TestNormalizeScopes(t *testing.T) {
	got, err := NormalizeScopes("scopes", []Scope{ScopeCandidatesRead, ScopeJobsRead, ScopeJobsRead})
	require.NoError(t, err)
	assert.Equal(t, []Scope{ScopeJobsRead, ScopeCandidatesRead}, got)

	_, err = NormalizeScopes("scopes", []Scope{"jobs:delete"})
	assert.Equal(t, EValidation, ErrorCode(err))
	got, err = NormalizeScopes("scopes", nil)
	require.NoError(t, err, "a token may carry no scope")
	assert.Empty(t, got)
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
