package pipelinehttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	netmail "net/mail"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipelinehttp"
	"github.com/pipeline-dev/pipeline/pipelinestore"
	"github.com/pipeline-dev/pipeline/pipelinestore/storetest"
)

// steppingClock moves a rate window forward at each reading, so that no
// sign-in limit is reached however many requests a benchmark sends.
type steppingClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *steppingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(pipeline.RateWindow)
	return c.now
}

type discardMailer struct{}

func (discardMailer) Send(context.Context, pipeline.Mail) pipeline.MailReply {
	return pipeline.MailReply{Code: 250}
}

// BenchmarkPages_SignIn times the sign-in form's answer for a user's email
// and for an unknown one, on each database: the two take the same time
// (web.md), since what differs (the link's write and its mail) follows
// the answer. That work runs between the timed requests.
//
//	go test ./pipelinehttp -run '^$' -bench Pages_SignIn -benchtime 2000x
func BenchmarkPages_SignIn(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchSignIn(b, storetest.OpenSQLite(b)) })
	b.Run("postgres", func(b *testing.B) { benchSignIn(b, storetest.OpenPostgres(b)) })
}

func benchSignIn(b *testing.B, db *pipelinestore.DB) {
	var later []func()
	f := storetest.Seeded(b, db, pipeline.WithClock(&steppingClock{now: time.Now()}),
		pipeline.WithMail(&netmail.Address{Address: "jobs@acme.example"}, discardMailer{}),
		pipeline.WithBackground(func(work func()) { later = append(later, work) }))
	h := pipelinehttp.New(f.Svc, pipelinehttp.Config{BaseURL: "https://hiring.example"})
	form := httptest.NewRecorder()
	h.ServeHTTP(form, httptest.NewRequest(http.MethodGet, "/app/sign-in", nil))
	cookie := form.Result().Cookies()[0]
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(form.Body.String())[1]

	for _, email := range []string{"olivia@acme.test", "nobody@acme.test"} {
		name := map[bool]string{true: "known", false: "unknown"}[email == "olivia@acme.test"]
		body := url.Values{"csrf": {csrf}, "email": {email}}.Encode()
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/app/sign-in", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.AddCookie(cookie)
				res := httptest.NewRecorder()
				h.ServeHTTP(res, req)
				if res.Code != http.StatusOK {
					b.Fatalf("%d: %s", res.Code, res.Body)
				}
				b.StopTimer()
				for _, work := range later {
					work()
				}
				later = later[:0]
				b.StartTimer()
			}
		})
	}
}
