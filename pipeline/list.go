package pipeline

import (
	"math"
	"strings"
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
// searchable fields so that matching is the same on every database.
func Fold(s string) string { return strings.ToLower(s) }
