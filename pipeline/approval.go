package pipeline

import (
	"slices"
	"strings"
)

// EveryWrite in an approval policy holds every write the token's scopes
// allow.
const EveryWrite Op = "*"

// ApprovalField names a token's approval policy in validation details.
const ApprovalField = "approval"

// NormalizeApproval checks a token's approval policy, the write operations
// the token may only propose (see Caller.Held), and returns it sorted and
// each name once; empty, not nil, when there is none. A name that is not
// an operation, names a read, or names a write whose scope is not among
// scopes, is refused under field. A token under a
// policy may not also decide proposals: a policy with proposals:review
// among scopes is refused under scopesField.
func NormalizeApproval(field, scopesField string, names []Op, scopes []Scope) ([]Op, error) {
	bad := FieldErrors{}
	out := []Op{}
	for _, op := range names {
		switch {
		case op == EveryWrite:
		case opTraitsOf[op] == (opTraits{}):
			bad.Add(field, "Unknown operation "+string(op)+".")
			continue
		case !op.Writes():
			bad.Add(field, "The operation "+string(op)+" is a read; only writes can wait for approval.")
			continue
		case !op.Proposable():
			bad.Add(field, "The operation "+string(op)+" never waits for approval.")
			continue
		case !slices.Contains(scopes, op.Scope()):
			// Holding what the token cannot make would promise an
			// oversight that no call can ever need.
			bad.Add(field, "The operation "+string(op)+" needs the scope "+string(op.Scope())+", which the token does not carry.")
			continue
		}
		if !slices.Contains(out, op) {
			out = append(out, op)
		}
	}
	if len(out) > 0 && slices.Contains(scopes, ScopeProposalsReview) {
		bad.Add(scopesField, "A token under an approval policy cannot carry "+string(ScopeProposalsReview)+".")
	}
	if err := bad.Err(); err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// SplitApproval reads a policy written as comma-separated names
// ("update_candidate,move_candidate"), as an operator types it; white
// space around a name is dropped, and "" is no policy.
func SplitApproval(s string) []Op {
	var out []Op
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, Op(part))
		}
	}
	return out
}

// Held reports whether the caller's token may only propose op rather than
// make it: its approval policy names op, or is EveryWrite and op is
// Proposable. A caller made without a token (Operator.ActAs) holds nothing.
func (c Caller) Held(op Op) bool {
	if !op.Proposable() {
		return false
	}
	return slices.Contains(c.approval, op) || slices.Contains(c.approval, EveryWrite)
}

// ApprovalRequired is the caller's token's approval policy, sorted, with
// EveryWrite as itself; empty when there is none.
func (c Caller) ApprovalRequired() []Op { return append([]Op{}, c.approval...) }
