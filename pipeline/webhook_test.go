package pipeline_test

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pipeline-dev/pipeline/pipeline"
)

func TestParseSecretKey(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("0f", 32),
		"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
		"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
	} {
		_, err := pipeline.ParseSecretKey(s)
		assert.NoError(t, err, s)
	}
	for _, s := range []string{"", "short", strings.Repeat("0f", 31), strings.Repeat("zz", 32)} {
		_, err := pipeline.ParseSecretKey(s)
		assert.Error(t, err, s)
	}
}

func TestForbiddenAddress(t *testing.T) {
	for addr, forbidden := range map[string]bool{
		"127.0.0.1": true, "::1": true, "10.0.0.1": true, "172.16.5.4": true, "192.168.1.1": true,
		"169.254.169.254": true, "fe80::1": true, "0.0.0.0": true, "::": true, "fd00::1": true,
		"::ffff:10.0.0.1": true, "93.184.215.14": false, "2606:4700::1111": false,
	} {
		assert.Equal(t, forbidden, pipeline.ForbiddenAddress(netip.MustParseAddr(addr)), addr)
	}
}

func TestWebhookPolicy_CheckURL(t *testing.T) {
	ctx := context.Background()
	strict := pipeline.WebhookPolicy{}
	assert.NoError(t, strict.CheckURL(ctx, "https://93.184.215.14/hook"))
	for _, u := range []string{"", "http://93.184.215.14/", "https://10.0.0.1/", "//93.184.215.14/", "mailto:x@y.z",
		"https://u@93.184.215.14/", "https://93.184.215.14/#x", "https:///path", "https://" + strings.Repeat("a", 2050)} {
		assert.Contains(t, pipeline.Fields(strict.CheckURL(ctx, u)), "url", u)
	}
	open := pipeline.WebhookPolicy{AllowHTTP: true, AllowPrivate: true}
	assert.NoError(t, open.CheckURL(ctx, "http://127.0.0.1:8080/hook"))
	assert.Error(t, open.CheckURL(ctx, "ftp://127.0.0.1/"))
}

func TestRetrySchedule(t *testing.T) {
	d := pipeline.NewDispatcher(nil, nil)
	var waits []time.Duration
	for attempt := 1; ; attempt++ {
		wait, ok := d.RetryAfter(attempt)
		if !ok {
			break
		}
		waits = append(waits, wait)
	}
	assert.Equal(t, []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
		5 * time.Hour, 10 * time.Hour, 10 * time.Hour}, waits)
	require.Equal(t, 8, d.MaxAttempts())
	assert.Equal(t, "msg_42_7", pipeline.WebhookMessage{WebhookID: 7, ActivityID: 42}.ID())
}

// webhookProbes call the operations of this file's resource for the tables of
// operations (see probe).
var webhookProbes = []operation{
	{pipeline.OpCreateWebhook, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.CreateWebhook(ctx, pipeline.NewWebhook{URL: pick(p, "https://hooks.example.test/probe", ""), Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
	{pipeline.OpListWebhooks, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.ListWebhooks(ctx, pick(p, 1, -1))
		return err
	}},
	{pipeline.OpGetWebhook, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.GetWebhook(ctx, p.ref.Webhook)
		return err
	}},
	{pipeline.OpDeleteWebhook, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.DeleteWebhook(ctx, p.ref.Webhook, pipeline.WebhookDeletion{Idempotency: p.idem, Reasoned: pipeline.Reasoned{Reason: p.reason}})
		return err
	}},
	{pipeline.OpListWebhookDeliveries, func(ctx context.Context, svc *pipeline.Service, p probe) error {
		_, err := svc.ListWebhookDeliveries(ctx, p.ref.Webhook, pick(p, 1, -1))
		return err
	}},
}
