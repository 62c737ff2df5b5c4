package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// checker sends the same requests to both servers and compares what they
// answer, before any load: the benchmark only means something if the
// baseline does the same work.
type checker struct {
	ctx        context.Context
	ours, base *endpoint
	db         *pgx.Conn
	w          *world
	keys       *keySource
	compared   int
}

// checkTimeout bounds one request of the correctness check, which
// compares answers, not their speed: on a busy machine, a search over the
// scale part's million candidates may take longer than the load allows.
const checkTimeout = time.Minute

// probe is a request and the status both servers must answer it with.
type probe struct {
	name   string
	req    request
	status int
}

// both sends r to ours, then to the baseline, and requires status on each
// and the headers every /api/ response carries.
func (k *checker) both(name string, r request, status int) (response, response, error) {
	ours, err := k.ours.do(k.ctx, r)
	if err != nil {
		return ours, response{}, fmt.Errorf("check %s: ours: %w", name, err)
	}
	base, err := k.base.do(k.ctx, r)
	if err != nil {
		return ours, base, fmt.Errorf("check %s: baseline: %w", name, err)
	}
	k.compared++
	if ours.status != status || base.status != status {
		return ours, base, mismatch(name, r, fmt.Sprintf("want status %d", status), ours, base)
	}
	for _, h := range []string{"X-Ratelimit-Limit", "Content-Type", "Www-Authenticate"} {
		if ours.header.Get(h) != base.header.Get(h) {
			return ours, base, mismatch(name, r, "header "+h+" differs", ours, base)
		}
	}
	for _, h := range []string{"X-Ratelimit-Remaining", "X-Ratelimit-Reset", "X-Request-Id"} {
		if ours.header.Get(h) == "" || base.header.Get(h) == "" {
			return ours, base, mismatch(name, r, "header "+h+" missing", ours, base)
		}
	}
	return ours, base, nil
}

// same requires byte-identical bodies beside the status.
func (k *checker) same(p probe) error {
	ours, base, err := k.both(p.name, p.req, p.status)
	if err == nil && !bytes.Equal(ours.body, base.body) {
		err = mismatch(p.name, p.req, "bodies differ", ours, base)
	}
	return err
}

func mismatch(name string, r request, what string, ours, base response) error {
	return fmt.Errorf("correctness check %q failed: %s\nrequest: %s %s %s\nours:     %d %s\nbaseline: %d %s",
		name, what, r.method, r.path, clip(r.body, 200), ours.status, clip(ours.body, 2000), base.status, clip(base.body, 2000))
}

// check runs every comparison; the first difference is the error.
func (k *checker) check(cases map[string][]*scenario) error {
	var probes []probe
	for _, name := range caseNames {
		for _, s := range cases[name] {
			if s.write {
				continue // writes change state: checkWrites compares them
			}
			for i := range uint64(min(2*len(k.w.Users), 128)) {
				probes = append(probes, probe{name: name + "/" + s.name, req: s.next(i), status: s.status})
			}
		}
	}
	probes = append(probes, k.readProbes()...)
	for _, p := range probes {
		if err := k.same(p); err != nil {
			return err
		}
	}
	if err := k.checkMoves(); err != nil {
		return err
	}
	if err := k.checkNotes(); err != nil {
		return err
	}
	if err := k.checkIntakes(); err != nil {
		return err
	}
	if err := k.checkMessages(); err != nil {
		return err
	}
	return k.checkSchedules()
}

// readProbes are the reads beside the scenarios: each error the scenarios'
// routes can answer, the parameters' corners, and the scope rule.
func (k *checker) readProbes() []probe {
	w := k.w
	owner, j0 := w.Users[0].Token, w.Jobs[0]
	get := func(token, path string) request { return request{method: http.MethodGet, path: path, token: token} }
	cands := candidatesPath(j0)
	otherStage := "999999999"
	if len(w.Jobs) > 1 {
		otherStage = strconv.FormatInt(w.Jobs[1].Stages[0], 10)
	}
	screening := strconv.FormatInt(j0.Stages[stageScreening-1], 10)
	ps := []probe{
		{"unknown job", get(owner, "/api/v1/jobs/999999999"), http.StatusNotFound},
		{"candidates of an unknown job", get(owner, "/api/v1/jobs/999999999/candidates"), http.StatusNotFound},
		{"job id not a number", get(owner, "/api/v1/jobs/abc"), http.StatusNotFound},
		{"stage not a number", get(owner, cands+"?stage=abc"), http.StatusUnprocessableEntity},
		{"page 0 and a bad stage", get(owner, cands+"?page=0&stage=x"), http.StatusUnprocessableEntity},
		{"bad page of an unknown job", get(owner, "/api/v1/jobs/999999999/candidates?page=x"), http.StatusNotFound},
		{"stage of another job", get(owner, cands+"?stage="+otherStage), http.StatusUnprocessableEntity},
		{"page past the last", get(owner, cands+"?page=100000"), http.StatusOK},
		{"search, stage and page", get(owner, cands+"?search=a&stage="+screening+"&page=2"), http.StatusOK},
		{"search with wildcards", get(owner, cands+"?search="+url.QueryEscape(`%_\`)), http.StatusOK},
		{"search in capitals beyond ASCII", get(owner, cands+"?search="+url.QueryEscape("ØDEGAARD")), http.StatusOK},
		{"empty search", get(owner, cands+"?search="), http.StatusOK},
		{"read-only token: me", get(w.Reader, "/api/v1/me"), http.StatusOK},
		{"read-only token: job", get(w.Reader, jobPath(j0)), http.StatusOK},
		{"read-only token: candidates", get(w.Reader, cands), http.StatusForbidden},
		{"no token", get("", "/api/v1/me"), http.StatusUnauthorized},
		{"malformed token", get("plt_nope", "/api/v1/me"), http.StatusUnauthorized},
		{"unknown token", get(pipeline.NewTokenValue(), jobPath(j0)), http.StatusUnauthorized},
	}
	for _, u := range w.Users {
		for j, job := range w.Jobs {
			if !u.owner() && !u.reaches(j) {
				return append(ps,
					probe{"job out of the member's reach", get(u.Token, jobPath(job)), http.StatusNotFound},
					probe{"candidates out of the member's reach", get(u.Token, candidatesPath(job)), http.StatusNotFound},
					probe{"bad stage out of the member's reach", get(u.Token, candidatesPath(job)+"?stage=0"), http.StatusNotFound})
			}
		}
	}
	return ps
}
