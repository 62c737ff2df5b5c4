package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	netmail "net/mail"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// runDemo serves a demo world on a fresh SQLite database in a temporary
// directory, removed on exit, after printing a token and curl lines.
func runDemo(ctx context.Context, e env, args []string) (err error) {
	fs := newFlagSet(e)
	fs.StringVar(&e.cfg.Addr, "addr", e.cfg.Addr, "listen address (PIPELINE_ADDR)")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(e, fs, "demo takes no arguments")
	}
	dir, err := os.MkdirTemp("", "pipelined-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	e.cfg.DB = filepath.Join(dir, "demo.db")
	e.cfg.AutoMigrate = true // a fresh database of its own
	if e.cfg.SecretKey == nil {
		// The demo's database goes with it: a key of its own keeps serve
		// from warning about one kept in the database.
		raw := make([]byte, pipeline.SecretKeyLength)
		_, _ = rand.Read(raw)
		if e.cfg.SecretKey, err = pipeline.NewSecretKey(raw); err != nil {
			return err
		}
	}

	if e.cfg.SMTPURL == "" {
		// The demo's messages are written to its log, never sent.
		e.cfg.SMTPURL, e.cfg.MailFrom = logMail, &netmail.Address{Name: "Acme Hiring", Address: "jobs@acme.example"}
	}

	return serveStore(ctx, e, func(cfg *config, db *pipelinestore.DB, addr net.Addr) error {
		base := "http://" + dialAddr(addr)
		if cfg.BaseURL == "" {
			// Sign-in links, mailed to the log or printed, open the
			// demo itself.
			cfg.BaseURL = base
		}
		res, err := pipeline.NewOperator(db).Seed(ctx, demoWorld(time.Now().UTC()))
		if err != nil {
			return fmt.Errorf("seed the demo world: %w", err)
		}
		link, err := pipeline.NewOperator(db).SignInLink(ctx, demoOwner)
		if err != nil {
			return fmt.Errorf("sign-in link of the demo: %w", err)
		}
		printDemo(e.stdout, base, cfg, res, pipeline.SignInURL(cfg.BaseURL, link))
		return nil
	})
}

// Keys of the demo world that the printed curl lines use.
const (
	demoJob       = "backend"
	demoCandidate = "backend-1" // the newest applicant, in Applied; the last curl line moves it
	demoToken     = "demo"
	demoOwner     = "olivia@acme.test" // signed in by the printed link
	demoAdmin     = "adam@acme.test"   // the printed sign-in-link command's
)

// demoWorld builds the demo: one team with an owner, an admin and a member,
// three jobs on the default pipeline (one with more than a page of
// candidates) and a token of the owner with every scope.
func demoWorld(now time.Time) *pipeline.SeedWorld {
	days := func(n int) *time.Time { t := now.AddDate(0, 0, -n).Truncate(time.Hour); return &t }
	applied := func(n int) string { return now.AddDate(0, 0, -n).Format(time.DateOnly) }
	limit := 25
	w := &pipeline.SeedWorld{
		Teams: []pipeline.SeedTeam{{Key: "acme", Name: "Acme", JobLimit: &limit}},
		Users: []pipeline.SeedUser{
			{Key: "olivia", Name: "Olivia Owner", Email: "olivia@acme.test", CurrentTeam: "acme",
				Memberships: []pipeline.SeedMembership{{Team: "acme", Role: pipeline.RoleOwner}}},
			{Key: "adam", Name: "Adam Admin", Email: "adam@acme.test", CurrentTeam: "acme",
				Memberships: []pipeline.SeedMembership{{Team: "acme", Role: pipeline.RoleAdmin}}},
			{Key: "mia", Name: "Mia Member", Email: "mia@acme.test", CurrentTeam: "acme",
				Memberships: []pipeline.SeedMembership{{Team: "acme", Role: pipeline.RoleMember}}},
		},
		Tokens: []pipeline.SeedToken{{Key: demoToken, User: "olivia", Name: "demo", Scopes: pipeline.AllScopes}},
	}
	jobs := []struct {
		key, title, description string
		status                  pipeline.JobStatus
		age                     int
		names                   []string
	}{
		{demoJob, "Backend Engineer", "<p>Go, PostgreSQL and a taste for small interfaces.</p>", pipeline.JobOpen, 40, demoNames[:23]},
		{"designer", "Product Designer", "<p>Design the tools recruiters use every day.</p>", pipeline.JobOpen, 25, demoNames[23:29]},
		{"analyst", "Data Analyst", "", pipeline.JobDraft, 3, demoNames[29:31]},
	}
	for _, j := range jobs {
		sj := pipeline.SeedJob{
			Key: j.key, Team: "acme", Owner: "olivia", Assignees: []string{"mia"},
			Title: j.title, Status: j.status, Description: j.description, CreatedAt: days(j.age),
		}
		for i, name := range j.names {
			sj.Candidates = append(sj.Candidates, pipeline.SeedCandidate{
				Key:     j.key + "-" + strconv.Itoa(i+1),
				Name:    name,
				Email:   emailOf(name),
				Applied: applied(1 + i*j.age/(len(j.names)+1)),
				// The newest applicants are still in Applied; earlier ones
				// have moved along the pipeline.
				Stage: pipeline.DefaultStages[min(max(i-10, 0)/3, 3)],
			})
		}
		w.Jobs = append(w.Jobs, sj)
	}
	return w
}

// demoNames are the demo's applicants.
var demoNames = []string{
	"Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov",
	"Donald Knuth", "Margaret Hamilton", "Ken Thompson", "Frances Allen", "Dennis Ritchie",
	"Radia Perlman", "John McCarthy", "Katherine Johnson", "Tony Hoare", "Adele Goldberg",
	"Niklaus Wirth", "Sophie Wilson", "Leslie Lamport", "Shafi Goldwasser", "Robin Milner",
	"Hedy Lamarr", "Rob Pike", "Jean Sammet", "Alan Kay", "Karen Spärck Jones",
	"Butler Lampson", "Mary Kenneth Keller", "Whitfield Diffie", "Evelyn Berezin", "Claude Shannon",
	"Annie Easley",
}

// emailOf makes an address from a name: "Ada Lovelace" → ada.lovelace@example.test.
func emailOf(name string) string {
	out := make([]rune, 0, len(name))
	for _, r := range name {
		switch {
		case r == ' ':
			out = append(out, '.')
		case r >= 'A' && r <= 'Z':
			out = append(out, r+'a'-'A')
		case r >= 'a' && r <= 'z':
			out = append(out, r)
		case r == 'ä':
			out = append(out, 'a')
		}
	}
	return string(out) + "@example.test"
}

// dialAddr is an address a client on this machine can reach the listener
// at: an unspecified host (":8080", "0.0.0.0:8080") becomes loopback.
func dialAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	host := "127.0.0.1"
	if tcp.IP.To4() == nil {
		host = "::1"
	}
	return net.JoinHostPort(host, strconv.Itoa(tcp.Port))
}

// printDemo writes the token and curl lines of the demo. Every line is
// either a comment or a command, so the whole text may be pasted into a
// shell.
func printDemo(w io.Writer, base string, cfg *config, res pipeline.SeedResult, signIn string) {
	token := res.Tokens[demoToken]
	job := res.Jobs[demoJob]
	auth := `-H "Authorization: Bearer $PIPELINE_TOKEN"`
	fmt.Fprintf(w, `# pipelined demo: team Acme on a fresh SQLite database, removed on exit.
# Token of Olivia Owner (olivia@acme.test) with every scope, shown once:
#   %s
# Paste into a shell:
export PIPELINE_TOKEN=%s
curl -s %s/api/v1/me %s
curl -s %s/api/v1/jobs %s
curl -s %s/api/v1/jobs/%d/stages %s
curl -s '%s/api/v1/jobs/%d/candidates?page=2' %s
curl -s %s/api/v1/jobs/%d/candidates/%d/stage %s -H 'Content-Type: application/json' -d '{"stage": %d}'
# The same operations as MCP tools for agents (the README shows a whole session):
curl -s %s/mcp %s -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
# The activity log of this demo, from another shell while it runs:
#   PIPELINE_DB=%s go run ./cmd/pipelined activity
# Sign in to the pages as Olivia Owner (once, within 15 minutes):
#   %s
# Or ask for one on %s/app/sign-in: the demo writes its mail to this
# terminal (unless PIPELINE_SMTP_URL says otherwise). Or, from another
# shell while the demo runs:
#   PIPELINE_DB=%s PIPELINE_BASE_URL=%s go run ./cmd/pipelined sign-in-link --email %s
`,
		token, token,
		base, auth,
		base, auth,
		base, job, auth,
		base, job, auth,
		base, job, res.Candidates[demoCandidate], auth, res.Stages[demoJob]["Screening"],
		base, auth,
		cfg.DB, signIn,
		cfg.BaseURL, cfg.DB, cfg.BaseURL, demoAdmin)
}
