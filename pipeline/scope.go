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
	// ScopeProposalsReview is to read and decide the team's proposals; a
	// token under an approval policy cannot carry it.
	ScopeProposalsReview Scope = "proposals:review"
	// ScopePrivacyManage is to export and erase a person's data.
	ScopePrivacyManage Scope = "privacy:manage"
	// ScopeTeamManage is to manage the team's own lists (its tags), for
	// owners and admins of the token's team.
	ScopeTeamManage Scope = "team:manage"
)

// AllScopes lists every scope in the order of the scope table.
var AllScopes = []Scope{
	ScopeJobsRead, ScopeJobsWrite, ScopeCandidatesRead,
	ScopeCandidatesWrite, ScopeMessagesSend, ScopeSchedulingWrite,
	ScopeActivityRead, ScopeWebhooksWrite, ScopeProposalsReview, ScopePrivacyManage,
	ScopeTeamManage,
}

// scopeWords say what each scope grants, beside the operations that need
// it (which the table of operations tells).
var scopeWords = map[Scope]string{
	ScopeJobsRead:        "list and read jobs and their stages",
	ScopeJobsWrite:       "create and update jobs",
	ScopeCandidatesRead:  "list and read candidates and what is about them: notes, messages, interviews, documents and their text",
	ScopeCandidatesWrite: "add candidates to jobs, change their name, email, résumé and status, move them between stages, add notes, set ratings, add and remove documents",
	ScopeMessagesSend:    "send emails to candidates, and cancel or retry them",
	ScopeSchedulingWrite: "schedule, reschedule and cancel interviews, and read the team's busy times",
	ScopeActivityRead:    "read the activity feed of what the token can reach",
	ScopeWebhooksWrite:   "create, list, read and delete the team's webhooks, and read their deliveries (owners and admins of the token's team only)",
	ScopeProposalsReview: "read the team's proposals and approve or reject them (with the proposed write's own scope too); a token under an approval policy cannot carry it",
	ScopePrivacyManage:   "export and erase a person's data (owners and admins of the token's team only)",
	ScopeTeamManage:      "create, rename and delete the team's tags (owners and admins of the token's team only)",
}

// Words say what s grants, in a person's words.
func (s Scope) Words() string { return scopeWords[s] }

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
