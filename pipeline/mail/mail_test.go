package mail_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	netmail "net/mail"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/mail"
	"github.com/pipeline-dev/pipeline/pipeline/mail/mailtest"
)

func testMail() pipeline.Mail {
	return pipeline.Mail{
		MessageID: "<message-7@acme.example>",
		From:      &netmail.Address{Name: "Acme Hiring", Address: "jobs@acme.example"},
		To:        &netmail.Address{Address: "zoë@example.test"},
		ReplyTo:   &netmail.Address{Name: "Olivia Ørsted", Address: "olivia@acme.example"},
		Subject:   "Votre candidature — entretien à Zürich",
		Date:      time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC),
		Body:      "Bonjour Zoë,\n\nmerci pour votre candidature. À bientôt !\n" + strings.Repeat("é", 120) + "\n",
	}
}

func newMailer(t *testing.T, s *mailtest.Server, url string, opts ...mail.Option) pipeline.Mailer {
	t.Helper()
	m, err := mail.New(url, append([]mail.Option{mail.WithTLSConfig(s.ClientTLS())}, opts...)...)
	require.NoError(t, err)
	return m
}

func TestMailer_Content(t *testing.T) {
	t.Parallel()
	s := mailtest.Start(t, mailtest.Options{User: "relay-user", Password: "s3cret-pass"})
	reply := newMailer(t, s, s.URL()).Send(context.Background(), testMail())
	require.NoError(t, reply.Err)
	assert.True(t, reply.Sent())

	got := s.Accepted()
	require.Len(t, got, 1)
	assert.Equal(t, "jobs@acme.example", got[0].From)
	assert.Equal(t, []string{"zoë@example.test"}, got[0].To)
	msg := got[0].Message(t)
	dec := new(mime.WordDecoder)
	header := func(name string) string {
		v, err := dec.DecodeHeader(msg.Header.Get(name))
		require.NoError(t, err)
		return v
	}
	assert.Equal(t, "Votre candidature — entretien à Zürich", header("Subject"))
	assert.NotEqual(t, header("Subject"), msg.Header.Get("Subject"), "encoded words, not raw UTF-8")
	from, err := (&netmail.AddressParser{WordDecoder: dec}).Parse(msg.Header.Get("From"))
	require.NoError(t, err)
	assert.Equal(t, netmail.Address{Name: "Acme Hiring", Address: "jobs@acme.example"}, *from)
	replyTo, err := (&netmail.AddressParser{WordDecoder: dec}).Parse(msg.Header.Get("Reply-To"))
	require.NoError(t, err)
	assert.Equal(t, netmail.Address{Name: "Olivia Ørsted", Address: "olivia@acme.example"}, *replyTo)
	assert.Equal(t, "<message-7@acme.example>", msg.Header.Get("Message-ID"))
	date, err := msg.Header.Date()
	require.NoError(t, err)
	assert.True(t, date.Equal(testMail().Date))

	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	require.NoError(t, err)
	assert.Equal(t, "text/plain", mt)
	assert.True(t, strings.EqualFold(params["charset"], "utf-8"), params)
	assert.Equal(t, "quoted-printable", msg.Header.Get("Content-Transfer-Encoding"))
	body, err := io.ReadAll(quotedprintable.NewReader(msg.Body))
	require.NoError(t, err)
	assert.Equal(t, strings.ReplaceAll(testMail().Body, "\n", "\r\n"), string(body))
}

func TestMailer_NoHeaderInjection(t *testing.T) {
	t.Parallel()
	s := mailtest.Start(t, mailtest.Options{})
	m := testMail()
	m.Subject = "Hello\r\nBcc: victim@example.test"
	m.ReplyTo = &netmail.Address{Name: "Eve\r\nBcc: victim@example.test", Address: "eve@acme.example"}
	reply := newMailer(t, s, s.URL()).Send(context.Background(), m)
	if reply.Err != nil {
		return // refused outright: nothing injected
	}
	msg := s.Accepted()[0].Message(t)
	assert.Empty(t, msg.Header.Get("Bcc"))
	assert.Equal(t, []string{"zoë@example.test"}, s.Accepted()[0].To)
}

func TestMailer_PythonReads(t *testing.T) {
	t.Parallel()
	s := mailtest.Start(t, mailtest.Options{})
	mailer := newMailer(t, s, s.URL())
	subjects := []string{
		"Hi",
		"Votre candidature — entretien à Zürich",
		"Your application for the Senior Backend Engineer position at Acme Corporation — next steps after the first interview",
		"Your application for the Senior Backend Engineer position at Acme Corporation: next steps after the first interview",
		"Ünïcödé " + strings.Repeat("ß", 150),
		strings.Repeat("x", 120) + " and a long first word",
		"Spaces  kept,\ttabs too, and =?utf-8?q?not_decoded?= text",
		"山田さん、面接のご案内です。" + strings.Repeat("日本語", 20),
	}
	// Names within one encoded word: Python 3.11 reads a space between
	// the adjacent encoded words of a longer display name, where RFC 2047
	// (§6.2) and Go's reader read none.
	names := []string{"Zoë Ørsted", `O'Brien, Jane "JJ"`, "Doe, John", "Łukasiewicz-Ørsted, née 山田"}
	for i, subject := range subjects {
		m := testMail()
		m.MessageID = "<message-" + strconv.Itoa(i) + "@acme.example>"
		m.Subject = subject
		m.To = &netmail.Address{Name: names[i%len(names)], Address: "zoe@example.test"}
		require.NoError(t, mailer.Send(context.Background(), m).Err)
		got := s.WaitReceived(t, i+1, 30*time.Second)[i]
		py := got.Python(t)
		assert.Equal(t, subject, py.Subject, "the subject, exactly")
		assert.Equal(t, []mailtest.Address{{Name: m.To.Name, Address: "zoe@example.test"}}, py.To, "the name, exactly")
		assert.Equal(t, []mailtest.Address{{Name: "Acme Hiring", Address: "jobs@acme.example"}}, py.From)
		assert.Equal(t, []mailtest.Address{{Name: "Olivia Ørsted", Address: "olivia@acme.example"}}, py.ReplyTo)
		assert.Empty(t, py.Defects)
		for line := range strings.SplitSeq(string(got.Raw[:bytes.Index(got.Raw, []byte("\r\n\r\n"))]), "\r\n") {
			if strings.Contains(line, "=?") {
				assert.LessOrEqual(t, len(line), 76, "a line with encoded words (RFC 2047): %q", line)
			}
			if strings.HasPrefix(line, "Subject:") {
				assert.NotEqual(t, "Subject:", strings.TrimSpace(line), "the first line holds text")
			}
		}
		msg := got.Message(t)
		decoded, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
		require.NoError(t, err)
		if !strings.Contains(subject, "=?") {
			assert.Equal(t, subject, decoded, "Go's net/mail reads it too")
		}
	}
}

func TestMailer_STARTTLSRequired(t *testing.T) {
	t.Parallel()
	s := mailtest.Start(t, mailtest.Options{NoSTARTTLS: true, User: "relay-user", Password: "s3cret-pass"})
	reply := newMailer(t, s, s.URL()).Send(context.Background(), testMail())
	require.Error(t, reply.Err)
	assert.True(t, reply.Permanent(), "a server that refuses the TLS the URL asks for is not retried")
	assert.Contains(t, reply.Err.Error(), "STARTTLS")
	assert.NotContains(t, reply.Err.Error(), "s3cret-pass")
	assert.Empty(t, s.Received(), "nothing was sent in the clear")

	insecure := mailtest.Start(t, mailtest.Options{NoSTARTTLS: true})
	reply = newMailer(t, insecure, insecure.URLWith("smtp+insecure")).Send(context.Background(), testMail())
	require.NoError(t, reply.Err, "smtp+insecure:// sends without TLS")
	assert.Len(t, insecure.Accepted(), 1)
}

func TestMailer_Replies(t *testing.T) {
	t.Parallel()
	t.Run("451 is temporary", func(t *testing.T) {
		t.Parallel()
		s := mailtest.Start(t, mailtest.Options{})
		s.Script(mailtest.Temporary)
		reply := newMailer(t, s, s.URL()).Send(context.Background(), testMail())
		require.Error(t, reply.Err)
		assert.Equal(t, 451, reply.Code)
		assert.False(t, reply.Permanent())
		assert.Contains(t, reply.Err.Error(), "Try again later")
	})
	t.Run("550 is permanent", func(t *testing.T) {
		t.Parallel()
		s := mailtest.Start(t, mailtest.Options{})
		s.Script(mailtest.Permanent)
		reply := newMailer(t, s, s.URL()).Send(context.Background(), testMail())
		require.Error(t, reply.Err)
		assert.Equal(t, 550, reply.Code)
		assert.True(t, reply.Permanent())
	})
	t.Run("a server that hangs is cut by the time-out", func(t *testing.T) {
		t.Parallel()
		s := mailtest.Start(t, mailtest.Options{})
		s.Script(mailtest.Hang)
		start := time.Now()
		reply := newMailer(t, s, s.URL(), mail.WithTimeout(2*time.Second)).Send(context.Background(), testMail())
		require.Error(t, reply.Err)
		assert.False(t, reply.Permanent())
		assert.Less(t, time.Since(start), time.Minute)
	})
	t.Run("no server", func(t *testing.T) {
		t.Parallel()
		s := mailtest.Start(t, mailtest.Options{})
		url := s.URL()
		s.Close()
		reply := newMailer(t, s, url).Send(context.Background(), testMail())
		require.Error(t, reply.Err)
		assert.Zero(t, reply.Code)
		assert.False(t, reply.Permanent())
	})
}

func TestMailer_Log(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	m, err := mail.New("log:", mail.WithLogger(slog.New(slog.NewJSONHandler(&buf, nil))))
	require.NoError(t, err)
	reply := m.Send(context.Background(), testMail())
	require.NoError(t, reply.Err)
	var line map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &line))
	assert.Equal(t, "<message-7@acme.example>", line["message_id"])
	assert.Equal(t, testMail().Subject, line["subject"])
	assert.Equal(t, testMail().Body, line["body"])
}

func TestNew_URLs(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"log:", "smtp://mail.example.test", "smtp://u:p@mail.example.test:2525",
		"smtps://mail.example.test", "smtp+insecure://127.0.0.1:25"} {
		_, err := mail.New(ok)
		assert.NoError(t, err, ok)
	}
	for _, bad := range []string{"", "http://mail.example.test", "smtp://", "smtp://u:topsecret@host:99999",
		"smtp://host/path", "mail.example.test:25", "log:x"} {
		_, err := mail.New(bad)
		require.Error(t, err, bad)
		assert.NotContains(t, err.Error(), "topsecret", bad)
	}
}
