// Command oapi-codegen checks the client oapi-codegen generated: each
// recorded error answer of PATCH /api/v1/jobs/{job} decodes into its typed
// error body. The typed declarations below are the check that code, message
// and details have types of their own; they fail to compile otherwise.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"gencheck/oapi-codegen/client"
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

func main() {
	raw, err := os.ReadFile(os.Args[1])
	must(err)
	var answers map[string]answer
	must(json.Unmarshal(raw, &answers))
	update := func(name string) *client.UpdateJobResponse {
		c, err := client.NewClientWithResponses("http://api.test", client.WithHTTPClient(answers[name]))
		must(err)
		open := client.Open
		r, err := c.UpdateJobWithResponse(context.Background(), 1, nil, client.JobUpdateRequest{Status: &open})
		must(err)
		return r
	}

	// 403 carries one of two codes, told apart by the discriminator.
	forbidden, err := update("forbidden").JSON403.Error.ValueByDiscriminator()
	must(err)
	f, ok := forbidden.(client.ForbiddenErrorObject)
	check(ok, "403 forbidden decoded as %T", forbidden)
	var fCode client.ForbiddenErrorObjectCode = f.Code
	var fMessage string = f.Message
	check(fCode == "forbidden" && fMessage != "", "403 forbidden: %+v", f)

	scope, err := update("insufficient_scope").JSON403.Error.ValueByDiscriminator()
	must(err)
	s, ok := scope.(client.InsufficientScopeJobsWriteErrorObject)
	check(ok, "403 insufficient_scope decoded as %T", scope)
	var sCode client.InsufficientScopeJobsWriteErrorObjectCode = s.Code
	var sScope client.InsufficientScopeJobsWriteErrorObjectDetailsRequiredScope = s.Details.RequiredScope
	check(sCode == "insufficient_scope" && sScope == "jobs:write" && s.Message != "", "403 insufficient_scope: %+v", s)

	nf := update("not_found").JSON404.Error
	var nfCode client.NotFoundErrorObjectCode = nf.Code
	var nfMessage string = nf.Message
	check(nfCode == "not_found" && nfMessage != "" && nf.Details == nil, "404: %+v", nf)

	v := update("validation_failed").JSON422.Error
	var vCode client.ValidationFailedErrorObjectCode = v.Code
	var vDetails map[string][]string = v.Details
	check(vCode == "validation_failed" && len(vDetails["body"]) > 0 && v.Message != "", "422: %+v", v)

	u := update("unauthenticated").JSON401.Error
	var uCode client.UnauthenticatedErrorObjectCode = u.Code
	var uMessage client.UnauthenticatedErrorObjectMessage = u.Message
	check(uCode == "unauthenticated" && uMessage == "Unauthenticated.", "401: %+v", u)
	fmt.Println("oapi-codegen client: every error typed")
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
