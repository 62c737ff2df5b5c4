package pipelinehttp

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

// Headers of a webhook delivery, per Standard Webhooks 1.0.
const (
	HeaderWebhookID        = "webhook-id"
	HeaderWebhookTimestamp = "webhook-timestamp"
	HeaderWebhookSignature = "webhook-signature"
)

// WebhookSenderConfig configures NewWebhookSender. The zero value sends to
// public addresses only, within pipeline.DeliveryTimeout.
type WebhookSenderConfig struct {
	// AllowPrivate lets deliveries connect to loopback, private, link-local
	// and unspecified addresses.
	AllowPrivate bool
	// UserAgent names the sender; "" is "pipelined".
	UserAgent string
	// Timeout bounds an attempt, connection to answer; 0 is
	// pipeline.DeliveryTimeout.
	Timeout time.Duration
	// Clock tells the time of webhook-timestamp; nil is the system clock.
	Clock pipeline.Clock
}

// WebhookSender is the pipeline.Sender of deliveries: it POSTs each message
// as JSON, signed as Standard Webhooks 1.0 says, and follows no redirect.
// Unless private addresses are allowed, it refuses to connect to one
// whatever the URL's host resolves to at that moment.
type WebhookSender struct {
	client    *http.Client
	userAgent string
	clock     pipeline.Clock
}

var _ pipeline.Sender = (*WebhookSender)(nil)

// errPrivateAddress refuses a connection the policy forbids.
var errPrivateAddress = errors.New("refused to connect to a loopback, private, link-local or unspecified address")

// NewWebhookSender returns a sender configured by cfg.
func NewWebhookSender(cfg WebhookSenderConfig) *WebhookSender {
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = pipeline.DeliveryTimeout
	}
	dialer := &net.Dialer{Timeout: timeout}
	if !cfg.AllowPrivate {
		// Control sees the address resolved for this very connection.
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || pipeline.ForbiddenAddress(ap.Addr()) {
				return errPrivateAddress
			}
			return nil
		}
	}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would connect on our behalf, past the check
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       time.Minute,
	}
	s := &WebhookSender{
		client: &http.Client{
			Transport:     transport,
			Timeout:       timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		userAgent: cfg.UserAgent,
		clock:     cfg.Clock,
	}
	if s.userAgent == "" {
		s.userAgent = "pipelined"
	}
	if s.clock == nil {
		s.clock = pipeline.SystemClock{}
	}
	return s
}

// webhookBody is what a delivery POSTs.
type webhookBody struct {
	Type      string    `json:"type"`
	Timestamp string    `json:"timestamp"`
	Data      entryItem `json:"data"`
}

// Send POSTs one attempt of o and reports the answer.
func (s *WebhookSender) Send(ctx context.Context, o pipeline.Outgoing) pipeline.Reply {
	body, err := encode(webhookBody{Type: o.Entry.Action, Timestamp: pipeline.FormatTime(o.Entry.CreatedAt), Data: newEntryItem(o.Entry)})
	if err != nil {
		return pipeline.Reply{Err: err}
	}
	ts := strconv.FormatInt(s.clock.Now().Unix(), 10)
	sig, err := SignWebhook(o.Secret, o.MessageID, ts, body)
	if err != nil {
		return pipeline.Reply{Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.URL, bytes.NewReader(body))
	if err != nil {
		return pipeline.Reply{Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.userAgent)
	req.Header.Set(HeaderWebhookID, o.MessageID)
	req.Header.Set(HeaderWebhookTimestamp, ts)
	req.Header.Set(HeaderWebhookSignature, sig)
	start := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		return pipeline.Reply{Err: deliveryError(err), Duration: time.Since(start)}
	}
	// Read a little of the answer so that the connection can be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return pipeline.Reply{StatusCode: resp.StatusCode, Duration: time.Since(start)}
}

// deliveryError is err as the deliveries show it: a sentence saying what
// went wrong, without Go's account of the request.
func deliveryError(err error) error {
	var ne net.Error
	var ue *url.Error
	switch {
	case errors.Is(err, errPrivateAddress):
		return errors.New("Not sent: " + errPrivateAddress.Error() + ".")
	case errors.As(err, &ne) && ne.Timeout():
		return errors.New("The receiver did not answer in time.")
	case errors.As(err, &ue):
		return errors.New("The request failed: " + ue.Err.Error() + ".")
	}
	return err
}

// SignWebhook returns the webhook-signature of a message as Standard
// Webhooks 1.0 defines it: "v1," and the base64 of the HMAC-SHA256, keyed
// with the secret's bytes (the base64 after its whsec_ prefix), of the
// message id, the timestamp and the body joined by dots.
func SignWebhook(secret, msgID, timestamp string, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, pipeline.WebhookSecretPrefix))
	if err != nil {
		return "", errors.New("the webhook's secret is not base64")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msgID + "." + timestamp + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}
