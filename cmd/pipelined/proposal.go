package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
)

const proposalListDoc = `
A team's proposals, newest first, as a table: id, status, operation, job,
who requested it (user / token), its reason, when it was made and when it
expires. --status keeps those of one status: pending, applied, failed,
rejected, expired or withdrawn.

Every proposal of the team is listed, whoever may read it through the API.
A pending proposal past its seven days reads as expired. Reasons and names
are shown on one line, control characters as spaces, a reason cut at 40
characters; --json prints JSON lines instead, each proposal whole as
GET /api/v1/proposals/{id} shows it.`

const proposalApproveDoc = `
Approve a proposal as the user --as names, with no token: its write runs
now, as the token that asked for it, with the stored request; prints the
proposal as JSON, applied or failed with the write's answer in "result".

The user decides in the proposal's team, whatever their current team, and
must reach its job now (for one on no job: be an owner or admin of the
team); else, as for a user who is no member of that team, the proposal is
not found. A person may approve their own agent's proposals. The write goes
through its whole check order again: a token revoked or a scope lost since,
a candidate moved meanwhile, each answers as the write would. A refused
write leaves the proposal failed and nothing changed, and the command still
exits 0: the decision was made. The write's activity entry names the
requester's user and token, carries the proposal's reason, and approved_by
{user, token_id: null}. A proposal that is no longer pending (decided,
expired, withdrawn) is a conflict. --note is at most 1,000 characters.

Run it with the server's configuration (PIPELINE_SMTP_URL and
PIPELINE_MAIL_FROM, PIPELINE_SECRET_KEY, the PIPELINE_WEBHOOK_* settings):
the approved write is made as the server would make it, so that without
mail configured here an approved message fails as on a server without mail.`

const proposalRejectDoc = `
Reject a proposal as the user --as names, with no token: its write is never
made; prints the proposal as JSON.

The user is found as for "pipelined proposal approve", and a proposal that
is no longer pending is a conflict.`

func runProposalList(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	withDB(&e, fs)
	team := fs.String("team", "", "id or key of the team")
	status := fs.String("status", "", "only the proposals of this status")
	asJSON := fs.Bool("json", false, "print JSON lines instead of a table")
	if err := parseFlagsOnly(e, fs, args, "team"); err != nil {
		return err
	}
	return withOperator(ctx, e.cfg, reads, func(op *pipeline.Operator) error {
		t, err := op.TeamByRef(ctx, *team)
		if err != nil {
			return err
		}
		ps, err := op.TeamProposals(ctx, t.ID, *status)
		if err != nil {
			return lineValues(e, err)
		}
		if *asJSON {
			return printJSONLines(e.stdout, ps, pipelinehttp.ProposalBody)
		}
		return printProposals(e.stdout, ps)
	})
}

// reasonWidth is where the table cuts a reason.
const reasonWidth = 40

// printProposals prints proposals as a table.
func printProposals(w io.Writer, ps []pipeline.Proposal) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tOPERATION\tJOB\tREQUESTED BY\tREASON\tCREATED\tEXPIRES")
	for _, p := range ps {
		job, by, reason := "-", cell(p.RequestedBy.User.Name, 0), "-"
		if p.JobID != 0 {
			job = strconv.FormatInt(p.JobID, 10)
		}
		if p.RequestedBy.Token != nil {
			by += " / " + cell(p.RequestedBy.Token.Name, 0)
		}
		if p.Reason != nil {
			reason = cell(*p.Reason, reasonWidth)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.ID, p.Status, p.Operation, job, by, reason,
			timestamp(p.CreatedAt).Format(time.RFC3339), timestamp(p.ExpiresAt).Format(time.RFC3339))
	}
	return tw.Flush()
}

// cell is text for one cell of a table: on one line, without control
// characters (a reason is an agent's text, and may carry a terminal's
// escapes), its runs of spaces made one, at most width characters (0: any)
// with "..." marking a cut.
func cell(text string, width int) string {
	text = strings.Join(strings.FieldsFunc(text, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if r := []rune(text); width > 0 && len(r) > width {
		return string(r[:width-3]) + "..."
	}
	return text
}

// runProposalDecide is proposal approve (approve true) or reject.
func runProposalDecide(approve bool) func(context.Context, env, []string) error {
	return func(ctx context.Context, e env, args []string) (err error) {
		fs := newFlagSet(e)
		withDB(&e, fs)
		as := fs.String("as", "", "email of the user who decides, with no token")
		note := fs.String("note", "", "a note on the decision, at most 1,000 characters")
		if err := parseFlags(e, fs, args); err != nil {
			return err
		}
		if err := requireFlags(e, fs, "as"); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return usageErrorf(e, fs, "%s takes exactly one proposal ID", e.cmd.name)
		}
		id, ok := parseID(fs.Arg(0))
		if !ok {
			return usageErrorf(e, fs, "%q is not a proposal id", fs.Arg(0))
		}
		var d pipeline.ProposalDecision
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "note" {
				d.Note = note
			}
		})

		// An approved write may queue mail or make a webhook: it needs
		// the configuration serve has.
		cfg, err := e.cfg.withMailer(slog.New(slog.NewJSONHandler(e.stderr, nil)))
		if err != nil {
			return err
		}
		db, _, err := openStore(ctx, cfg, writes)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, db.Close()) }()
		if cfg.SecretKey, _, err = pipeline.ServerSecretKey(ctx, cfg.SecretKey, db); err != nil {
			return err
		}
		caller, err := pipeline.NewOperator(db).ActOnProposal(ctx, *as, id)
		if err != nil {
			return err
		}
		svc := pipeline.NewService(db, cfg.domainOptions()...)
		decide := svc.RejectProposal
		if approve {
			decide = svc.ApproveProposal
		}
		res, err := decide(pipeline.NewContext(ctx, caller), id, d)
		if err != nil {
			return lineValues(e, err)
		}
		return json.NewEncoder(e.stdout).Encode(pipelinehttp.ProposalBody(res.Value))
	}
}
