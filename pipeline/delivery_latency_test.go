package pipeline_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/mail"
	"github.com/pipeline-dev/pipeline/pipeline/mail/mailtest"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// latencyWrites is how many writes BenchmarkDelivery_CommitToAttempt makes.
const latencyWrites = 100

// BenchmarkDelivery_CommitToAttempt measures on PostgreSQL how soon after
// a write commits its queued work starts: latencyWrites messages to a
// candidate, sent one at a time through the Service, each enqueuing in its
// transaction a webhook delivery (the subscription selects
// candidate.messaged; the receiver is an httptest server) and the mail
// itself (to mailtest's SMTP server). It reports the p50 and p99 from the
// commit (SendMessage returning) to the receiver's request and to the SMTP
// server having the mail's data, in ms. After both arrive it pauses 150 ms
// to 1.15 s, so that writes fall anywhere in a poll's interval and each
// write's insert notifies (River sends at most one a queue in 100 ms).
// The queue runs as serve runs it: 4 workers, the default poll.
// PIPELINE_TEST_POOLER=transaction makes it poll as behind a transaction
// pooler. It measures and reports, and asserts no time:
//
//	PIPELINE_TEST_POSTGRES=postgres://… go test ./pipeline/ -run '^$' -bench Delivery_CommitToAttempt -benchtime 1x
func BenchmarkDelivery_CommitToAttempt(b *testing.B) {
	ctx := context.Background()
	db := storetest.OpenPostgres(b)
	w := storetest.Seeded(b, db, hookOptions()...)
	olivia := w.As(b, "olivia")

	hooks := make(chan time.Time, latencyWrites)
	rc := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hooks <- time.Now() }))
	b.Cleanup(rc.Close)
	_, err := w.Svc.CreateWebhook(olivia, pipeline.NewWebhook{URL: rc.URL, Events: []string{pipeline.ActionCandidateMessaged}})
	require.NoError(b, err)

	smtp := mailtest.Start(b, mailtest.Options{})
	m, err := mail.New(smtp.URL(), mail.WithTLSConfig(smtp.ClientTLS()))
	require.NoError(b, err)
	postman, err := pipeline.NewPostman(db, pipeline.WithMail(testFrom, m))
	require.NoError(b, err)
	sender := pipelinehttp.NewWebhookSender(pipelinehttp.WebhookSenderConfig{AllowPrivate: true})
	run, err := db.StartDeliveries(ctx, pipeline.NewDispatcher(db, sender, hookOptions()...), pipelinestore.DeliveryConfig{
		Workers: 4, Postman: postman, PollOnly: os.Getenv("PIPELINE_TEST_POOLER") == "transaction",
	})
	require.NoError(b, err)
	b.Cleanup(func() { require.NoError(b, run.Stop(ctx)) })

	var toHook, toMail []time.Duration
	b.ResetTimer()
	for i := range latencyWrites {
		_, err := w.Svc.SendMessage(olivia, w.Job("backend"), w.Res.Candidates["ada"], pipeline.NewMessage{Subject: "Hi", Body: "Hello."})
		committed := time.Now()
		require.NoError(b, err)
		select {
		case at := <-hooks:
			toHook = append(toHook, at.Sub(committed))
		case <-time.After(30 * time.Second):
			b.Fatalf("write %d: no webhook delivery within 30 s", i)
		}
		toMail = append(toMail, smtp.WaitReceived(b, i+1, 30*time.Second)[i].At.Sub(committed))
		time.Sleep(150*time.Millisecond + rand.N(time.Second))
	}
	b.StopTimer()
	for name, d := range map[string][]time.Duration{"webhook": toHook, "smtp": toMail} {
		p50, p99 := percentile(d, 50), percentile(d, 99)
		b.ReportMetric(float64(p50.Microseconds())/1000, name+"-p50-ms")
		b.ReportMetric(float64(p99.Microseconds())/1000, name+"-p99-ms")
		b.Logf("commit to %s over %d writes: p50 %s, p99 %s", name, len(d), p50.Round(100*time.Microsecond), p99.Round(100*time.Microsecond))
	}
}

// percentile is the p-th percentile of d by nearest rank.
func percentile(d []time.Duration, p int) time.Duration {
	s := slices.Sorted(slices.Values(d))
	return s[(p*len(s)+99)/100-1]
}
