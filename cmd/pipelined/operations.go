package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
)

// operationsDoc introduces "pipelined help operations".
const operationsDoc = `The operations of the API, in the order of its document: each one's name
(the MCP tool's, the OpenAPI operationId, and what a token's approval policy
names), its REST request below /api/v1, the scope it needs, and whether it
is an MCP tool. WRITE marks the operations a policy may name.

`

// printOperations prints the table of operations.
func printOperations(w io.Writer) error {
	tools := pipelinehttp.Tools()
	fmt.Fprint(w, operationsDoc)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tMETHOD\tPATH\tSCOPE\tTOOL\tWRITE")
	for _, op := range pipeline.Ops() {
		scope := string(op.Scope())
		if scope == "" {
			scope = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t/api/v1%s\t%s\t%s\t%s\n", op, op.Method(), op.Path(), scope,
			yesNo(slices.Contains(tools, op)), yesNo(op.Writes()))
	}
	return tw.Flush()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
