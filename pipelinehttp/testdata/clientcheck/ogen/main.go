// Command ogen checks the client ogen generated: each recorded error answer
// of PATCH /api/v1/jobs/{job} decodes into its typed error body. The typed
// declarations below are the check that code, message and details have
// types of their own; they fail to compile otherwise.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"gencheck/ogen/client"
)

// answer is a recorded response.
type answer struct {
	Status int
	Header http.Header
	Body   string
}

// Do answers any request with the recorded response.
func (a answer) Do(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: a.Status, Header: a.Header, Body: io.NopCloser(strings.NewReader(a.Body))}, nil
}

// token is the client's security source.
type token struct{}

func (token) BearerAuth(context.Context, client.OperationName) (client.BearerAuth, error) {
	return client.BearerAuth{Token: "plt_example"}, nil
}

func main() {
	raw, err := os.ReadFile(os.Args[1])
	must(err)
	var answers map[string]answer
	must(json.Unmarshal(raw, &answers))
	update := func(name string) client.UpdateJobRes {
		c, err := client.NewClient("http://api.test", token{}, client.WithClient(answers[name]))
		must(err)
		req := &client.JobUpdateRequest{Status: client.NewOptJobStatus(client.JobStatusOpen)}
		r, err := c.UpdateJob(context.Background(), req, client.UpdateJobParams{Job: 1})
		must(err)
		return r
	}

	// 403 carries one of two codes, told apart by the discriminator.
	forbidden := update("forbidden").(*client.JobWriteForbiddenHeaders).Response.Error
	f, ok := forbidden.GetForbiddenErrorObject()
	check(ok, "403 forbidden decoded as %s", forbidden.Type)
	var fCode string = f.Code
	var fMessage client.ErrorMessage = f.Message
	var fDetails struct{} = f.Details
	check(fCode == "forbidden" && fMessage != "", "403 forbidden: %+v %v", f, fDetails)

	scope := update("insufficient_scope").(*client.JobWriteForbiddenHeaders).Response.Error
	s, ok := scope.GetInsufficientScopeJobsWriteErrorObject()
	check(ok, "403 insufficient_scope decoded as %s", scope.Type)
	var sScope string = s.Details.RequiredScope
	check(s.Code == "insufficient_scope" && sScope == "jobs:write" && s.Message != "", "403 insufficient_scope: %+v", s)

	nf := update("not_found").(*client.NotFoundHeaders).Response.Error
	var nfCode string = nf.Code
	var nfMessage client.ErrorMessage = nf.Message
	check(nfCode == "not_found" && nfMessage != "", "404: %+v", nf)

	v := update("validation_failed").(*client.ValidationFailedHeaders).Response.Error
	var vDetails map[string][]string = v.Details
	check(v.Code == "validation_failed" && len(vDetails["body"]) > 0 && v.Message != "", "422: %+v", v)

	u := update("unauthenticated").(*client.UnauthenticatedHeaders).Response.Error
	var uMessage string = u.Message
	check(u.Code == "unauthenticated" && uMessage == "Unauthenticated.", "401: %+v", u)
	fmt.Println("ogen client: every error typed")
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func check(ok bool, format string, args ...any) {
	if !ok {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
		os.Exit(1)
	}
}
