package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// sqliteScenarios and sqliteCases are what -sqlite runs: the upload, with
// /me as the control, in the cases that have them.
var (
	sqliteScenarios = []string{"me", "upload"}
	sqliteCases     = []string{"spread", "hot-user", "hot-candidate"}
)

// storedDocuments is what the SQLite file holds after the load.
type storedDocuments struct {
	Documents int // rows of documents
	Intact    int // of which the bytes are in document_contents, of the row's size and SHA-256
	TextJobs  int // River jobs of their text
	Waiting   int // of which not yet worked
}

// benchSQLite runs the benchmark on SQLite: `pipelined serve` on a fresh
// file (bytes in the database, the default) and the SQLite baseline on the
// same file, then the cases' loads, the tables, and what the file holds.
func benchSQLite(ctx context.Context, cfg config, out, log io.Writer) (_ *outcome, err error) {
	progress, dir, bin, cleanup, err := setUp(ctx, cfg, log, "the servers' logs and the SQLite file")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	path := filepath.Join(dir, "pipeline.db")
	p := newPlan(cfg.Users, cfg.Jobs)
	sw := p.seedWorld(nil)
	seedCandidates(&sw, cfg.Candidates)
	progress("seeding %d users, %d jobs and %d × %d candidates into %s with pipelined seed", cfg.Users, cfg.Jobs, cfg.Jobs, cfg.Candidates, path)
	res, err := seed(ctx, bin, path, dir, sw)
	if err != nil {
		return nil, err
	}
	w, err := newWorld(p, res, nil)
	if err != nil {
		return nil, err
	}
	if err := seededCandidates(w, sw, res); err != nil {
		return nil, err
	}
	ours, base, stop, err := startServers(ctx, cfg, bin, path, dir, progress)
	if err != nil {
		return nil, err
	}
	defer func() {
		if serr := stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	o := &outcome{Cases: map[string][]caseRow{}}
	if cfg.NoCheck {
		progress("the correctness check is skipped (-no-check)")
	} else {
		progress("checking that both servers answer alike")
		if o.Compared, err = checkSQLite(ctx, w, ours, base); err != nil {
			return nil, err
		}
	}
	if cfg.PauseText {
		progress("pausing River's documents queue")
		if err := pauseTexts(ctx, path); err != nil {
			return nil, err
		}
	}
	version, err := sqliteVersion(ctx, path)
	if err != nil {
		return nil, err
	}
	writePreamble(out, cfg, w, "SQLite file "+filepath.Base(path),
		fmt.Sprintf("SQLite %s (modernc.org/sqlite), %s, GOMAXPROCS %d", version, runtime.Version(), runtime.GOMAXPROCS(0)), o.Compared)
	if cfg.PauseText {
		fmt.Fprint(out, "River's documents queue was paused during the loads (-pause-text): ours read no document's text meanwhile.\n\n")
	}
	keys := newKeySource()
	for _, name := range cfg.Cases {
		rows, err := loadCase(ctx, cfg, name, scenarios(w, name, cfg.Scenarios, keys), ours, base, progress)
		if err != nil {
			return nil, err
		}
		o.Cases[name] = rows
		writeCaseTable(out, name, len(castFor(w, name).users), rows, "")
		writeRoundsTable(out, name, rows)
	}
	if cfg.Hostile {
		if err := runHostile(ctx, cfg, w, ours, out, progress); err != nil {
			return nil, err
		}
	}
	if o.Stored, err = readStored(ctx, path); err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "The file holds %s documents, %s of them with their bytes in document_contents, of their size and SHA-256, and %s River jobs of their text, %s of them still waiting.\n\n",
		thousands(o.Stored.Documents), thousands(o.Stored.Intact), thousands(o.Stored.TextJobs), thousands(o.Stored.Waiting))
	return o, nil
}

// seedCandidates gives each job of the seed file n candidates, as
// insertCandidatesSQL makes them on PostgreSQL: names picked by hashes
// from the lists, stages in a funnel, applied dates over two years, some
// rejected or withdrawn. On SQLite they go through `pipelined seed` with
// the rest, which is quick enough at the sizes an embedded database serves.
func seedCandidates(sw *pipeline.SeedWorld, n int) {
	_, _, firstASCII := nameColumns(firstNames)
	_, _, lastASCII := nameColumns(lastNames)
	epoch := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for j := range sw.Jobs {
		job := &sw.Jobs[j]
		for g := 1; g <= n; g++ {
			h1, h2, h3 := hash3(j, g)
			fi, li := h1%uint64(len(firstNames)), h2%uint64(len(lastNames))
			pos := funnel(h3 % 100)
			status := "active"
			switch {
			case pos == 5:
				status = "hired"
			case g%20 == 0:
				status = "rejected"
			case g%20 == 7:
				status = "withdrawn"
			}
			resume := ""
			if g%3 != 0 {
				resume = fmt.Sprintf("https://files.example.test/cv/%s-%d.pdf", job.Key, g)
			}
			job.Candidates = append(job.Candidates, pipeline.SeedCandidate{
				Key:       candidateKey(job.Key, g),
				Name:      firstNames[fi] + " " + lastNames[li],
				Email:     fmt.Sprintf("%s.%s.%s.%d@mail.example", firstASCII[fi], lastASCII[li], job.Key, g),
				Applied:   epoch.AddDate(0, 0, int((h3/100)%730)).Format(time.DateOnly),
				Stage:     pipeline.DefaultStages[pos-1],
				Status:    status,
				ResumeURL: resume,
			})
		}
	}
}

func candidateKey(job string, g int) string { return job + "-c" + strconv.Itoa(g) }

// hash3 is three hashes of a job and a candidate's number.
func hash3(j, g int) (uint64, uint64, uint64) {
	h := func(i int) uint64 {
		f := fnv.New64a()
		fmt.Fprintf(f, "%d/%d/%d", j, g, i)
		return f.Sum64()
	}
	return h(0), h(1), h(2)
}

// funnel is a stage position from 1 to 5 for a number below 100: half in
// the first stage, 5% hired, as on PostgreSQL.
func funnel(p uint64) int {
	switch {
	case p < 50:
		return 1
	case p < 75:
		return 2
	case p < 88:
		return 3
	case p < 95:
		return 4
	}
	return 5
}

// seededCandidates fills the jobs of the world with the candidates that
// `pipelined seed` created, oldest first.
func seededCandidates(w *world, sw pipeline.SeedWorld, res pipeline.SeedResult) error {
	for i, j := range w.Jobs {
		seeded := sw.Jobs[i].Candidates
		j.Size = len(seeded)
		for _, c := range seeded {
			id := res.Candidates[c.Key]
			if id == 0 {
				return fmt.Errorf("pipelined seed gave no id for candidate %s", c.Key)
			}
			j.Cands = append(j.Cands, id)
			j.Active = append(j.Active, c.Status == "active")
		}
		j.Pos = make([]atomic.Int32, len(seeded))
		for k, c := range seeded {
			for p, name := range pipeline.DefaultStages {
				if name == c.Stage {
					j.Pos[k].Store(int32(p + 1))
				}
			}
		}
	}
	return nil
}

// checkSQLite sends the same requests to both servers and compares the
// answers: /me, an upload (but for the document's id and time), and the
// upload's refusals (the read-only token, an unknown candidate, an empty
// file). It returns how many requests it compared.
func checkSQLite(ctx context.Context, w *world, ours, base *endpoint) (int, error) {
	o, b := newEndpoint(ours.name, ours.addr, 1, checkTimeout), newEndpoint(base.name, base.addr, 1, checkTimeout)
	owner := w.Users[0].Token
	t := target{job: w.Jobs[0], cand: checkNoteCandidate}
	emptyBody, emptyType := multipartFile(uploadFilename, nil)
	unknown := request{method: http.MethodPost, path: candidatesPath(w.Jobs[0]) + "/999999999/documents", token: owner}
	unknown.body, unknown.contentType = uploadBody()
	empty := uploadRequest(owner, t)
	empty.body, empty.contentType = emptyBody, emptyType
	checks := []struct {
		name   string
		req    request
		status int
	}{
		{"me", request{method: http.MethodGet, path: "/api/v1/me", token: owner}, http.StatusOK},
		{"upload", uploadRequest(owner, t), http.StatusCreated},
		{"upload with a read-only token", uploadRequest(w.Reader, t), http.StatusForbidden},
		{"upload to an unknown candidate", unknown, http.StatusNotFound},
		{"upload of an empty file", empty, http.StatusUnprocessableEntity},
	}
	for _, k := range checks {
		ro, err := o.do(ctx, k.req)
		if err != nil {
			return 0, fmt.Errorf("check %s on ours: %w", k.name, err)
		}
		rb, err := b.do(ctx, k.req)
		if err != nil {
			return 0, fmt.Errorf("check %s on the baseline: %w", k.name, err)
		}
		so, sb := withoutIdentity(ro.body), withoutIdentity(rb.body)
		if ro.status != k.status || rb.status != ro.status || !bytes.Equal(so, sb) {
			return 0, fmt.Errorf("check %s: want %d; ours answered %d %s\nthe baseline %d %s", k.name, k.status,
				ro.status, clip(ro.body, 600), rb.status, clip(rb.body, 600))
		}
	}
	return len(checks), nil
}

// withoutIdentity is a JSON body with its data's id and created_at left
// out, which differ between two uploads of the same file; other bodies as
// they are.
func withoutIdentity(body []byte) []byte {
	var v struct {
		Data map[string]any `json:"data"`
	}
	if json.Unmarshal(body, &v) != nil || v.Data == nil {
		return body
	}
	if _, ok := v.Data["sha256"]; !ok {
		return body
	}
	delete(v.Data, "id")
	delete(v.Data, "created_at")
	out, _ := json.Marshal(v.Data) // decoded from JSON, so it encodes
	return out
}

// sqliteVersion is the version of SQLite that the driver links.
func sqliteVersion(ctx context.Context, path string) (string, error) {
	db, err := openSQLiteBaseline(ctx, path, sqliteReader, 1)
	if err != nil {
		return "", err
	}
	defer db.Close()
	var v string
	return v, db.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&v)
}

// readStored reads every document of the file back with its bytes.
func readStored(ctx context.Context, path string) (storedDocuments, error) {
	var s storedDocuments
	db, err := openSQLiteBaseline(ctx, path, sqliteReader, 1)
	if err != nil {
		return s, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT d.size, d.sha256, c.content FROM documents AS d
LEFT JOIN document_contents AS c ON c.document_id = d.id`)
	if err != nil {
		return s, err
	}
	defer rows.Close()
	for rows.Next() {
		var size int64
		var sum string
		var content []byte
		if err := rows.Scan(&size, &sum, &content); err != nil {
			return s, err
		}
		s.Documents++
		got := sha256.Sum256(content)
		if content != nil && int64(len(content)) == size && hex.EncodeToString(got[:]) == sum {
			s.Intact++
		}
	}
	if err := rows.Err(); err != nil {
		return s, err
	}
	err = db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(state = 'available'), 0) FROM river_job
WHERE kind = 'pipeline_document_text'`).Scan(&s.TextJobs, &s.Waiting)
	return s, err
}

// pauseTexts pauses River's documents queue in the file, as River's
// QueuePause does, and waits until ours' producer has seen it (it reads
// the queue's row every 2 s on SQLite) and its extraction in flight, if
// any, has ended.
func pauseTexts(ctx context.Context, path string) error {
	db, err := openSQLiteBaseline(ctx, path, sqliteWriter, 1)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := db.ExecContext(ctx, `UPDATE river_queue SET paused_at = datetime('now', 'subsec'), updated_at = datetime('now', 'subsec')
WHERE name = 'documents'`)
	if err != nil {
		return fmt.Errorf("pause the documents queue: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return errors.New("pause the documents queue: ours' River has no such queue")
	}
	time.Sleep(3 * time.Second)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var running int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM river_job WHERE queue = 'documents' AND state = 'running'`).Scan(&running); err != nil {
			return err
		}
		if running == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("the documents queue is paused but an extraction still runs after 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
