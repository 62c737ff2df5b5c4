package main

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Interviews are scheduled in 15-minute slots from a day after the run
// starts: each user has a lane of its own, the next slot of which each of
// its schedules takes, so that none clashes with another (a user's targets
// are its own). Each case has its own region of the calendar, since
// hot-user's one user schedules for every user's candidates.
var (
	calendarBase  = time.Now().UTC().Truncate(time.Hour).Add(24 * time.Hour)
	caseRegions   = map[string]time.Duration{"spread": 0, "hot-user": 60 * 24 * time.Hour}
	slotLength    = 15 * time.Minute
	calendarLanes sync.Map // case and user id → *atomic.Int64, the user's next slot
)

// lane is the counter of a user's slots in a case.
func lane(caseName string, userID int64) *atomic.Int64 {
	l, _ := calendarLanes.LoadOrStore(caseName+"/"+strconv.FormatInt(userID, 10), new(atomic.Int64))
	return l.(*atomic.Int64)
}

// slotAt is the start of slot n of a case's region.
func slotAt(caseName string, n int64) time.Time {
	return calendarBase.Add(caseRegions[caseName] + time.Duration(n)*slotLength)
}

// interviewsPath is where a candidate's interviews are scheduled.
func interviewsPath(t target) string { return candidatePath(t) + "/interviews" }

// scheduleRequest schedules an interview of a candidate from start, for a
// slot, with one interviewer.
func scheduleRequest(token string, t target, interviewer int64, start time.Time, key string) request {
	body := fmt.Sprintf(`{"start":%q,"end":%q,"interviewer_ids":[%d],"location":"Room 1"}`,
		start.Format(time.RFC3339), start.Add(slotLength).Format(time.RFC3339), interviewer)
	return request{method: http.MethodPost, path: interviewsPath(t), token: token, body: []byte(body), key: key, keyed: key != ""}
}

// interviewScenarios are schedule, a schedule of the user's next slot
// (201), and schedule-conflict, a schedule of the user's first slot of the
// case, which schedule took (409, with the busy times): run schedule first.
// Only active candidates take interviews, and only a user's own targets,
// which no other user's requests reach: users without any are left out.
func interviewScenarios(c *cast, caseName string, keys *keySource) []*scenario {
	var users []*benchUser
	var targets [][]target
	for u, ts := range c.targets {
		var own []target
		for _, t := range ts {
			shared := t.job.Index == 0 && t.cand == reservedCandidates && len(ts) == 1 // the fallback of users without targets
			if t.job.Active[t.cand] && !shared {
				own = append(own, t)
			}
		}
		if len(own) > 0 {
			users, targets = append(users, c.users[u]), append(targets, own)
		}
	}
	if len(users) == 0 {
		return nil
	}
	pick := func(i uint64) (int, uint64) { return int(i % uint64(len(users))), i / uint64(len(users)) }
	return []*scenario{
		{name: "schedule", write: true, status: http.StatusCreated, next: func(i uint64) request {
			u, _ := pick(i)
			n := lane(caseName, users[u].ID).Add(1) - 1
			t := targets[u][uint64(n)%uint64(len(targets[u]))]
			return scheduleRequest(users[u].Token, t, users[u].ID, slotAt(caseName, n), keys.next())
		}},
		{name: "schedule-conflict", write: true, status: http.StatusConflict, next: func(i uint64) request {
			u, r := pick(i)
			t := targets[u][(r+1)%uint64(len(targets[u]))]
			return scheduleRequest(users[u].Token, t, users[u].ID, slotAt(caseName, 0), keys.next())
		}},
	}
}
