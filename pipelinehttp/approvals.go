package pipelinehttp

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// The approvals page (web.md): the pending proposals the signed-in person
// may decide, each in words, and a second tab of those decided, expired
// or withdrawn. Deciding is the Service's ApproveProposal or
// RejectProposal as the person, with no token.

// approvalItem is a proposal as the approvals page shows it.
type approvalItem struct {
	P       pipeline.Proposal
	D       description
	Asker   string // the requesting token's name
	Outcome string // what became of a decided one
	Failed  bool
}

func (p *pages) approvalItem(d *describer, pr pipeline.Proposal) approvalItem {
	it := approvalItem{P: pr, D: d.describe(pr), Asker: "a token"}
	if pr.RequestedBy.Token != nil && pr.RequestedBy.Token.Name != "" {
		it.Asker = "the token “" + pr.RequestedBy.Token.Name + "”"
	}
	it.Outcome, it.Failed = outcome(pr)
	return it
}

// outcome says what became of a proposal, and whether its run failed.
func outcome(pr pipeline.Proposal) (string, bool) {
	switch pr.Status {
	case pipeline.ProposalApplied:
		s := "Applied."
		if pr.Result != nil {
			s = "Applied: the write answered HTTP " + strconv.Itoa(pr.Result.Status) + "."
		}
		return s, false
	case pipeline.ProposalFailed:
		msg := "the write was refused"
		if pr.Result != nil {
			var env struct {
				Error struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(pr.Result.Body, &env) == nil && env.Error.Message != "" {
				msg = "HTTP " + strconv.Itoa(pr.Result.Status) + ", " + env.Error.Message
			}
		}
		return "Approved, but not done: " + msg + " Nothing changed.", true
	case pipeline.ProposalRejected:
		return "Rejected: nothing of it was done.", false
	case pipeline.ProposalExpired:
		return "Expired: nobody decided it within seven days; nothing was done.", false
	case pipeline.ProposalWithdrawn:
		return "Withdrawn: the token that asked was revoked or expired, or an erasure closed it; nothing was done.", false
	}
	return "Waiting for a decision.", false
}

func (p *pages) approvals(c *gin.Context) {
	s := sessionOf(c)
	ctx := c.Request.Context()
	v := view{Title: "Approvals", CSRF: csrfOf(s.value), Me: s.me, Tab: "pending"}
	if c.Query("tab") == "decided" {
		v.Tab, v.Title = "decided", "Decided approvals"
	}
	page, _ := strconv.Atoi(c.Query("page"))
	page = max(page, 1)
	f := pipeline.ProposalFilter{Status: pipeline.ProposalPending, Page: page}
	if v.Tab == "decided" {
		f.Status = ""
	}
	l, err := p.svc.ListProposals(ctx, f)
	if err != nil {
		p.fail(c, err)
		return
	}
	d := newDescriber(ctx, p.svc)
	var shown []pipeline.Proposal
	for _, pr := range l.Items {
		if (pr.Status == pipeline.ProposalPending) == (v.Tab == "pending") {
			shown = append(shown, pr)
		}
	}
	if v.Tab == "pending" {
		d.loadChanges(shown)
	}
	for _, pr := range shown {
		v.Proposals = append(v.Proposals, p.approvalItem(d, pr))
	}
	if page < l.LastPage() {
		v.More = "/app/approvals?tab=" + v.Tab + "&page=" + strconv.Itoa(page+1)
	}
	if id, err := strconv.ParseInt(c.Query("done"), 10, 64); err == nil {
		if pr, err := p.svc.GetProposal(ctx, id); err == nil {
			it := p.approvalItem(d, pr)
			v.Done = &it
		}
	}
	p.render(c, http.StatusOK, "approvals", v)
}

// decide approves or rejects a proposal with the form's note, then shows
// what became of it; an error that stopped the decision is its page.
func (p *pages) decide(c *gin.Context) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		p.fail(c, pipeline.ErrNotFound)
		return
	}
	in := pipeline.ProposalDecision{}
	if note := c.PostForm("note"); strings.TrimSpace(note) != "" {
		in.Note = &note
	}
	ctx := c.Request.Context()
	switch c.PostForm("decision") {
	case "approve":
		_, err = p.svc.ApproveProposal(ctx, id, in)
	case "reject":
		_, err = p.svc.RejectProposal(ctx, id, in)
	default:
		err = pipeline.Invalid("decision", "Choose Approve or Reject.")
	}
	if err != nil {
		p.fail(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, p.prefix+"/app/approvals?done="+strconv.FormatInt(id, 10))
}
