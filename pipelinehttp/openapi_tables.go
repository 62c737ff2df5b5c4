package pipelinehttp

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The overlay's prose names the tables that the table of operations
// makes, so that none can fall behind it: {{scopes}} (each scope, what it
// grants and the operations that need it), {{tools}} and {{not tools}}
// (the operations that are MCP tools, and the others) and
// {{errors}} (each error code with its status).

// errorWhen says when each code is answered: the domain's codes and this
// face's own.
var errorWhen = map[string]string{
	pipeline.EUnauthenticated:   "token missing, unknown, revoked or expired",
	pipeline.EInsufficientScope: "the token lacks the operation's scope",
	pipeline.EForbidden:         "allowed by scope but refused by a business rule: the plan's job limit, met by creating a job or by reopening a closed one; a candidate added to a closed job",
	CodeBadRequest:              "a write's body ended before its declared length",
	pipeline.ENotFound:          "no such record, a record the token cannot reach, a path id that is not a positive integer, a candidate of another job, or an unknown route",
	CodeMethodNotAllowed:        "a known path with another method; the `Allow` header lists the methods",
	CodeRequestTimeout:          "a write's body did not arrive before the request's deadline or the server's read deadline",
	pipeline.EConflict:          "a request with the same `Idempotency-Key` is still being processed; an interview that double-books someone; a proposal already decided",
	CodePayloadTooLarge:         "a request body over its limit (1 MiB, or a document's own), sent or declared",
	CodeUnsupportedMediaType:    "an upload whose body is not `multipart/form-data` (a file of a type the API does not take is 422)",
	CodeRangeNotSatisfiable:     "a download's `Range` asks for no byte of the document; `Content-Range` gives its size",
	pipeline.EValidation:        "invalid query parameter, body or `Idempotency-Key`",
	pipeline.ERateLimited:       "the rate budget is spent (message `Too Many Attempts.`)",
	pipeline.EInternal:          "a fault of the server; the message is generic and reveals nothing internal",
	pipeline.EUnavailable:       "the database could not be reached or did not answer in time, or the server is stopping (message `Service temporarily unavailable.`, `Retry-After`)",
}

// notFoundWhen says when an operation answers not_found, by the last
// record its path names; a path whose last record is not here is
// described by the shared NotFound response alone.
var notFoundWhen = map[string]string{
	"job":       "`not_found`: no such job, or one the token cannot reach.",
	"candidate": "`not_found`: no such job or candidate, a job the token cannot reach, or a candidate of another job.",
	"message":   "`not_found`: no such job, candidate or message, a job the token cannot reach, a candidate of another job, or a message to another candidate.",
	"interview": "`not_found`: no such job, candidate or interview, a job the token cannot reach, or a record of another one.",
	"webhook":   "`not_found`: no such webhook on the token's current team.",
}

// fillTables replaces the placeholders in the document's description.
func fillTables(root *yaml.Node) error {
	desc := get(get(root, "info"), "description")
	if desc == nil {
		return fmt.Errorf("no info.description")
	}
	errs, err := errorTable()
	if err != nil {
		return err
	}
	tools, others := toolLists()
	for name, table := range map[string]string{"{{scopes}}": scopeTable(), "{{tools}}": tools, "{{not tools}}": others, "{{errors}}": errs} {
		if !strings.Contains(desc.Value, name) {
			return fmt.Errorf("info.description has no %s", name)
		}
		desc.Value = strings.ReplaceAll(desc.Value, name, table)
	}
	return nil
}

// scopeTable is each scope, what it grants and the operations that need
// it, in the table's order.
func scopeTable() string {
	var b strings.Builder
	b.WriteString("| Scope | Grants | Operations |\n|---|---|---|\n")
	for _, s := range pipeline.AllScopes {
		var ops []string
		for _, op := range pipeline.Ops() {
			if op.Scope() == s {
				ops = append(ops, "`"+string(op)+"`")
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", s, s.Words(), strings.Join(ops, ", "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// toolLists name the operations that are MCP tools and those that are
// not, in the table's order.
func toolLists() (tools, others string) {
	var is, not []string
	for _, o := range operations {
		if o.tool != nil {
			is = append(is, "`"+string(o.op)+"`")
		} else {
			not = append(not, "`"+string(o.op)+"`")
		}
	}
	return strings.Join(is, ", "), strings.Join(not, ", ")
}

// errorTable is every error code with its status, by status.
func errorTable() (string, error) {
	codes := pipeline.ErrorCodes()
	maps.Copy(codes, faceStatus)
	keys := slices.SortedFunc(maps.Keys(codes), func(a, b string) int {
		return cmp.Or(cmp.Compare(codes[a], codes[b]), cmp.Compare(a, b))
	})
	var b strings.Builder
	b.WriteString("| Status | `code` | When |\n|---|---|---|\n")
	for _, code := range keys {
		when, ok := errorWhen[code]
		if !ok {
			return "", fmt.Errorf("the error code %s has no words in errorWhen", code)
		}
		fmt.Fprintf(&b, "| %d | `%s` | %s |\n", codes[code], code, when)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}
