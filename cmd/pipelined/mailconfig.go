package main

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/pipeline-dev/pipeline/pipeline"
	"github.com/pipeline-dev/pipeline/pipeline/mail"
)

// logMail is the SMTP URL that writes mails to the server's log instead
// of sending them: for development, since the log then holds sign-in
// links.
const logMail = "log:"

// loadMailConfig reads PIPELINE_SMTP_URL and PIPELINE_MAIL_FROM into cfg:
// a URL that is not one the mailer takes, or a URL without a From
// address, refuses to start.
func loadMailConfig(getenv func(string) string, cfg *config) error {
	raw, from := getenv("PIPELINE_SMTP_URL"), getenv("PIPELINE_MAIL_FROM")
	if raw == "" {
		if from != "" {
			return errors.New("PIPELINE_MAIL_FROM is set but PIPELINE_SMTP_URL is not: set both to send email, or neither")
		}
		return nil
	}
	if _, err := mail.New(raw); err != nil {
		return fmt.Errorf("PIPELINE_SMTP_URL: %w", err)
	}
	if from == "" {
		return errors.New("PIPELINE_MAIL_FROM is required with PIPELINE_SMTP_URL: the From address of the mail, such as Acme Hiring <jobs@acme.example>")
	}
	a, err := pipeline.ParseFrom(from)
	if err != nil {
		return fmt.Errorf("PIPELINE_MAIL_FROM: %w", err)
	}
	cfg.SMTPURL, cfg.MailFrom = raw, a
	return nil
}

// withMailer is cfg with the Mailer of its SMTP URL, which writes to
// logger for log:; cfg as it is without one.
func (cfg config) withMailer(logger *slog.Logger) (config, error) {
	if cfg.SMTPURL == "" {
		return cfg, nil
	}
	m, err := mail.New(cfg.SMTPURL, mail.WithLogger(logger))
	if err != nil {
		return cfg, fmt.Errorf("PIPELINE_SMTP_URL: %w", err)
	}
	cfg.Mailer = m
	return cfg, nil
}

// startPostman is the Postman of the configuration, nil without mail.
func startPostman(cfg config, store pipeline.Store) (*pipeline.Postman, error) {
	if cfg.Mailer == nil {
		return nil, nil
	}
	return pipeline.NewPostman(store, cfg.domainOptions()...)
}
