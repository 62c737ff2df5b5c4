package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
)

// jsonType is the Content-Type of every response body.
const jsonType = "application/json; charset=utf-8"

// The baseline's response shapes: the API contract's, field for field.
type (
	envelope[T any] struct {
		Data T `json:"data"`
	}
	named struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	identity struct {
		ID     int64    `json:"id"`
		Name   string   `json:"name"`
		Email  string   `json:"email"`
		Team   named    `json:"team"`
		Scopes []string `json:"scopes"`
		// ApprovalRequired is the token's approval policy, [] for none.
		ApprovalRequired []string `json:"approval_required"`
	}
	jobBody struct {
		ID                  int64  `json:"id"`
		Title               string `json:"title"`
		Status              string `json:"status"`
		Description         string `json:"description"`
		CreatedAt           string `json:"created_at"`
		WorkMode            string `json:"work_mode"`
		EmploymentType      string `json:"employment_type"`
		ApplicationDeadline string `json:"application_deadline"`
		UpdatedAt           string `json:"updated_at"`
	}
	candidateItem struct {
		ID      int64  `json:"id"`
		Name    string `json:"name"`
		Email   string `json:"email"`
		Applied string `json:"applied"`
		Stage   string `json:"stage"`
		Status  string `json:"status"`
	}
	candidateBody struct {
		ID         int64  `json:"id"`
		Name       string `json:"name,omitempty"`
		Email      string `json:"email,omitempty"`
		Applied    string `json:"applied,omitempty"`
		Stage      string `json:"stage,omitempty"`
		Status     string `json:"status,omitempty"`
		ResumeURL  string `json:"resume_url,omitempty"`
		NotesCount int    `json:"notes_count"`
	}
	noteBody struct {
		ID        int64  `json:"id"`
		Content   string `json:"content"`
		Author    named  `json:"author"`
		CreatedAt string `json:"created_at"`
	}
	listBody[T any] struct {
		Data  []T       `json:"data"`
		Links listLinks `json:"links"`
		Meta  listMeta  `json:"meta"`
	}
	listLinks struct {
		First string  `json:"first"`
		Last  string  `json:"last"`
		Prev  *string `json:"prev"`
		Next  *string `json:"next"`
	}
	listMeta struct {
		CurrentPage int `json:"current_page"`
		LastPage    int `json:"last_page"`
		PerPage     int `json:"per_page"`
		Total       int `json:"total"`
	}
	errorBody struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Details any    `json:"details"`
		} `json:"error"`
	}
)

// encode is v as JSON without HTML escaping (descriptions are HTML) and
// without a trailing newline.
func encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only the shapes above are encoded
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func respond(c *gin.Context, status int, v any) { c.Data(status, jsonType, encode(v)) }

// fail answers with the error envelope and stops the request.
func fail(c *gin.Context, status int, code, message string, details any) {
	var e errorBody
	e.Error.Code, e.Error.Message, e.Error.Details = code, message, details
	if status == http.StatusUnauthorized {
		c.Header("WWW-Authenticate", "Bearer")
	}
	c.Data(status, jsonType, encode(e))
	c.Abort()
}

// invalid answers 422 with field messages.
func invalid(c *gin.Context, fields map[string][]string) {
	fail(c, http.StatusUnprocessableEntity, "validation_failed", "The given data was invalid.", fields)
}

func notFound(c *gin.Context, what string) {
	fail(c, http.StatusNotFound, "not_found", what+" not found.", nil)
}

func serverError(c *gin.Context, b *baseline, err error) {
	b.log.Error("server error", "path", c.Request.URL.Path, "error", err.Error())
	fail(c, http.StatusInternalServerError, "server_error", "Server error.", nil)
}

// newLinks are a list's absolute page links, from the request's host, with
// the filters kept and page replaced.
func newLinks(c *gin.Context, page, last int, keep ...string) listLinks {
	scheme := "http"
	if c.Request.TLS != nil {
		scheme = "https"
	}
	base := scheme + "://" + c.Request.Host + c.Request.URL.EscapedPath()
	filters := url.Values{}
	for _, k := range keep {
		if v := c.Query(k); v != "" {
			filters.Set(k, v)
		}
	}
	at := func(n int) string {
		filters.Set("page", strconv.Itoa(n))
		return base + "?" + filters.Encode()
	}
	l := listLinks{First: at(1), Last: at(last)}
	if page > 1 {
		prev := at(page - 1)
		l.Prev = &prev
	}
	if page < last {
		next := at(page + 1)
		l.Next = &next
	}
	return l
}

// stamp is an RFC 3339 UTC timestamp to the second.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// day is a date as YYYY-MM-DD.
func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }
