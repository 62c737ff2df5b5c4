// Package mail sends the domain's mails (pipeline.Mail) over SMTP with
// go-mail, or writes them to a log: the pipeline.Mailer a program wires
// from PIPELINE_SMTP_URL.
package mail

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	gomail "github.com/wneessen/go-mail"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Default ports of the schemes.
const (
	PortSTARTTLS = 587
	PortTLS      = 465
	PortPlain    = 25
)

// Option configures a Mailer.
type Option func(*config)

type config struct {
	log     *slog.Logger
	tls     *tls.Config
	timeout time.Duration
}

// WithLogger sets the log a log: URL writes mails to; the default is
// slog.Default().
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// WithTLSConfig sets the TLS configuration of smtp:// and smtps://
// connections (a test trusts its own certificate); the default verifies
// the server's name against the system's roots.
func WithTLSConfig(t *tls.Config) Option { return func(c *config) { c.tls = t } }

// WithTimeout bounds each attempt, from connecting to the reply to the
// data; the default is pipeline.MailTimeout. A context's earlier deadline
// wins.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// New returns the Mailer of an SMTP URL:
//
//   - smtp://[user:password@]host[:port]: STARTTLS required, port 587;
//   - smtps://…: TLS from the start, port 465;
//   - smtp+insecure://…: no TLS, port 25 (a relay on the same host);
//   - log: each mail written to the log as JSON and reported sent.
//
// An error says what is wrong with the URL, its password left out.
func New(rawURL string, opts ...Option) (pipeline.Mailer, error) {
	c := config{log: slog.Default(), timeout: pipeline.MailTimeout}
	for _, o := range opts {
		o(&c)
	}
	if rawURL == "log:" {
		return logMailer{log: c.log}, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, errors.New("the SMTP URL is not a URL (smtp://, smtps://, smtp+insecure:// or log:)")
	}
	s := &smtpMailer{cfg: c, host: u.Hostname()}
	switch u.Scheme {
	case "smtp":
		s.policy, s.port = gomail.TLSMandatory, PortSTARTTLS
	case "smtps":
		s.ssl, s.port = true, PortTLS
	case "smtp+insecure":
		s.policy, s.port = gomail.NoTLS, PortPlain
	default:
		return nil, fmt.Errorf("the SMTP URL %s has scheme %q: use smtp://, smtps://, smtp+insecure:// or log:", u.Redacted(), u.Scheme)
	}
	if s.host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return nil, fmt.Errorf("the SMTP URL %s must be scheme://[user:password@]host[:port]", u.Redacted())
	}
	if p := u.Port(); p != "" {
		if s.port, err = strconv.Atoi(p); err != nil || s.port < 1 || s.port > 65535 {
			return nil, fmt.Errorf("the SMTP URL %s has an invalid port", u.Redacted())
		}
	}
	if u.User != nil {
		s.user = u.User.Username()
		s.password, _ = u.User.Password()
	}
	return s, nil
}

// smtpMailer sends each mail on a connection of its own.
type smtpMailer struct {
	cfg            config
	host           string
	port           int
	ssl            bool
	policy         gomail.TLSPolicy
	user, password string
}

// Send sends m, within the attempt's time-out.
func (s *smtpMailer) Send(ctx context.Context, m pipeline.Mail) pipeline.MailReply {
	msg, err := Message(m)
	if err != nil {
		return pipeline.MailReply{Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.timeout)
	defer cancel()
	timeout := s.cfg.timeout
	if d, ok := ctx.Deadline(); ok {
		timeout = max(time.Until(d), time.Millisecond)
	}
	opts := []gomail.Option{gomail.WithPort(s.port), gomail.WithTimeout(timeout)}
	if s.ssl {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(s.policy))
	}
	if s.cfg.tls != nil {
		opts = append(opts, gomail.WithTLSConfig(s.cfg.tls))
	}
	if s.user != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(s.user), gomail.WithPassword(s.password))
	}
	client, err := gomail.NewClient(s.host, opts...)
	if err == nil {
		err = client.DialAndSendWithContext(ctx, msg)
	}
	return s.reply(ctx, err)
}

// reply is what the domain is told of an attempt: the server's reply
// code and text, or the connection's error, without a credential.
func (s *smtpMailer) reply(ctx context.Context, err error) pipeline.MailReply {
	if err == nil {
		return pipeline.MailReply{Code: 250}
	}
	r := pipeline.MailReply{Code: replyCode(err), Final: tlsRefused(err)}
	text := err.Error()
	if ctx.Err() != nil && r.Code == 0 {
		text = "The mail server did not answer within " + s.cfg.timeout.String() + ": " + text
	}
	for _, secret := range []string{s.password, url.QueryEscape(s.password), s.user} {
		if len(secret) >= 3 {
			text = strings.ReplaceAll(text, secret, "[redacted]")
		}
	}
	r.Err = errors.New(text)
	return r
}

// tlsRefused reports whether err is a refusal of the TLS the URL asks
// for, which no retry changes until the settings do: a server that offers
// no STARTTLS, or whose certificate or handshake TLS rejects.
func tlsRefused(err error) bool {
	var (
		verify    *tls.CertificateVerificationError
		alert     tls.AlertError
		header    tls.RecordHeaderError
		authority x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
	)
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	if errors.As(err, &verify) || errors.As(err, &alert) || errors.As(err, &header) ||
		errors.As(err, &authority) || errors.As(err, &hostname) || errors.As(err, &invalid) {
		return true
	}
	// go-mail words these without wrapping the TLS error.
	text := err.Error()
	return strings.Contains(text, "does not support STARTTLS") || strings.Contains(text, "tls: ") ||
		strings.Contains(text, "x509: ")
}

// replyCode is the SMTP reply code an error carries, 0 when none.
func replyCode(err error) int {
	var se *gomail.SendError
	if errors.As(err, &se) && se.ErrorCode() != 0 {
		return se.ErrorCode()
	}
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return 0
}

// Message is m as go-mail writes it: quoted-printable UTF-8 text, names
// and subject in RFC 2047 encoded words where they leave ASCII, and the
// domain's Message-ID and Date.
func Message(m pipeline.Mail) (*gomail.Msg, error) {
	if m.From == nil || m.To == nil {
		return nil, errors.New("a mail needs a From and a To address")
	}
	msg := gomail.NewMsg(gomail.WithEncoding(gomail.EncodingQP), gomail.WithCharset(gomail.CharsetUTF8),
		gomail.WithNoDefaultUserAgent())
	msg.FromMailAddress(m.From)
	msg.ToMailAddress(m.To)
	if m.ReplyTo != nil {
		msg.ReplyToMailAddress(m.ReplyTo)
	}
	msg.SetGenHeaderPreformatted(gomail.HeaderSubject, subjectField(m.Subject))
	msg.SetMessageIDWithValue(strings.TrimSuffix(strings.TrimPrefix(m.MessageID, "<"), ">"))
	msg.SetDateWithValue(m.Date)
	msg.SetBodyString(gomail.TypeTextPlain, m.Body)
	for _, p := range m.Parts {
		if p.Filename == "" {
			msg.AddAlternativeString(gomail.ContentType(p.ContentType), string(p.Content))
			continue
		}
		if err := msg.AttachReader(p.Filename, bytes.NewReader(p.Content),
			gomail.WithFileContentType(gomail.ContentType(p.ContentType))); err != nil {
			return nil, err
		}
	}
	return msg, nil
}

// Lengths of header lines: RFC 5322 recommends at most 78 characters, and
// RFC 2047 requires at most 76 of a line that holds an encoded word.
const (
	maxLine        = 78
	maxEncodedLine = 76
	subjectName    = len("Subject: ")
)

// subjectField is the value of the Subject field of subject s, folded so
// that its first line holds text: go-mail v0.8.1 folds before a first word
// longer than the rest of the line, and Python's email reads that empty
// first line as a leading space. Unfolded and decoded, it is s exactly.
//
// A subject of printable ASCII (and tabs) is folded at its spaces. Any
// other, and one that holds "=?" (which a reader would decode), is
// RFC 2047 encoded words of its UTF-8 in base64, each of whole characters
// and on a line of its own; so no line break of s reaches the header.
func subjectField(s string) string {
	if mime.QEncoding.Encode("UTF-8", s) == s && !strings.Contains(s, "=?") {
		return foldSpaces(s, maxLine-subjectName)
	}
	const prefix, suffix = "=?UTF-8?B?", "?="
	// the bytes of text an encoded word of at most n characters holds
	holds := func(n int) int { return (n - len(prefix) - len(suffix)) / 4 * 3 }
	var b strings.Builder
	room := holds(maxEncodedLine - subjectName)
	for s != "" {
		n := 0
		for n < len(s) {
			_, size := utf8.DecodeRuneInString(s[n:])
			if n > 0 && n+size > room {
				break
			}
			n += size
		}
		if b.Len() > 0 {
			b.WriteString("\r\n ")
		}
		b.WriteString(prefix + base64.StdEncoding.EncodeToString([]byte(s[:n])) + suffix)
		s, room = s[n:], holds(maxEncodedLine-1)
	}
	return b.String()
}

// foldSpaces folds s before spaces so that its lines stay within maxLine
// characters where its words allow, the first within first; never before
// its first word nor before trailing spaces, which would leave a line
// of white space only.
func foldSpaces(s string, first int) string {
	var b strings.Builder
	line, limit := 0, first
	for s != "" {
		// the next segment: spaces, then the word that follows them
		i := len(s) - len(strings.TrimLeft(s, " "))
		if j := strings.IndexByte(s[i:], ' '); j >= 0 {
			i += j
		} else {
			i = len(s)
		}
		seg := s[:i]
		if line > 0 && line+len(seg) > limit && strings.TrimLeft(seg, " ") != "" {
			b.WriteString("\r\n")
			line, limit = 0, maxLine
		}
		b.WriteString(seg)
		line += len(seg)
		s = s[i:]
	}
	return b.String()
}

// logMailer writes each mail to the log as JSON and reports it sent.
type logMailer struct{ log *slog.Logger }

func (l logMailer) Send(ctx context.Context, m pipeline.Mail) pipeline.MailReply {
	attrs := []any{"message_id", m.MessageID, "from", m.From.String(), "to", m.To.String(),
		"subject", m.Subject, "date", m.Date.Format(time.RFC1123Z), "body", m.Body}
	if m.ReplyTo != nil {
		attrs = append(attrs, "reply_to", m.ReplyTo.String())
	}
	l.log.InfoContext(ctx, "mail", attrs...)
	return pipeline.MailReply{Code: 250}
}
