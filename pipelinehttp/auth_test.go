package pipelinehttp

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// unauthenticatedBody is the one 401 body.
const unauthenticatedBody = `{"error":{"code":"unauthenticated","message":"Unauthenticated.","details":null}}`

func TestAPI_Unauthenticated(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		valid := e.token("olivia")
		cases := []struct {
			name string
			hdr  []string
			path string
		}{
			{"missing", nil, "/api/v1/me"},
			{"revoked", []string{"Authorization", "Bearer " + e.token("olivia_revoked")}, "/api/v1/me"},
			{"expired", []string{"Authorization", "Bearer " + e.token("olivia_expired")}, "/api/v1/me"},
			{"malformed", []string{"Authorization", "Bearer not-a-token"}, "/api/v1/me"},
			{"bad checksum", []string{"Authorization", "Bearer " + valid[:len(valid)-1] + flip(valid[len(valid)-1])}, "/api/v1/me"},
			{"well formed but unknown", []string{"Authorization", "Bearer " + pipeline.NewTokenValue()}, "/api/v1/me"},
			{"wrong scheme", []string{"Authorization", "Basic " + valid}, "/api/v1/me"},
			{"no scheme", []string{"Authorization", valid}, "/api/v1/me"},
			{"empty bearer", []string{"Authorization", "Bearer "}, "/api/v1/me"},
			{"token in the query string", nil, "/api/v1/me?access_token=" + valid + "&token=" + valid},
			{"token in a cookie", []string{"Cookie", "token=" + valid}, "/api/v1/me"},
			{"on a write", nil, "/api/v1/jobs"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				method := "GET"
				if tc.name == "on a write" {
					method = "POST"
				}
				r := e.do(t, method, tc.path, "", nil, tc.hdr...)
				require.Equal(t, http.StatusUnauthorized, r.Code)
				assert.Equal(t, unauthenticatedBody, string(r.Body))
				assert.Equal(t, "Bearer", r.Header.Get("WWW-Authenticate"))
			})
		}
		t.Run("scheme is case-insensitive", func(t *testing.T) {
			for _, scheme := range []string{"bearer", "BEARER", "BeArEr"} {
				r := e.do(t, "GET", "/api/v1/me", "", nil, "Authorization", scheme+" "+valid)
				assert.Equal(t, http.StatusOK, r.Code, scheme)
			}
		})
		assert.Empty(t, e.Activity(t))
	})
}

// endpoint is one operation of the API with a request that would succeed
// for olivia.
type endpoint struct {
	method, path string
	scope        pipeline.Scope
	body         any
}

func endpoints(e *env) []endpoint {
	backend, ada := e.Res.Jobs["backend"], e.Res.Candidates["ada"]
	cand := candidatePath(backend, ada)
	return []endpoint{
		{"GET", "/api/v1/jobs", pipeline.ScopeJobsRead, nil},
		{"GET", jobPath(backend), pipeline.ScopeJobsRead, nil},
		{"GET", jobPath(backend) + "/stages", pipeline.ScopeJobsRead, nil},
		{"POST", "/api/v1/jobs", pipeline.ScopeJobsWrite, map[string]any{"title": "New"}},
		{"PATCH", jobPath(backend), pipeline.ScopeJobsWrite, map[string]any{"status": "closed"}},
		{"GET", jobPath(backend) + "/candidates", pipeline.ScopeCandidatesRead, nil},
		{"GET", cand, pipeline.ScopeCandidatesRead, nil},
		{"POST", cand + "/stage", pipeline.ScopeCandidatesWrite, map[string]any{"stage": e.Res.Stages["backend"]["Offer"]}},
		{"POST", cand + "/notes", pipeline.ScopeCandidatesWrite, map[string]any{"content": "note"}},
		{"POST", cand + "/rating", pipeline.ScopeCandidatesWrite, map[string]any{"rating": "maybe"}},
	}
}

// scopeTokens are olivia's tokens of one scope each.
var scopeTokens = map[string]pipeline.Scope{
	"olivia_jobs_read":       pipeline.ScopeJobsRead,
	"olivia_candidates_read": pipeline.ScopeCandidatesRead,
	"olivia_messages":        pipeline.ScopeMessagesSend,
}

// unparsed is ep's path with the backend job's id made something that is
// not an id, for a request whose lookup and body would both fail.
func unparsed(e *env, ep endpoint) string {
	return strings.Replace(ep.path, "/jobs/"+itoa(e.Res.Jobs["backend"]), "/jobs/abc", 1)
}

// TestAPI_InsufficientScope: the refused requests only read, so they share
// one world; that they touched nothing is checked on a world of its own,
// after all of them.
func TestAPI_InsufficientScope(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		for _, ep := range endpoints(e) {
			for token, has := range scopeTokens {
				if has == ep.scope {
					continue
				}
				t.Run(ep.method+" "+ep.path+" "+token, func(t *testing.T) {
					r := e.do(t, ep.method, ep.path, e.token(token), ep.body)
					requireError(t, r, http.StatusForbidden, pipeline.EInsufficientScope)
					assert.Equal(t, map[string]any{"required_scope": string(ep.scope)}, r.Details(t))
				})
			}
			t.Run(ep.method+" "+ep.path+" checked before lookup and body", func(t *testing.T) {
				r := e.do(t, ep.method, unparsed(e, ep), e.token("olivia_messages"), `{"x":`)
				requireError(t, r, http.StatusForbidden, pipeline.EInsufficientScope)
			})
		}
		t.Run("the scope suffices", func(t *testing.T) {
			for _, ep := range endpoints(e) {
				if ep.method != "GET" {
					continue
				}
				token := map[pipeline.Scope]string{pipeline.ScopeJobsRead: "olivia_jobs_read", pipeline.ScopeCandidatesRead: "olivia_candidates_read"}[ep.scope]
				r := e.do(t, ep.method, ep.path, e.token(token), nil)
				assert.Equal(t, http.StatusOK, r.Code, "%s %s", ep.method, ep.path)
			}
		})
	})
	each(t, "no data touched", func(t *testing.T, e *env) {
		for _, ep := range endpoints(e) {
			for token, has := range scopeTokens {
				if has != ep.scope {
					requireError(t, e.do(t, ep.method, ep.path, e.token(token), ep.body), http.StatusForbidden, pipeline.EInsufficientScope)
				}
			}
			r := e.do(t, ep.method, unparsed(e, ep), e.token("olivia_messages"), `{"x":`)
			requireError(t, r, http.StatusForbidden, pipeline.EInsufficientScope)
		}
		assert.Empty(t, e.Activity(t))
		r := e.do(t, "GET", "/api/v1/jobs?status=open", e.token("olivia"), nil)
		assert.Equal(t, 2.0, r.Object(t)["meta"].(map[string]any)["total"])
		r = e.do(t, "GET", jobPath(e.Res.Jobs["backend"]), e.token("olivia"), nil)
		assert.Equal(t, "open", r.Data(t)["status"])
	})
}

// TestAPI_Visibility runs every endpoint as each user against jobs they can
// and cannot reach.
func TestAPI_Visibility(t *testing.T) {
	type target struct{ job, candidate, stage string }
	targets := map[string]target{
		"backend":  {"backend", "ada", "Offer"},
		"frontend": {"frontend", "ken", "Screening"},
		"design":   {"design", "don", "Screening"},
		"ops":      {"ops", "ola", "Screening"},
	}
	reach := map[string][]string{
		"olivia": {"backend", "frontend", "design"}, // owner of acme
		"adam":   {"backend", "frontend", "design"}, // admin of acme
		"mia":    {"backend"},                       // member, assigned
		"nina":   {"frontend"},                      // member, owner
		"gary":   {"ops"},                           // another team
	}
	for user, reachable := range reach {
		for name, tg := range targets {
			ok := contains(reachable, name)
			each(t, user+" on "+name, func(t *testing.T, e *env) {
				job, cand := e.Res.Jobs[tg.job], e.Res.Candidates[tg.candidate]
				stage := e.Res.Stages[tg.job][tg.stage]
				reqs := []endpoint{
					{"GET", jobPath(job), "", nil},
					{"GET", jobPath(job) + "/stages", "", nil},
					{"GET", jobPath(job) + "/candidates", "", nil},
					{"GET", candidatePath(job, cand), "", nil},
					{"PATCH", jobPath(job), "", map[string]any{"title": "Renamed by " + user}},
					{"POST", candidatePath(job, cand) + "/stage", "", map[string]any{"stage": stage}},
					{"POST", candidatePath(job, cand) + "/notes", "", map[string]any{"content": "by " + user}},
					{"POST", candidatePath(job, cand) + "/rating", "", map[string]any{"rating": "maybe"}},
				}
				before := len(e.Activity(t))
				for _, rq := range reqs {
					r := e.do(t, rq.method, rq.path, e.token(user), rq.body)
					if ok {
						assert.Less(t, r.Code, 300, "%s %s: %s", rq.method, rq.path, r.Body)
					} else {
						requireError(t, r, http.StatusNotFound, pipeline.ENotFound)
					}
				}
				if !ok {
					assert.Len(t, e.Activity(t), before, "nothing written")
				}
			})
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// flip changes a token character into another valid one.
func flip(b byte) string {
	if b == 'A' {
		return "B"
	}
	return "A"
}
