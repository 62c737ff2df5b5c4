package main

import (
	"context"
	"encoding/json"
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

// reschedulePool is how many interviews of each user reschedule moves in
// turn, each to the user's next slot.
const reschedulePool = 4

// pooled is an interview reschedule moves, and its candidate.
type pooled struct {
	t  target
	id int64
}

// rescheduleRequest moves an interview to a slot from start.
func rescheduleRequest(token string, p pooled, start time.Time, key string) request {
	body := fmt.Sprintf(`{"start":%q,"end":%q}`, start.Format(time.RFC3339), start.Add(slotLength).Format(time.RFC3339))
	return request{method: http.MethodPatch, path: interviewsPath(p.t) + "/" + strconv.FormatInt(p.id, 10), token: token,
		body: []byte(body), key: key, keyed: key != ""}
}

// interviewScenarios are schedule, a schedule of the user's next slot
// (201); schedule-conflict, a schedule of the user's first slot of the
// case, which schedule took (409, with the busy times): run schedule
// first; reschedule, which moves one of a few interviews of the user,
// scheduled through ours before its first run, to the user's next slot
// (200, sequence + 1, an updated invitation to each of its people); and
// reschedule-conflict, which moves one of them onto the slot of one more
// interview of the user that stays put (409, with the busy times).
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
	pool := make([][]pooled, len(users))
	anchors := make([]int64, len(users)) // the slot of each user's interview that stays
	var once sync.Once
	var prepared error
	fill := func(ctx context.Context, e *endpoint) error {
		for u, ts := range targets {
			for k := range reschedulePool + 1 {
				t := ts[k%len(ts)] // a candidate may have two of them, at other times
				n := lane(caseName, users[u].ID).Add(1) - 1
				resp, err := e.do(ctx, scheduleRequest(users[u].Token, t, users[u].ID, slotAt(caseName, n), ""))
				if err != nil {
					return err
				}
				var iv struct{ Data struct{ ID int64 } }
				if resp.status != http.StatusCreated || json.Unmarshal(resp.body, &iv) != nil {
					return fmt.Errorf("scheduling an interview to move: %d %s", resp.status, clip(resp.body, 300))
				}
				if k == reschedulePool {
					anchors[u] = n
				} else {
					pool[u] = append(pool[u], pooled{t: t, id: iv.Data.ID})
				}
			}
		}
		return nil
	}
	prepare := func(ctx context.Context, e *endpoint) error {
		once.Do(func() { prepared = fill(ctx, e) })
		return prepared
	}
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
		{name: "reschedule", write: true, status: http.StatusOK, prepare: prepare, next: func(i uint64) request {
			u, r := pick(i)
			n := lane(caseName, users[u].ID).Add(1) - 1
			return rescheduleRequest(users[u].Token, pool[u][r%reschedulePool], slotAt(caseName, n), keys.next())
		}},
		{name: "reschedule-conflict", write: true, status: http.StatusConflict, prepare: prepare, next: func(i uint64) request {
			u, r := pick(i)
			return rescheduleRequest(users[u].Token, pool[u][r%reschedulePool], slotAt(caseName, anchors[u]), keys.next())
		}},
	}
}
