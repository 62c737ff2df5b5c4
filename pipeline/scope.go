package pipeline

import "slices"

// Scope is a permission carried by a token.
type Scope string

// The scopes, in the order of the API document's scope table.
const (
	ScopeJobsRead        Scope = "jobs:read"
	ScopeJobsWrite       Scope = "jobs:write"
	ScopeCandidatesRead  Scope = "candidates:read"
	ScopeCandidatesWrite Scope = "candidates:write"
	ScopeMessagesSend    Scope = "messages:send"
	ScopeSchedulingWrite Scope = "scheduling:write"
	ScopeActivityRead    Scope = "activity:read"
	ScopeWebhooksWrite   Scope = "webhooks:write"
	// ScopeProposalsReview is to decide agents' proposals. For now it only
	// excludes an approval policy on the same token.
	ScopeProposalsReview Scope = "proposals:review"
	// ScopePrivacyManage is to export and erase a person's data.
	ScopePrivacyManage Scope = "privacy:manage"
)

// AllScopes lists every scope in the order of the scope table.
var AllScopes = []Scope{
	ScopeJobsRead, ScopeJobsWrite, ScopeCandidatesRead,
	ScopeCandidatesWrite, ScopeMessagesSend, ScopeSchedulingWrite,
	ScopeActivityRead, ScopeWebhooksWrite, ScopeProposalsReview, ScopePrivacyManage,
}

// Valid reports whether s is a known scope.
func (s Scope) Valid() bool { return slices.Contains(AllScopes, s) }

// NormalizeScopes returns scopes without duplicates, in table order, or a
// validation error naming field when one is unknown. No scope at all is
// allowed: such a token reaches GET /me and nothing else.
func NormalizeScopes(field string, scopes []Scope) ([]Scope, error) {
	for _, s := range scopes {
		if !s.Valid() {
			return nil, Invalid(field, "Unknown scope "+string(s)+".")
		}
	}
	out := make([]Scope, 0, len(scopes))
	for _, s := range AllScopes {
		if slices.Contains(scopes, s) {
			out = append(out, s)
		}
	}
	return out, nil
}
