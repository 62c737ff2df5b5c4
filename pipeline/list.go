package pipeline

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// PageSize is the number of records on a page of any list.
const PageSize = 15

// List is one page of a paginated list.
type List[T any] struct {
	Items   []T
	Page    int // the page asked for, starting at 1
	PerPage int
	Total   int // records on all pages
}

// LastPage is the number of the last page; at least 1.
func (l List[T]) LastPage() int {
	if l.Total == 0 || l.PerPage <= 0 {
		return 1
	}
	return (l.Total + l.PerPage - 1) / l.PerPage
}

// Offset is the number of records before page (from 1) on pages of
// PageSize. It saturates instead of overflowing, so an absurd page is
// merely past the last.
func Offset(page int) int {
	if page-1 > math.MaxInt/PageSize {
		return math.MaxInt
	}
	return (max(page, 1) - 1) * PageSize
}

// Fold is the case folding used for search: a search matches when the folded
// search text is a substring of the folded field. Stores keep folded copies of
// searchable fields so that matching is the same on every database. It is
// lower case, with the letters that have a second lower-case form folded to
// the common one, so that texts strings.EqualFold finds equal fold alike
// (ΛΟΓΙΣΤΉΣ and λογιστής: final ς and σ).
func Fold(s string) string { return strings.Map(foldRune, s) }

// foldRune is r folded: its lower case, or, for the few lower-case letters
// that have a second form (ς, ſ, µ, ϐ…), the common one.
func foldRune(r rune) rune {
	l := unicode.ToLower(r)
	if l < utf8.RuneSelf {
		return l
	}
	f := unicode.ToLower(unicode.ToUpper(l))
	if f == l {
		return l
	}
	// f is l's common form only when the two fold together: ı upper-cases
	// to I, but is not i.
	for o := unicode.SimpleFold(l); o != l; o = unicode.SimpleFold(o) {
		if o == f {
			return f
		}
	}
	return l
}
