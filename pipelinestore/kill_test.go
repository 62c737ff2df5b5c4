package pipelinestore_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// killChildEnv, set in the environment of the test binary run again by
// TestS3_KillNine (and never otherwise), makes the binary that test's
// child: its value is a killOrder in JSON.
const killChildEnv = "PIPELINE_TEST_KILL_CHILD"

// killOrder is what the child does until it is killed: add a document
// ("put"), its bytes written and its transaction not committed, or
// remove one ("remove"), its row's deletion committed and its bytes not
// removed.
type killOrder struct {
	At        string `json:"at"`
	DSN       string `json:"dsn"`
	S3        string `json:"s3"`
	Token     string `json:"token"`
	Job       int64  `json:"job"`
	Candidate int64  `json:"candidate"`
	Document  int64  `json:"document"`
}

// TestMain makes the test binary the child of TestS3_KillNine when
// killChildEnv asks it to; otherwise it runs the tests.
func TestMain(m *testing.M) {
	if raw := os.Getenv(killChildEnv); raw != "" {
		if err := killChild(raw); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(1) // a child that was not killed failed
	}
	os.Exit(m.Run())
}

// pausing is an S3 store that stops the process at one point of a
// write, told on stdout, for the parent to kill it there: after the
// bytes of an upload are written, or before those of a removal go.
type pausing struct {
	pipelinestore.BlobStore
	at string
}

func (p pausing) Put(ctx context.Context, key string, content []byte) error {
	if err := p.BlobStore.Put(ctx, key, content); err != nil {
		return err
	}
	if p.at == "put" {
		pauseForKill()
	}
	return nil
}

func (p pausing) Remove(ctx context.Context, key string) error {
	if p.at == "remove" {
		pauseForKill()
	}
	return p.BlobStore.Remove(ctx, key)
}

func pauseForKill() {
	fmt.Println("paused")
	time.Sleep(time.Hour)
}

func killChild(raw string) error {
	var o killOrder
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		return err
	}
	s, err := pipelinestore.OpenS3(o.S3, os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"))
	if err != nil {
		return err
	}
	ctx := context.Background()
	db, err := pipelinestore.Open(ctx, o.DSN, pipelinestore.WithBlobStore(pausing{BlobStore: s, at: o.At}))
	if err != nil {
		return err
	}
	svc := pipeline.NewService(db)
	c, err := svc.Authenticate(ctx, o.Token)
	if err != nil {
		return err
	}
	ctx = pipeline.NewContext(ctx, c.WithIP(storetest.IP))
	switch o.At {
	case "put":
		_, err = svc.AddDocument(ctx, o.Job, o.Candidate, pipeline.NewDocument{Filename: "killed.txt", Content: []byte("Added as the server died.\n")})
	case "remove":
		_, err = svc.RemoveDocument(ctx, o.Job, o.Candidate, o.Document, pipeline.DocumentRemoval{})
	}
	return fmt.Errorf("not paused: %v", err)
}

// killAt runs the child with order o and kills it with SIGKILL once it
// has paused.
func killAt(t *testing.T, o killOrder) {
	t.Helper()
	raw, err := json.Marshal(o)
	require.NoError(t, err)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), killChildEnv+"="+string(raw))
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr, err := os.CreateTemp(t.TempDir(), "stderr")
	require.NoError(t, err)
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- l
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case l := <-line:
		if l != "paused\n" {
			_ = cmd.Wait()
			msg, _ := os.ReadFile(stderr.Name())
			t.Fatalf("the child at %s did not pause: %q %s", o.At, l, msg)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("the child at %s did not pause within 30 s", o.At)
	}
	require.NoError(t, cmd.Process.Kill()) // SIGKILL: nothing of the child runs after it
	_ = cmd.Wait()
}

// TestS3_KillNine: a server killed with SIGKILL after an upload's bytes
// are written and before its transaction commits, and one killed after
// a removal commits and before its bytes go, each leave an orphan; after
// a restart no document points at missing bytes, every document's bytes
// read back with their SHA-256, the orphans stay while they are younger
// than OrphanAge, and the background pass then leaves no orphan.
func TestS3_KillNine(t *testing.T) {
	for _, dialect := range []string{"sqlite", "postgres"} {
		t.Run(dialect, func(t *testing.T) {
			dsn := filepath.Join(t.TempDir(), "pipeline.db")
			if dialect == "postgres" {
				dsn = storetest.PostgresSchemaDSN(t)
			}
			s3URL := storetest.S3URL(t)
			s, err := pipelinestore.OpenS3(s3URL, os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"))
			require.NoError(t, err)
			ctx := context.Background()
			db, err := pipelinestore.Open(ctx, dsn, pipelinestore.WithBlobStore(s))
			require.NoError(t, err)
			require.NoError(t, db.Migrate(ctx))
			f := storetest.Seeded(t, db)
			job, ada := f.Job("backend"), f.Res.Candidates["ada"]
			var docs []int64
			for _, text := range []string{"Ada Lovelace, analyst.\n", "Notes on the Analytical Engine.\n"} {
				d, err := f.Svc.AddDocument(f.As(t, "olivia"), job, ada, pipeline.NewDocument{Filename: "cv.txt", Content: []byte(text)})
				require.NoError(t, err)
				docs = append(docs, d.Value.ID)
			}
			require.NoError(t, db.Close())

			order := killOrder{DSN: dsn, S3: s3URL, Token: f.Res.Tokens["olivia"], Job: job, Candidate: ada}
			order.At = "put"
			killAt(t, order)
			order.At, order.Document = "remove", docs[1]
			killAt(t, order)

			// The restart.
			db, err = pipelinestore.Open(ctx, dsn, pipelinestore.WithBlobStore(s))
			require.NoError(t, err)
			defer db.Close()
			svc := pipeline.NewService(db)
			olivia, err := svc.Authenticate(ctx, f.Res.Tokens["olivia"])
			require.NoError(t, err)
			octx := pipeline.NewContext(ctx, olivia.WithIP(storetest.IP))
			intact := func() []string {
				t.Helper()
				list, err := svc.ListDocuments(octx, job, ada, pipeline.DocumentFilter{Page: 1})
				require.NoError(t, err)
				var want []string
				for _, d := range list.Items {
					_, r, err := svc.GetDocumentContent(octx, job, ada, d.ID)
					require.NoError(t, err, "document %d points at its bytes", d.ID)
					h := sha256.New()
					_, err = io.Copy(h, r)
					r.Close()
					require.NoError(t, err)
					assert.Equal(t, d.SHA256, hex.EncodeToString(h.Sum(nil)), "document %d", d.ID)
					want = append(want, "documents/"+strconv.FormatInt(d.ID, 10))
				}
				slices.Sort(want)
				return want
			}
			kept := intact()
			assert.Equal(t, []string{"documents/" + strconv.FormatInt(docs[0], 10)}, kept, "the upload never committed; the removal did")
			assert.Len(t, keys(t, s), 3, "an orphan of each kill")
			n, err := db.RemoveOrphans(ctx, time.Now())
			require.NoError(t, err)
			assert.Zero(t, n, "orphans younger than OrphanAge stay")

			later := time.Now().Add(pipelinestore.OrphanAge + time.Minute)
			d := pipeline.NewDispatcher(db, pipelinehttp.NewWebhookSender(pipelinehttp.WebhookSenderConfig{}), pipeline.WithSecretKey(secretKey))
			run, err := db.StartDeliveries(ctx, d, pipelinestore.DeliveryConfig{
				PollInterval: 20 * time.Millisecond, PollOnly: storetest.Pooled(),
				Clock: pipeline.ClockFunc(func() time.Time { return later }),
			})
			require.NoError(t, err)
			defer func() { require.NoError(t, run.Stop(ctx)) }()
			for deadline := time.Now().Add(20 * time.Second); len(keys(t, s)) > len(kept) && time.Now().Before(deadline); {
				time.Sleep(50 * time.Millisecond)
			}
			got := keys(t, s)
			slices.Sort(got)
			assert.Equal(t, kept, got, "no orphan survives the pass")
			assert.Equal(t, kept, intact(), "and every document still reads back")
		})
	}
}
