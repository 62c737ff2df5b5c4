// Package mailtest runs a real SMTP server (go-smtp) in a test's process,
// on TCP with STARTTLS and a certificate of its own, that records what it
// is sent and can be told to answer the next mails with a temporary or a
// permanent refusal, or not at all.
package mailtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"net/mail"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Reply is how the server answers a mail's data.
type Reply int

// The replies.
const (
	Accept    Reply = iota // 250
	Temporary              // 451
	Permanent              // 550
	Hang                   // no answer until the server closes
)

// Options configure a Server.
type Options struct {
	// NoSTARTTLS: the server does not offer STARTTLS.
	NoSTARTTLS bool
	// User and Password, when set, are the only credentials accepted
	// (PLAIN, after STARTTLS).
	User, Password string
}

// Received is one mail's data as the server received it, with the reply
// it gave.
type Received struct {
	From  string
	To    []string
	Raw   []byte
	Reply Reply
	// At is when the server had the whole of the data.
	At time.Time
}

// Message parses the mail with net/mail.
func (r Received) Message(tb testing.TB) *mail.Message {
	tb.Helper()
	m, err := mail.ReadMessage(bytes.NewReader(r.Raw))
	if err != nil {
		tb.Fatalf("mailtest: parse the mail: %v", err)
	}
	return m
}

// Server is an SMTP server listening on 127.0.0.1.
type Server struct {
	opts   Options
	srv    *smtp.Server
	ln     net.Listener
	cert   *x509.Certificate
	closed chan struct{}

	mu       sync.Mutex
	script   []Reply
	received []Received
	changed  chan struct{}
}

// Start starts a server, closed when the test ends.
func Start(tb testing.TB, opts Options) *Server {
	tb.Helper()
	s := &Server{opts: opts, closed: make(chan struct{}), changed: make(chan struct{})}
	cert, tlsCert := newCertificate(tb)
	s.cert = cert
	s.srv = smtp.NewServer(backend{s})
	s.srv.Domain = "mailtest.localhost"
	s.srv.ReadTimeout, s.srv.WriteTimeout = time.Minute, time.Minute
	if !opts.NoSTARTTLS {
		s.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{tlsCert}}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("mailtest: listen: %v", err)
	}
	s.ln = ln
	go func() { _ = s.srv.Serve(ln) }()
	tb.Cleanup(s.Close)
	return s
}

// Close stops the server; a hanging answer ends.
func (s *Server) Close() {
	select {
	case <-s.closed:
		return
	default:
	}
	close(s.closed)
	_ = s.ln.Close()
	_ = s.srv.Close()
}

// URL is the server's smtp:// URL, with the options' credentials.
func (s *Server) URL() string { return s.URLWith("smtp") }

// URLWith is the server's URL with another scheme (smtp+insecure).
func (s *Server) URLWith(scheme string) string {
	u := url.URL{Scheme: scheme, Host: s.ln.Addr().String()}
	if s.opts.User != "" {
		u.User = url.UserPassword(s.opts.User, s.opts.Password)
	}
	return u.String()
}

// ClientTLS is a TLS configuration that trusts the server's certificate.
func (s *Server) ClientTLS() *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(s.cert)
	return &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
}

// Script sets the answers to the next mails, in order; the mails after
// them are accepted.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Received returns every mail's data received so far, refused ones
// included, in order.
func (s *Server) Received() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.received...)
}

// Accepted returns the mails accepted so far, in order.
func (s *Server) Accepted() []Received {
	var out []Received
	for _, r := range s.Received() {
		if r.Reply == Accept {
			out = append(out, r)
		}
	}
	return out
}

// WaitReceived waits until the server received n mails' data, and
// returns them; the test fails after timeout.
func (s *Server) WaitReceived(tb testing.TB, n int, timeout time.Duration) []Received {
	tb.Helper()
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		got, changed := append([]Received(nil), s.received...), s.changed
		s.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-changed:
		case <-deadline:
			tb.Fatalf("mailtest: %d mails received in %s, want %d", len(got), timeout, n)
		}
	}
}

// receive records a mail's data and returns the reply to give it.
func (s *Server) receive(r Received) Reply {
	r.At = time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Reply = Accept
	if len(s.script) > 0 {
		r.Reply, s.script = s.script[0], s.script[1:]
	}
	s.received = append(s.received, r)
	close(s.changed)
	s.changed = make(chan struct{})
	return r.Reply
}

type backend struct{ s *Server }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{s: b.s}, nil }

type session struct {
	s    *Server
	from string
	to   []string
}

func (ss *session) AuthMechanisms() []string {
	if ss.s.opts.User == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (ss *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, password string) error {
		if user != ss.s.opts.User || password != ss.s.opts.Password {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "Authentication failed"}
		}
		return nil
	}), nil
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	ss.from = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.to = append(ss.to, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	switch ss.s.receive(Received{From: ss.from, To: ss.to, Raw: raw}) {
	case Temporary:
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Try again later"}
	case Permanent:
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such user here"}
	case Hang:
		<-ss.s.closed
		return errors.New("closed")
	}
	return nil
}

func (ss *session) Reset() { ss.from, ss.to = "", nil }

func (ss *session) Logout() error { return nil }

// newCertificate makes a self-signed certificate for 127.0.0.1 and
// localhost.
func newCertificate(tb testing.TB) (*x509.Certificate, tls.Certificate) {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatalf("mailtest: key: %v", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "mailtest"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
		IsCA:         true,

		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatalf("mailtest: certificate: %v", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatalf("mailtest: certificate: %v", err)
	}
	return cert, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}
}
