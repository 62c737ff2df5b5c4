package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// TestProposal: an agent's token proposes over the API; an operator lists
// the team's proposals and decides them as a user with no token, in the
// proposal's team whatever the user's current team.
func TestProposal(t *testing.T) {
	eachDB(t, func(t *testing.T, m *Main) {
		acme := m.Seed("testdata/seed.json")
		globex := m.Seed("testdata/globex.json")
		// Gina's current team stays Globex: she decides in Acme all the same.
		m.Must("user", "add", "--email", "gina@globex.test", "--team", "acme", "--role", "admin")
		m.Must("user", "add", "--email", "zed@globex.test", "--name", "Zed Outsider", "--team", "globex", "--role", "owner")
		var agent issuedToken
		require.NoError(t, json.Unmarshal([]byte(m.Must("token", "create", "--user", "mia@acme.test", "--name", "screening agent",
			"--scopes", "candidates:read,candidates:write", "--approval", "move_candidate,update_candidate")), &agent))
		olivia := m.CreateToken("olivia@acme.test", "reader", "candidates:read")
		srv := m.Serve()

		job, ada := acme.Jobs["backend"], acme.Candidates["ada"]
		cand := fmt.Sprintf("/api/v1/jobs/%d/candidates/%d", job, ada)
		propose := func(method, path, body string) int64 {
			t.Helper()
			status, out := srv.Do(method, path, agent.Token, body)
			require.Equal(t, http.StatusAccepted, status, out)
			var p struct{ Data struct{ ID int64 } }
			require.NoError(t, json.Unmarshal([]byte(out), &p))
			return p.Data.ID
		}
		// The stage spelled 5e0 is the stage 5 it stands for, in the list
		// and in the run.
		move := propose("POST", cand+"/stage", fmt.Sprintf(`{"stage": %de0, "reason": "Strong Go;\nready for interviews."}`,
			acme.Stages["backend"]["Interview"]))
		reject := propose("PATCH", cand, `{"status": "rejected", "reason": "No work permit for the country the role is in."}`)
		candidate := func() (stage, status string) {
			t.Helper()
			code, out := srv.Do("GET", cand, olivia.Token, "")
			require.Equal(t, http.StatusOK, code, out)
			var c struct {
				Data struct{ Stage, Status string }
			}
			require.NoError(t, json.Unmarshal([]byte(out), &c))
			return c.Data.Stage, c.Data.Status
		}

		// The list: the table, newest first, and JSON lines.
		{
			rows := strings.Split(strings.TrimSpace(m.Must("proposal", "list", "--team", "acme")), "\n")
			require.Len(t, rows, 3, "a header and two proposals")
			assert.Regexp(t, `^ID +STATUS +OPERATION +JOB +REQUESTED BY +REASON +CREATED +EXPIRES$`, rows[0])
			assert.Regexp(t, fmt.Sprintf(`^%d +pending +update_candidate +%d +Mia Member / screening agent +No work permit for the country the ro\.\.\. +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ +\d{4}-`, reject, job), rows[1], "newest first, the reason cut")
			assert.Regexp(t, fmt.Sprintf(`^%d +pending +move_candidate +%d +Mia Member / screening agent +Strong Go; ready for interviews\. +`, move, job), rows[2], "on one line")

			lines := jsonLines(t, m.Must("proposal", "list", "--team", strconv.FormatInt(acme.Teams["acme"], 10), "--status", "pending", "--json"))
			require.Len(t, lines, 2)
			assert.Equal(t, float64(reject), lines[0]["id"])
			assert.Equal(t, "PATCH", lines[0]["method"])
			assert.Equal(t, map[string]any{"status": "rejected", "reason": "No work permit for the country the role is in."}, lines[0]["input"])
			assert.Equal(t, map[string]any{"user": map[string]any{"id": float64(acme.Users["mia"]), "name": "Mia Member"},
				"token": map[string]any{"id": float64(agent.ID), "name": "screening agent"}}, lines[0]["requested_by"])
			assert.Nil(t, lines[0]["decided_by"])
			assert.Equal(t, map[string]any{"stage": float64(acme.Stages["backend"]["Interview"]), "reason": "Strong Go;\nready for interviews."}, lines[1]["input"])

			assert.Equal(t, "ID  STATUS  OPERATION  JOB  REQUESTED BY  REASON  CREATED  EXPIRES\n",
				m.Must("proposal", "list", "--team", "globex"), "another team's: none")
			assert.Empty(t, m.Must("proposal", "list", "--team", "acme", "--status", "applied", "--json"))
		}

		// Approving runs the write as the agent, approved by Gina with no token.
		{
			stage, _ := candidate()
			require.Equal(t, "Screening", stage, "a proposal changes nothing")
			var p pipeline.Proposal
			require.NoError(t, json.Unmarshal([]byte(m.Must("proposal", "approve", strconv.FormatInt(move, 10),
				"--as", "gina@globex.test", "--note", "Agreed.")), &p))
			assert.Equal(t, pipeline.ProposalApplied, p.Status)
			require.NotNil(t, p.DecidedBy)
			assert.Equal(t, pipeline.User{ID: globex.Users["gina"], Name: "Gina Globex"}, p.DecidedBy.User)
			assert.Nil(t, p.DecidedBy.Token, "decided with no token")
			require.NotNil(t, p.Note)
			assert.Equal(t, "Agreed.", *p.Note)
			require.NotNil(t, p.Result)
			assert.Equal(t, http.StatusOK, p.Result.Status)
			stage, _ = candidate()
			assert.Equal(t, "Interview", stage, "the candidate moved")

			var moved, approved map[string]any
			for _, a := range jsonLines(t, m.Must("activity", "--team", "acme")) {
				switch a["action"] {
				case pipeline.ActionCandidateStageChanged:
					moved = a
				case pipeline.ActionProposalApproved:
					approved = a
				}
			}
			require.NotNil(t, moved)
			assert.Equal(t, float64(acme.Users["mia"]), moved["user_id"], "the requester's write")
			assert.Equal(t, float64(agent.ID), moved["token_id"])
			assert.Equal(t, "Strong Go;\nready for interviews.", moved["reason"])
			assert.Equal(t, map[string]any{"user": map[string]any{"id": float64(globex.Users["gina"]), "name": "Gina Globex"},
				"token_id": nil}, moved["approved_by"])
			require.NotNil(t, approved)
			assert.Equal(t, float64(globex.Users["gina"]), approved["user_id"])
			assert.Equal(t, map[string]any{"operation": "move_candidate", "candidate_id": float64(ada),
				"status": map[string]any{"before": "pending", "after": "applied"}}, approved["changes"])
		}

		// Rejecting makes nothing of the write.
		{
			var p pipeline.Proposal
			require.NoError(t, json.Unmarshal([]byte(m.Must("proposal", "reject", strconv.FormatInt(reject, 10),
				"--as", "olivia@acme.test")), &p))
			assert.Equal(t, pipeline.ProposalRejected, p.Status)
			assert.Equal(t, acme.Users["olivia"], p.DecidedBy.User.ID)
			assert.Nil(t, p.Note)
			assert.Nil(t, p.Result)
			_, status := candidate()
			assert.Equal(t, "active", status, "a rejected proposal is never made")
			assert.Contains(t, m.Must("activity", "--team", "acme"), `"action":"proposal.rejected"`)
		}

		// What the commands refuse, and how they exit.
		{
			for _, tc := range []struct {
				name string
				args []string
				code int
				want string
			}{
				{"decided", []string{"approve", strconv.FormatInt(reject, 10), "--as", "gina@globex.test"}, exitFailure,
					"pipelined: conflict: The proposal has already been decided.\n"},
				{"decided again", []string{"reject", strconv.FormatInt(move, 10), "--as", "olivia@acme.test"}, exitFailure,
					"pipelined: conflict: The proposal has already been decided.\n"},
				{"unknown id", []string{"approve", "999999", "--as", "olivia@acme.test"}, exitFailure,
					"pipelined: not_found: Proposal not found.\n"},
				{"no member of the team", []string{"reject", strconv.FormatInt(move, 10), "--as", "zed@globex.test"}, exitFailure,
					"pipelined: not_found: Proposal not found.\n"},
				{"unknown user", []string{"approve", strconv.FormatInt(move, 10), "--as", "nobody@acme.test"}, exitFailure,
					"pipelined: not_found: User not found.\n"},
				{"no --as", []string{"approve", strconv.FormatInt(move, 10)}, exitUsage, "proposal approve needs --as"},
				{"no id", []string{"reject", "--as", "olivia@acme.test"}, exitUsage, "takes exactly one proposal ID"},
				{"not an id", []string{"reject", "seven", "--as", "olivia@acme.test"}, exitUsage, `"seven" is not a proposal id`},
				{"a note too long", []string{"approve", strconv.FormatInt(reject, 10), "--as", "olivia@acme.test", "--note", strings.Repeat("n", 1001)},
					exitUsage, "note: The note may not be greater than 1000 characters."},
				{"a status", []string{"list", "--team", "acme", "--status", "open"}, exitUsage, "status: The status must be one of pending,"},
				{"no team", []string{"list"}, exitUsage, "proposal list needs --team"},
				{"unknown team", []string{"list", "--team", "initech"}, exitFailure, "pipelined: not_found: Team initech not found.\n"},
			} {
				stdout, stderr, err := m.Run("", append([]string{"proposal"}, tc.args...)...)
				assert.Equal(t, tc.code, exitStatus(err), "%s: %s", tc.name, stderr)
				assert.Empty(t, stdout, tc.name)
				if tc.code == exitFailure {
					assert.Equal(t, tc.want, stderr, tc.name)
				} else {
					assert.Contains(t, stderr, tc.want, tc.name)
				}
			}
			stage, status := candidate()
			assert.Equal(t, []string{"Interview", "active"}, []string{stage, status}, "nothing changed")
		}
	})
}
