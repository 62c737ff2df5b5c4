package pipelinehttp

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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
	// Candidate is the path of the page of the candidate it names, and
	// Job that of its job when it names no candidate; "": none.
	Candidate, Job string
}

func (p *pages) approvalItem(d *describer, pr pipeline.Proposal) approvalItem {
	it := approvalItem{P: pr, D: d.describe(pr), Asker: "a token"}
	if pr.RequestedBy.Token != nil && pr.RequestedBy.Token.Name != "" {
		it.Asker = "the token “" + pr.RequestedBy.Token.Name + "”"
	}
	it.Outcome, it.Failed = d.outcome(pr)
	if pr.JobID != 0 && pr.CandidateID != 0 {
		it.Candidate = "/app/jobs/" + strconv.FormatInt(pr.JobID, 10) + "/candidates/" + strconv.FormatInt(pr.CandidateID, 10)
	} else if pr.JobID != 0 {
		it.Job = "/app/jobs/" + strconv.FormatInt(pr.JobID, 10)
	}
	return it
}

// outcome says in words what became of a proposal, and whether its
// approved run failed: never an HTTP status.
func (d *describer) outcome(pr pipeline.Proposal) (string, bool) {
	switch pr.Status {
	case pipeline.ProposalApplied:
		s := "Done."
		if pr.Result != nil {
			s = "Done: " + doneText(pr.Operation, pr.Result.Body)
		}
		return s, false
	case pipeline.ProposalFailed:
		msg := "the write was refused."
		if pr.Result != nil {
			var env struct {
				Error struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(pr.Result.Body, &env) == nil && env.Error.Message != "" {
				msg = env.Error.Message
			}
			if env.Error.Code == pipeline.EUnauthenticated {
				msg = "the token that asked no longer works (revoked or expired), or its user left the team."
			}
		}
		return "Not done: " + lowerFirst(msg) + " Nothing changed.", true
	case pipeline.ProposalRejected:
		return "Rejected: nothing of it was done.", false
	case pipeline.ProposalExpired:
		return "Expired: nobody decided it within seven days; nothing was done.", false
	case pipeline.ProposalWithdrawn:
		return "Withdrawn: " + d.whyWithdrawn(pr) + "; nothing was done.", false
	}
	return "Waiting for a decision.", false
}

func lowerFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || len(s) > size && unicode.IsUpper(rune(s[size])) {
		return s // an acronym or a name: as it is
	}
	return string(unicode.ToLower(r)) + s[size:]
}

// doneText is what an applied run did, read from the record its write
// answered ({"data": record}; none for a deletion).
func doneText(op pipeline.Op, body json.RawMessage) string {
	var env struct {
		Data map[string]any `json:"data"`
	}
	_ = json.Unmarshal(body, &env)
	v := func(k string) string {
		if s, ok := env.Data[k].(string); ok {
			return s
		}
		return ""
	}
	switch op {
	case pipeline.OpMoveCandidate, pipeline.OpAddCandidate:
		if v("name") != "" {
			return v("name") + " is in " + v("stage") + "."
		}
	case pipeline.OpUpdateCandidate:
		if v("name") != "" {
			return v("name") + " <" + v("email") + "> is " + v("status") + ", in " + v("stage") + "."
		}
	case pipeline.OpAddNote:
		return "the note is added."
	case pipeline.OpRateCandidate:
		if v("rating") != "" {
			return "rated " + strings.ReplaceAll(v("rating"), "_", " ") + "."
		}
	case pipeline.OpCreateJob:
		if v("title") != "" {
			return "the job “" + v("title") + "” is created, as " + v("status") + "."
		}
	case pipeline.OpUpdateJob:
		if v("title") != "" {
			return "the job reads “" + v("title") + "”, " + v("status") + "."
		}
	case pipeline.OpSendMessage, pipeline.OpRetryMessage:
		if v("subject") != "" {
			return "the email “" + v("subject") + "” to " + v("to") + " is queued for " + timeText(v("send_at")) + "."
		}
	case pipeline.OpCancelMessage:
		if v("subject") != "" {
			return "the email “" + v("subject") + "” is " + v("status") + "."
		}
	case pipeline.OpScheduleInterview, pipeline.OpRescheduleInterview, pipeline.OpCancelInterview:
		if v("start") != "" {
			return "the interview " + requestWhen(v("start"), v("end"), v("timezone")) + " is " + v("status") + "."
		}
	case pipeline.OpCreateWebhook:
		if v("url") != "" {
			return "the team’s activity is sent to " + v("url") + "."
		}
	case pipeline.OpDeleteWebhook:
		return "the webhook is deleted."
	case pipeline.OpRemoveDocument:
		return "the document is removed."
	case pipeline.OpErasePerson:
		if ids, ok := env.Data["candidate_ids"].([]any); ok {
			if len(ids) == 1 {
				return "1 application is erased."
			}
			return strconv.Itoa(len(ids)) + " applications are erased."
		}
	}
	return "it is done as proposed."
}

// whyWithdrawn says why a proposal was withdrawn, from its
// proposal.withdrawn entry in the feed: the agent's own (a token acted),
// or the server's, for an erasure or its token's end.
func (d *describer) whyWithdrawn(pr pipeline.Proposal) string {
	e, ok := d.withdrawal(pr)
	if ok && e.TokenID != 0 {
		return "the agent withdrew it"
	}
	if d.erased(pr, e, ok) {
		return "an erasure of the person it names closed it"
	}
	if lists, err := d.svc.Tokens(d.ctx); err == nil && pr.RequestedBy.Token != nil {
		for _, t := range slices.Concat(lists.Mine, lists.Team) {
			if t.ID != pr.RequestedBy.Token.ID {
				continue
			}
			if t.RevokedAt != nil {
				return "the token that asked was revoked"
			}
			if !t.Active(d.svc.Now()) {
				return "the token that asked expired"
			}
			// Its token still works and no erasure closed it: its
			// agent withdrew it, whether or not the feed shows that yet.
			return "the agent withdrew it"
		}
	}
	if ok {
		return "the token that asked was revoked or expired"
	}
	// Its entry is not in the feed yet, or out of this person's sight.
	return "the agent withdrew it, its token was revoked or expired, or an erasure closed it"
}

// erased reports whether an erasure closed pr: the candidate it names
// is erased, or, on no candidate, its input is gone and the person's
// erasure was logged with its withdrawal.
func (d *describer) erased(pr pipeline.Proposal, e pipeline.FeedEntry, logged bool) bool {
	if pr.CandidateID != 0 {
		c, err := d.svc.GetCandidate(d.ctx, pr.JobID, pr.CandidateID)
		return err == nil && c.ErasedAt != nil
	}
	if !logged || string(pr.Input) != "{}" {
		return false
	}
	for _, at := range d.erasures {
		if at.Sub(e.CreatedAt).Abs() < time.Second {
			return true
		}
	}
	return false
}

// withdrawal is pr's proposal.withdrawn entry, from one read of the feed
// since the oldest proposal asked about.
func (d *describer) withdrawal(pr pipeline.Proposal) (pipeline.FeedEntry, bool) {
	if d.withdrawals == nil {
		d.withdrawals = map[int64]pipeline.FeedEntry{}
		since := pr.CreatedAt
		for _, o := range d.closed {
			if o.CreatedAt.Before(since) {
				since = o.CreatedAt
			}
		}
		f := pipeline.FeedFilter{Since: &since, Limit: 100, Actions: []string{pipeline.ActionProposalWithdrawn, pipeline.ActionPrivacyErased}}
		for range 50 { // bounded: 5,000 entries
			page, err := d.svc.ListActivity(d.ctx, f)
			if err != nil {
				break
			}
			for _, e := range page.Entries {
				if e.Action == pipeline.ActionPrivacyErased {
					d.erasures = append(d.erasures, e.CreatedAt)
				} else if e.SubjectType == pipeline.SubjectProposal {
					d.withdrawals[e.SubjectID] = e
				}
			}
			if !page.HasMore {
				break
			}
			f = pipeline.FeedFilter{After: page.Next, Limit: 100, Actions: f.Actions}
		}
	}
	e, ok := d.withdrawals[pr.ID]
	return e, ok
}

func (p *pages) approvals(c *gin.Context) {
	v, err := p.approvalsView(c, c.Query("tab"), c.Query("page"))
	if err != nil {
		p.fail(c, err)
		return
	}
	if id, err := strconv.ParseInt(c.Query("done"), 10, 64); err == nil {
		if pr, err := p.svc.GetProposal(c.Request.Context(), id); err == nil {
			it := p.approvalItem(newDescriber(c.Request.Context(), p.svc), pr)
			v.Done = &it
		}
	}
	p.render(c, http.StatusOK, "approvals", v)
}

// approvalsView is the approvals page: the tab of pending proposals, or
// of the others, at a page of the list.
func (p *pages) approvalsView(c *gin.Context, tab, pageNumber string) (view, error) {
	s := sessionOf(c)
	ctx := c.Request.Context()
	v := view{Title: "Approvals", CSRF: csrfOf(s.value), Me: s.me, Tab: "pending"}
	if tab == "decided" {
		v.Tab, v.Title = "decided", "Decided approvals"
	}
	page, _ := strconv.Atoi(pageNumber)
	page = max(page, 1)
	f := pipeline.ProposalFilter{Status: pipeline.ProposalPending, Page: page}
	if v.Tab == "decided" {
		f.Status = ""
	}
	l, err := p.svc.ListProposals(ctx, f)
	if err != nil {
		return v, err
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
	d.closed = shown
	for _, pr := range shown {
		v.Proposals = append(v.Proposals, p.approvalItem(d, pr))
	}
	if page < l.LastPage() {
		v.More = "/app/approvals?tab=" + v.Tab + "&page=" + strconv.Itoa(page+1)
	}
	return v, nil
}

// candidatePagePath is the path of a candidate's page, where a decision
// made there returns: no other (an open redirect).
var candidatePagePath = regexp.MustCompile(`^/app/jobs/[0-9]+/candidates/[0-9]+$`)

// createdSecret is the signing secret of the webhook an approved
// proposal created, which its approval's answer alone holds; "" for any
// other.
func createdSecret(pr pipeline.Proposal) string {
	if pr.Operation != pipeline.OpCreateWebhook || pr.Status != pipeline.ProposalApplied || pr.Result == nil {
		return ""
	}
	var env struct {
		Data struct {
			Secret string `json:"secret"`
		} `json:"data"`
	}
	_ = json.Unmarshal(pr.Result.Body, &env)
	return env.Data.Secret
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
		var res pipeline.Result[pipeline.Proposal]
		res, err = p.svc.ApproveProposal(ctx, id, in)
		if secret := createdSecret(res.Value); err == nil && secret != "" {
			// The new webhook's secret, in this answer only (no-store, no
			// URL), for the approver to hand on: no later read shows it.
			v, verr := p.approvalsView(c, "pending", "1")
			if verr != nil {
				p.fail(c, verr)
				return
			}
			it := p.approvalItem(newDescriber(ctx, p.svc), res.Value)
			v.Done, v.Secret = &it, secret
			p.render(c, http.StatusOK, "approvals", v)
			return
		}
	case "reject":
		_, err = p.svc.RejectProposal(ctx, id, in)
	default:
		err = pipeline.Invalid("decision", "Choose Approve or Reject.")
	}
	if err != nil {
		p.fail(c, err)
		return
	}
	next := "/app/approvals"
	if back := c.PostForm("back"); candidatePagePath.MatchString(back) {
		next = back
	}
	c.Redirect(http.StatusSeeOther, p.prefix+next+"?done="+strconv.FormatInt(id, 10)+"#done")
}
