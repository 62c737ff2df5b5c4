package pipeline

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestOp_Traits: every operation has a REST request that stands for it,
// whose path parameters each name a kind of record a Ref holds; a read is
// a GET and every other method writes.
func TestOp_Traits(t *testing.T) {
	assert.Len(t, Ops(), len(opTraitsOf), "each operation is in the table once")
	for _, op := range Ops() {
		assert.Contains(t, []string{"GET", "POST", "PATCH", "DELETE"}, op.Method(), op)
		if op.Method() == "GET" {
			assert.False(t, op.Writes(), op)
		}
		assert.Regexp(t, `^/[a-z]`, op.Path(), op)
		for _, name := range op.Records() {
			assert.NotNil(t, (&Ref{}).ID(name), "%s: {%s} is a kind of record", op, name)
		}
	}
	assert.Equal(t, []string{"job", "candidate", "message"}, OpCancelMessage.Records())
	assert.Empty(t, OpListJobs.Records())
	assert.True(t, OpErasePerson.Writes())
	assert.False(t, OpExportPerson.Writes(), "a read sent as a POST, its email out of the URL")
	assert.True(t, slices.Contains(Ops(), OpGetAvailability))
	assert.Equal(t, Scope(""), OpGetMe.Scope())
	assert.Equal(t, ScopeSchedulingWrite, OpGetAvailability.Scope())
}

// TestRef_IDs: each kind of record is kept in its own field of the Ref.
func TestRef_IDs(t *testing.T) {
	var r Ref
	for i, id := range r.IDs() {
		*r.ID(id.Name) = int64(i + 1)
	}
	assert.Equal(t, Ref{Job: 1, Candidate: 2, Webhook: 3, Message: 4, Interview: 5, Document: 6, Proposal: 7, Tag: 8}, r)
	assert.Nil(t, r.ID("nothing"))
}

// TestOp_OneName: each operation's Service method is its name in
// CamelCase, as its MCP tool and its operationId are its name.
func TestOp_OneName(t *testing.T) {
	svc := reflect.TypeFor[*Service]()
	for _, op := range Ops() {
		var name strings.Builder
		for part := range strings.SplitSeq(string(op), "_") {
			name.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
		_, ok := svc.MethodByName(name.String())
		assert.True(t, ok, "%s has no method Service.%s", op, name.String())
	}
}

// TestOp_Declared: every Op a file of the package declares is in the
// table, so that a resource whose rows opTable leaves out cannot go
// unnoticed (its operations would need no scope).
func TestOp_Declared(t *testing.T) {
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if !assert.NoError(t, err) {
		return
	}
	var declared []Op
	for _, f := range pkgs["pipeline"].Files {
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			if typ, ok := spec.Type.(*ast.Ident); !ok || typ.Name != "Op" {
				return true
			}
			for i, v := range spec.Values {
				// EveryWrite stands for every write in a policy; it is no operation.
				if lit, ok := v.(*ast.BasicLit); ok && spec.Names[i].Name != "EveryWrite" {
					name, err := strconv.Unquote(lit.Value)
					assert.NoError(t, err)
					declared = append(declared, Op(name))
				}
			}
			return true
		})
	}
	assert.Len(t, declared, len(Ops()), "each declared operation once")
	assert.ElementsMatch(t, Ops(), declared)
}
