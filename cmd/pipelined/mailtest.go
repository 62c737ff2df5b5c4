package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"time"

	"github.com/pipeline-dev/pipeline/pipeline"
)

const mailTestDoc = `
Send one mail to ADDRESS with the configured PIPELINE_SMTP_URL and
PIPELINE_MAIL_FROM, as messages are sent, and print the server's answer as
JSON: {"to", "sent", "code", "error"}. Exit 1 when the mail was not taken.

Run it after changing the mail settings: a refused credential, a server
that refuses STARTTLS or a 5xx reply shows here at once, where a message
would fail.`

// runMailTest sends one mail with the configured settings and prints the
// server's answer.
func runMailTest(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	to := fs.String("to", "", "the address to send the test mail to")
	if err := parseFlagsOnly(e, fs, args, "to"); err != nil {
		return err
	}
	addr, err := mail.ParseAddress(*to)
	if err != nil {
		return usageErrorf(e, fs, "--to %q is not an email address", *to)
	}
	if e.cfg.SMTPURL == "" {
		return errors.New("mail is not configured: set PIPELINE_SMTP_URL and PIPELINE_MAIL_FROM")
	}
	cfg, err := e.cfg.withMailer(slog.New(slog.NewJSONHandler(e.stderr, nil)))
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	_, domain, _ := cutAt(cfg.MailFrom.Address)
	reply := cfg.Mailer.Send(ctx, pipeline.Mail{
		MessageID: fmt.Sprintf("<mail-test-%d@%s>", now.UnixNano(), domain),
		From:      cfg.MailFrom,
		To:        addr,
		Subject:   "pipelined mail test",
		Date:      now,
		Body:      "This mail tests the mail settings of pipelined. Nothing needs to be done.\n",
	})
	out := map[string]any{"to": addr.Address, "sent": reply.Sent(), "code": reply.Code, "error": nil}
	if reply.Err != nil {
		out["error"] = reply.Err.Error()
	}
	if err := json.NewEncoder(e.stdout).Encode(out); err != nil {
		return err
	}
	if !reply.Sent() {
		return fmt.Errorf("the mail was not sent: %v", reply.Err)
	}
	return nil
}

// cutAt splits an address at its last @.
func cutAt(address string) (local, domain string, ok bool) {
	for i := len(address) - 1; i >= 0; i-- {
		if address[i] == '@' {
			return address[:i], address[i+1:], true
		}
	}
	return address, "", false
}
