package pipelinehttp

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// proposalItem is a proposal as read, listed and decided.
type proposalItem struct {
	ID int64 `json:"id" schema:"ref: Id"`
	// Always `proposal`. A write that a token's approval policy may hold
	// answers its record or a proposal under the same status; this field
	// tells which.
	Object string `json:"object" schema:"const: proposal"`
	// The operation's name, as the MCP tool is named (`move_candidate`).
	Operation string `json:"operation"`
	// The REST request's method.
	Method string `json:"method" schema:"enum: [POST, PATCH, DELETE]"`
	// The REST request's path below `/api/v1`, ids filled in.
	Path string `json:"path"`
	// The REST request's body as a JSON value; `{}` when it had none.
	Input json.RawMessage `json:"input"`
	// The write's `reason`, as sent; `null` when none.
	Reason *string `json:"reason"`
	// `pending` until decided; then `applied` (approved and run), `failed`
	// (approved, and the write refused: `result` says why), `rejected`,
	// `expired` (seven days passed), or `withdrawn` (the requesting token
	// was revoked or expired, or an erasure closed it).
	Status string `json:"status" schema:"enum: [pending, applied, failed, rejected, expired, withdrawn]"`
	// The user and token that made the request.
	RequestedBy proposalActor `json:"requested_by"`
	// The job it is about; `null` when on no job.
	JobID     *int64 `json:"job_id" schema:"format: int64, minimum: 1"`
	CreatedAt string `json:"created_at" schema:"ref: Timestamp"`
	ExpiresAt string `json:"expires_at" schema:"ref: Timestamp"`
	// Who approved or rejected it; `token` `null` when decided on a page
	// or by an operator; `null` until decided, and when it expired or was
	// withdrawn.
	DecidedBy *proposalActor `json:"decided_by"`
	// When it was decided, expired or withdrawn; `null` while pending.
	DecidedAt *string `json:"decided_at" schema:"format: date-time"`
	// The decider's note; `null` when none.
	Note *string `json:"note"`
	// What the approved write answered: its HTTP status and body (the
	// write's, or its error envelope). `null` unless approved.
	Result *proposalResult `json:"result"`
}

type proposalActor struct {
	User  pipeline.Named  `json:"user"`
	Token *pipeline.Named `json:"token"` // null: decided on a page or by the CLI
}

type proposalResult struct {
	Status int `json:"status" schema:"minimum: 200, maximum: 599"`
	// The write's body, its error envelope, or `null` for a 204.
	Body *json.RawMessage `json:"body"`
}

func newProposalActor(a pipeline.ProposalActor) proposalActor {
	out := proposalActor{User: pipeline.Named{ID: a.User.ID, Name: a.User.Name}}
	if a.Token != nil {
		out.Token = &pipeline.Named{ID: a.Token.ID, Name: a.Token.Name}
	}
	return out
}

func newProposalItem(p pipeline.Proposal) proposalItem {
	it := proposalItem{ID: p.ID, Object: "proposal", Operation: string(p.Operation), Method: p.Method, Path: p.Path, Input: p.Input,
		Reason: p.Reason, Status: p.Status, RequestedBy: newProposalActor(p.RequestedBy),
		CreatedAt: pipeline.FormatTime(p.CreatedAt), ExpiresAt: pipeline.FormatTime(p.ExpiresAt), Note: p.Note}
	if len(it.Input) == 0 {
		it.Input = json.RawMessage("{}")
	}
	if p.JobID != 0 {
		it.JobID = &p.JobID
	}
	if p.DecidedBy != nil {
		d := newProposalActor(*p.DecidedBy)
		it.DecidedBy = &d
	}
	if p.DecidedAt != nil {
		at := pipeline.FormatTime(*p.DecidedAt)
		it.DecidedAt = &at
	}
	if p.Result != nil {
		it.Result = &proposalResult{Status: p.Result.Status}
		if body := p.Result.Body; len(body) > 0 && string(body) != "null" {
			it.Result.Body = &body
		}
	}
	return it
}

func proposalID[In any]() param[In] {
	return pathID[In]("proposal", "Id of a proposal the token can read.")
}

var proposalStatus = described(&jsonschema.Schema{Type: "string", Enum: []any{"pending", "applied", "failed", "rejected", "expired", "withdrawn"}},
	"Only proposals of this status; any when absent.")

var noteSchema = described(textSchema(0, pipeline.MaxDecisionNoteLength, ""), "Optional note on the decision, at most 1,000 characters.")

// proposalOperations are the operations on proposals, in the order of the
// document.
var proposalOperations = []operation{
	newOperation(opSpec[pipeline.ProposalFilter, list[proposalItem]]{
		op: pipeline.OpListProposals,
		params: []param[pipeline.ProposalFilter]{
			statusParam(proposalStatus, func(in *pipeline.ProposalFilter) *string { return &in.Status }),
			queryParam("job_id", described(idSchema(), "Only proposals on this job."), "The job_id must be a positive integer.",
				func(in *input[pipeline.ProposalFilter], text string) bool {
					id, ok := parseID(text)
					in.value.JobID = id
					return ok
				}),
			pageParam(pageSchema, func(in *pipeline.ProposalFilter) *int { return &in.Page }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.ProposalFilter]) (list[proposalItem], bool, error) {
			f := in.domain()
			l, err := svc.ListProposals(ctx, f)
			filters := url.Values{}
			setFilter(filters, "status", f.Status)
			if f.JobID > 0 {
				filters.Set("job_id", strconv.FormatInt(f.JobID, 10))
			}
			return listOf(in.self, filters, l, newProposalItem), false, err
		},
	}),
	newOperation(opSpec[struct{}, data[proposalItem]]{
		op:     pipeline.OpGetProposal,
		params: []param[struct{}]{proposalID[struct{}]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[struct{}]) (data[proposalItem], bool, error) {
			p, err := svc.GetProposal(ctx, in.ref.Proposal)
			return data[proposalItem]{Data: newProposalItem(p)}, false, err
		},
	}),
	decideOperation(pipeline.OpApproveProposal, (*pipeline.Service).ApproveProposal),
	decideOperation(pipeline.OpRejectProposal, (*pipeline.Service).RejectProposal),
	newOperation(opSpec[pipeline.ProposalWithdrawal, data[proposalItem]]{
		op:     pipeline.OpWithdrawProposal,
		params: []param[pipeline.ProposalWithdrawal]{proposalID[pipeline.ProposalWithdrawal]()},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.ProposalWithdrawal]) (data[proposalItem], bool, error) {
			res, err := svc.WithdrawProposal(ctx, in.ref.Proposal, in.domain())
			return data[proposalItem]{Data: newProposalItem(res.Value)}, res.Replayed, err
		},
	}),
}

func decideOperation(op pipeline.Op,
	method func(*pipeline.Service, context.Context, int64, pipeline.ProposalDecision) (pipeline.Result[pipeline.Proposal], error)) operation {
	return newOperation(opSpec[pipeline.ProposalDecision, data[proposalItem]]{
		op: op,
		params: []param[pipeline.ProposalDecision]{
			proposalID[pipeline.ProposalDecision](),
			optionalField("note", noteSchema, func(in *pipeline.ProposalDecision) **string { return &in.Note }),
		},
		call: func(ctx context.Context, svc *pipeline.Service, in *input[pipeline.ProposalDecision]) (data[proposalItem], bool, error) {
			res, err := method(svc, ctx, in.ref.Proposal, in.domain())
			return data[proposalItem]{Data: newProposalItem(res.Value)}, res.Replayed, err
		},
	})
}

// ProposalBody is a proposal as the API shows it (the data of GET
// /api/v1/proposals/{proposal}), for programs that print proposals as the
// API does.
func ProposalBody(p pipeline.Proposal) any { return newProposalItem(p) }

// proposedBody is the 202 answer of a held write.
func proposedBody(p *pipeline.Proposed) data[proposalItem] {
	return data[proposalItem]{Data: newProposalItem(p.Proposal)}
}

// proposedTool is a held write's tool result: the 202 body, not an error.
func proposedTool(p *pipeline.Proposed) *mcp.CallToolResult {
	res := toolResult(proposedBody(p), false)
	text := res.Content[0].(*mcp.TextContent)
	text.Text = "Pending approval: proposal " + strconv.FormatInt(p.Proposal.ID, 10) + "; nothing has changed yet.\n" + text.Text
	if p.Replayed {
		res.Meta = mcp.Meta{"idempotent_replay": true}
	}
	return res
}

// outputSchema is the schema of op's tool result: its API body, or, for a
// write an approval policy may hold, that body or the proposal.
func outputSchema[Out any](op pipeline.Op) *jsonschema.Schema {
	s := schemaFor[Out](false)
	if !op.Proposable() {
		return s
	}
	return &jsonschema.Schema{Type: "object", AnyOf: []*jsonschema.Schema{s, schemaFor[data[proposalItem]](false)}}
}

// heldNote ends the description of a tool the caller's token may only
// propose (oversight.md §3).
const heldNote = " This token's calls of this tool wait for a person's approval: each returns a pending proposal " +
	"(its text begins \"Pending approval\"), and nothing changes until a person approves it."

// heldTools returns tools with the description of each the caller may only
// propose ending in heldNote; the shared tools are not changed.
func heldTools(caller pipeline.Caller, tools []*mcp.Tool) []*mcp.Tool {
	for i, t := range tools {
		if caller.Held(pipeline.Op(t.Name)) {
			held := *t
			held.Description += heldNote
			tools[i] = &held
		}
	}
	return tools
}
