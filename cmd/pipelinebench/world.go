package main

import (
	"slices"
	"sync/atomic"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Shape of the dataset.
const (
	// stageScreening and stageInterview are the positions (from 1, in the
	// default pipeline) between which the move scenario moves candidates;
	// stageScreening is also the stage filter of the stage scenario.
	stageScreening = 2
	stageInterview = 3
	// reservedCandidates are the first candidates of the first job, kept
	// out of the load: the hot candidate and the two of the correctness
	// check.
	reservedCandidates = 3
	hotCandidate       = 0
	checkMoveCandidate = 1
	checkNoteCandidate = 2
	// minCandidates per job leaves candidates for the load beside the
	// reserved ones.
	minCandidates = 10
	// pageSize is the API's page size.
	pageSize = pipeline.PageSize
)

// world is what the benchmark knows of its dataset: ids, tokens and who
// reaches what.
type world struct {
	TeamID int64
	Users  []*benchUser
	Jobs   []*benchJob // the jobs of the load, the first being the hot job
	Scale  []*benchJob // the jobs of the scale part, smallest first; none without -scale
	// Reader is a token of the first user with jobs:read only, for the
	// correctness check of the scope rule.
	Reader string
}

// benchUser is a user with its token.
type benchUser struct {
	Index int
	ID    int64
	Name  string
	Role  pipeline.Role
	Token string
	Jobs  []int // indexes into world.Jobs of the jobs the user reaches
}

// benchJob is a job with its stages and candidates.
type benchJob struct {
	Index  int
	Key    string
	ID     int64
	Stages []int64 // stage ids in pipeline order
	Size   int     // number of candidates
	Cands  []int64 // candidate ids, oldest first (only for the jobs of the load)
	Active []bool  // whether each candidate is active, whom interviews may be scheduled for
	// Pos is each candidate's current stage position as the load generator
	// last set it, so that a move goes somewhere else.
	Pos []atomic.Int32
}

// owner reports whether the user reaches every job of the team.
func (u *benchUser) owner() bool { return u.Role == pipeline.RoleOwner || u.Role == pipeline.RoleAdmin }

// reaches reports whether the user reaches job j of the load.
func (u *benchUser) reaches(j int) bool { return slices.Contains(u.Jobs, j) }
