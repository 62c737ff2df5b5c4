package main

import (
	"cmp"
	"fmt"
	netmail "net/mail"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/ical"
	"github.com/pipeline-dev/pipeline/pipelinestore"
)

// Defaults of the operator contract (decisions §8).
const (
	defaultDB   = "pipeline.db"
	defaultAddr = "127.0.0.1:8080"
)

// Default deadlines of the server.
const (
	defaultReadTimeout     = 30 * time.Second
	defaultRequestTimeout  = 10 * time.Second
	defaultShutdownTimeout = 20 * time.Second
)

// config is the configuration read from the environment. Command flags of
// the same meaning start from these values and override them.
type config struct {
	DB        string // PIPELINE_DB: a postgres:// URL or a SQLite path
	Addr      string // PIPELINE_ADDR: listen address
	BaseURL   string // PIPELINE_BASE_URL: scheme and host of pagination links
	RateLimit int    // PIPELINE_RATE_LIMIT: requests per minute per user
	MaxConns  int    // PIPELINE_DB_MAX_CONNS: database pool size; 0: the store's default
	// Pooled is PIPELINE_DB_POOLER=transaction: a transaction pooler stands
	// between the server and PostgreSQL, so nothing may be kept on a server
	// connection.
	Pooled bool
	// PIPELINE_AUTO_MIGRATE: whether commands apply pending migrations
	// first.
	AutoMigrate bool
	// PIPELINE_TRUSTED_PROXIES: proxies whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// PIPELINE_METRICS_ADDR: listen address of /metrics and /debug/pprof/;
	// "" is off.
	MetricsAddr string

	WebhookWorkers      int                 // PIPELINE_WEBHOOK_WORKERS: deliveries at once; 0: none here
	WebhookAllowHTTP    bool                // PIPELINE_WEBHOOK_ALLOW_HTTP: http:// webhook URLs too
	WebhookAllowPrivate bool                // PIPELINE_WEBHOOK_ALLOW_PRIVATE: private addresses too
	SecretKey           *pipeline.SecretKey // PIPELINE_SECRET_KEY: seals webhook secrets; nil: none

	SMTPURL  string           // PIPELINE_SMTP_URL: where mail goes; "": mail is not configured
	MailFrom *netmail.Address // PIPELINE_MAIL_FROM: the From address, required with PIPELINE_SMTP_URL
	// Mailer sends mail to SMTPURL, made where the server's log is known
	// (withMailer); nil: none.
	Mailer pipeline.Mailer

	// PIPELINE_DOCUMENT_MAX_BYTES: the largest document file an upload
	// takes.
	DocumentMaxBytes int64
	// PIPELINE_BLOB_URL, with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY:
	// the object store of documents' bytes; nil: the database.
	Blobs *pipelinestore.S3

	ReadTimeout     time.Duration // PIPELINE_READ_TIMEOUT: to receive a whole request
	RequestTimeout  time.Duration // PIPELINE_REQUEST_TIMEOUT: each request's deadline
	ShutdownTimeout time.Duration // PIPELINE_SHUTDOWN_TIMEOUT: to drain requests on a stop
	// PIPELINE_SHUTDOWN_DELAY: how long a stop keeps serving, /readyz
	// answering 503, before it stops accepting; 0: none.
	ShutdownDelay time.Duration
}

// defaultWebhookWorkers is how many deliveries a replica makes at once.
const defaultWebhookWorkers = 4

// loadConfig reads the PIPELINE_* variables through getenv. An empty
// variable takes its default; a malformed one is an error.
func loadConfig(getenv func(string) string) (config, error) {
	cfg := config{
		DB:          cmp.Or(getenv("PIPELINE_DB"), defaultDB),
		Addr:        cmp.Or(getenv("PIPELINE_ADDR"), defaultAddr),
		RateLimit:   pipeline.DefaultRateLimit,
		AutoMigrate: true,
		MetricsAddr: getenv("PIPELINE_METRICS_ADDR"),

		WebhookWorkers: defaultWebhookWorkers,

		ReadTimeout:     defaultReadTimeout,
		RequestTimeout:  defaultRequestTimeout,
		ShutdownTimeout: defaultShutdownTimeout,
	}
	if raw := getenv("PIPELINE_BASE_URL"); raw != "" {
		base, err := parseBaseURL(raw)
		if err != nil {
			return config{}, fmt.Errorf("PIPELINE_BASE_URL: %w", err)
		}
		cfg.BaseURL = base
	}
	if raw := getenv("PIPELINE_RATE_LIMIT"); raw != "" {
		n, err := parsePositive(raw, "requests per minute")
		if err != nil {
			return config{}, fmt.Errorf("PIPELINE_RATE_LIMIT: %w", err)
		}
		cfg.RateLimit = n
	}
	if raw := getenv("PIPELINE_DOCUMENT_MAX_BYTES"); raw != "" {
		n, err := parsePositive(raw, "bytes")
		if err != nil {
			return config{}, fmt.Errorf("PIPELINE_DOCUMENT_MAX_BYTES: %w", err)
		}
		cfg.DocumentMaxBytes = int64(n)
	}
	if raw := getenv("PIPELINE_DB_MAX_CONNS"); raw != "" {
		n, err := parsePositive(raw, "connections")
		if err != nil {
			return config{}, fmt.Errorf("PIPELINE_DB_MAX_CONNS: %w", err)
		}
		cfg.MaxConns = n
	}
	switch raw := getenv("PIPELINE_DB_POOLER"); raw {
	case "", "none":
	case "transaction":
		cfg.Pooled = true
	default:
		return config{}, fmt.Errorf("PIPELINE_DB_POOLER: %q is neither transaction nor none", raw)
	}
	if raw := getenv("PIPELINE_AUTO_MIGRATE"); raw != "" {
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return config{}, fmt.Errorf("PIPELINE_AUTO_MIGRATE: %q is neither true nor false", raw)
		}
		cfg.AutoMigrate = b
	}
	if raw := getenv("PIPELINE_TRUSTED_PROXIES"); raw != "" {
		p, err := parseProxies(raw)
		if err != nil {
			return config{}, fmt.Errorf("PIPELINE_TRUSTED_PROXIES: %w", err)
		}
		cfg.TrustedProxies = p
	}
	if err := loadWebhookConfig(getenv, &cfg); err != nil {
		return config{}, err
	}
	if err := loadTimeouts(getenv, &cfg); err != nil {
		return config{}, err
	}
	if err := loadBlobConfig(getenv, &cfg); err != nil {
		return config{}, err
	}
	if err := loadMailConfig(getenv, &cfg); err != nil {
		return config{}, err
	}
	return cfg, nil
}

// loadTimeouts reads the PIPELINE_*_TIMEOUT variables into cfg.
func loadTimeouts(getenv func(string) string, cfg *config) error {
	for name, into := range map[string]*time.Duration{
		"PIPELINE_READ_TIMEOUT":     &cfg.ReadTimeout,
		"PIPELINE_REQUEST_TIMEOUT":  &cfg.RequestTimeout,
		"PIPELINE_SHUTDOWN_TIMEOUT": &cfg.ShutdownTimeout,
		"PIPELINE_SHUTDOWN_DELAY":   &cfg.ShutdownDelay,
	} {
		if raw := getenv(name); raw != "" {
			d, err := parseDuration(raw)
			if name == "PIPELINE_SHUTDOWN_DELAY" && (raw == "0" || raw == "0s") {
				d, err = 0, nil // the default, said: no delay
			}
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			*into = d
		}
	}
	if cfg.RequestTimeout > cfg.ReadTimeout {
		// Go's server ends a request's context when its read deadline
		// passes, even while the handler still works.
		return fmt.Errorf("PIPELINE_REQUEST_TIMEOUT (%s) may not be longer than PIPELINE_READ_TIMEOUT (%s), "+
			"which also ends the requests that run longer", cfg.RequestTimeout, cfg.ReadTimeout)
	}
	return nil
}

// parseProxies reads comma-separated CIDR prefixes, or single addresses
// (a prefix of the address alone).
func parseProxies(raw string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for part := range strings.SplitSeq(raw, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if p, err := netip.ParsePrefix(part); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an IP address nor a CIDR prefix such as 10.0.0.0/8", part)
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// loadWebhookConfig reads the PIPELINE_WEBHOOK_* variables and the secret
// key into cfg.
func loadWebhookConfig(getenv func(string) string, cfg *config) error {
	if raw := getenv("PIPELINE_WEBHOOK_WORKERS"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 0 {
			return fmt.Errorf("PIPELINE_WEBHOOK_WORKERS: %q is not a whole number of workers (0 or more)", raw)
		}
		cfg.WebhookWorkers = n
	}
	for name, into := range map[string]*bool{
		"PIPELINE_WEBHOOK_ALLOW_HTTP":    &cfg.WebhookAllowHTTP,
		"PIPELINE_WEBHOOK_ALLOW_PRIVATE": &cfg.WebhookAllowPrivate,
	} {
		if raw := getenv(name); raw != "" {
			b, err := strconv.ParseBool(raw)
			if err != nil {
				return fmt.Errorf("%s: %q is not true or false", name, raw)
			}
			*into = b
		}
	}
	if raw := getenv("PIPELINE_SECRET_KEY"); raw != "" {
		k, err := pipeline.ParseSecretKey(raw)
		if err != nil {
			return fmt.Errorf("PIPELINE_SECRET_KEY: %w", err)
		}
		cfg.SecretKey = k
	}
	return nil
}

// domainOptions are the Service's and the Dispatcher's options that the
// configuration sets.
func (cfg config) domainOptions() []pipeline.Option {
	return []pipeline.Option{
		pipeline.WithWebhookPolicy(pipeline.WebhookPolicy{AllowHTTP: cfg.WebhookAllowHTTP, AllowPrivate: cfg.WebhookAllowPrivate}),
		pipeline.WithSecretKey(cfg.SecretKey),
		pipeline.WithMail(cfg.MailFrom, cfg.Mailer),
		pipeline.WithInvitations(ical.Render),
		pipeline.WithCalendar(pipeline.Calendar{Domain: cfg.calendarDomain()}),
	}
}

// calendarDomain completes the UIDs of interviews scheduled without mail:
// the host of PIPELINE_BASE_URL, else localhost.
func (cfg config) calendarDomain() string {
	if u, err := url.Parse(cfg.BaseURL); err == nil && u.Hostname() != "" {
		return u.Hostname()
	}
	return "localhost"
}

// parseDuration reads a positive duration: Go's notation ("500ms", "30s",
// "1m30s") or a whole number of seconds.
func parseDuration(raw string) (time.Duration, error) {
	d, err := time.ParseDuration(raw)
	if n, nerr := strconv.Atoi(raw); err != nil && nerr == nil {
		d, err = time.Duration(n)*time.Second, nil
	}
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration, such as 30s, 500ms or 30 (seconds)", raw)
	}
	return d, nil
}

// parsePositive reads a whole number of what, 1 or more.
func parsePositive(raw, what string) (int, error) {
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not a whole number of %s (1 or more)", raw, what)
	}
	return n, nil
}

// parseBaseURL accepts an absolute http or https URL of a scheme, a host
// (a port allowed) and optionally a path, for a proxy that serves the API
// below one, and returns it without a trailing slash. A query, a fragment
// or user information is refused, not ignored: links append the request's
// path, which would break them.
func parseBaseURL(raw string) (string, error) {
	const want = "give a scheme, a host and optionally a path, such as https://api.example.com or https://example.com/hiring"
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", fmt.Errorf("%q is not an absolute http or https URL with a host; %s", raw, want)
	}
	switch {
	case u.User != nil:
		return "", fmt.Errorf("%q has user information; %s", u.Redacted(), want)
	case strings.ContainsAny(raw, "?#"):
		return "", fmt.Errorf("%q has a query or a fragment; %s", raw, want)
	}
	return u.Scheme + "://" + u.Host + strings.TrimRight(u.EscapedPath(), "/"), nil
}
