package pipelinehttp

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// list is the paginated list envelope.
type list[T any] struct {
	Data  []T   `json:"data"`
	Links links `json:"links"`
	Meta  meta  `json:"meta"`
}

// links are absolute URLs of the list's pages; Prev is null on page 1 and
// Next from the last page on.
type links struct {
	First string `json:"first" schema:"format: uri"`
	Last  string `json:"last" schema:"format: uri"`
	// `null` on page 1.
	Prev *string `json:"prev" schema:"format: uri"`
	// `null` when `current_page` ≥ `last_page`.
	Next *string `json:"next" schema:"format: uri"`
}

type meta struct {
	// The page asked for, even past the last.
	CurrentPage int `json:"current_page" schema:"minimum: 1"`
	LastPage    int `json:"last_page" schema:"minimum: 1"`
	PerPage     int `json:"per_page" schema:"const: 15"` // pipeline.PageSize
	// Records on all pages.
	Total int `json:"total" schema:"minimum: 0"`
}

// listOf renders a page of items with conv, its links to the pages of base
// (an absolute URL without a query) with filters as their query beside
// page.
func listOf[T, U any](base string, filters url.Values, l pipeline.List[T], conv func(T) U) list[U] {
	items := make([]U, 0, len(l.Items))
	for _, it := range l.Items {
		items = append(items, conv(it))
	}
	last, page := l.LastPage(), l.Page
	pageURL := func(n int) string {
		q := url.Values{}
		for k, v := range filters {
			q[k] = v
		}
		q.Set("page", strconv.Itoa(n))
		return base + "?" + q.Encode()
	}
	lk := links{First: pageURL(1), Last: pageURL(last)}
	if page > 1 {
		prev := pageURL(page - 1)
		lk.Prev = &prev
	}
	if page < last {
		next := pageURL(page + 1)
		lk.Next = &next
	}
	return list[U]{
		Data:  items,
		Links: lk,
		Meta:  meta{CurrentPage: page, LastPage: last, PerPage: l.PerPage, Total: l.Total},
	}
}

// origin is what pagination links put before the request's path:
// Config.BaseURL, else the request's own scheme (https when it came over
// TLS) and host.
func (a *api) origin(r *http.Request) string {
	if a.baseURL != "" {
		return a.baseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
