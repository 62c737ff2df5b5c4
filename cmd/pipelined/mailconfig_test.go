package main

import (
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfig_Mail(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	t.Run("unset: mail is not configured", func(t *testing.T) {
		cfg, err := loadConfig(env(nil))
		require.NoError(t, err)
		assert.Empty(t, cfg.SMTPURL)
		assert.Nil(t, cfg.MailFrom)
	})
	t.Run("a URL and a From", func(t *testing.T) {
		for _, u := range []string{"smtp://user:pw@mail.example.test", "smtps://mail.example.test:2465", "smtp+insecure://127.0.0.1", "log:"} {
			cfg, err := loadConfig(env(map[string]string{"PIPELINE_SMTP_URL": u, "PIPELINE_MAIL_FROM": "Acme Hiring <jobs@acme.example>"}))
			require.NoError(t, err, u)
			assert.Equal(t, u, cfg.SMTPURL)
			assert.Equal(t, "jobs@acme.example", cfg.MailFrom.Address)
			assert.Equal(t, "Acme Hiring", cfg.MailFrom.Name)
		}
	})
	t.Run("refused at start", func(t *testing.T) {
		for _, tc := range []struct {
			vars map[string]string
			want string
		}{
			{map[string]string{"PIPELINE_SMTP_URL": "http://u:topsecret@mail.example.test", "PIPELINE_MAIL_FROM": "jobs@acme.example"}, "PIPELINE_SMTP_URL"},
			{map[string]string{"PIPELINE_SMTP_URL": "smtp://u:topsecret@mail.example.test:0", "PIPELINE_MAIL_FROM": "jobs@acme.example"}, "PIPELINE_SMTP_URL"},
			{map[string]string{"PIPELINE_SMTP_URL": "smtp://mail.example.test"}, "PIPELINE_MAIL_FROM is required"},
			{map[string]string{"PIPELINE_SMTP_URL": "smtp://mail.example.test", "PIPELINE_MAIL_FROM": "not an address"}, "PIPELINE_MAIL_FROM"},
			{map[string]string{"PIPELINE_MAIL_FROM": "jobs@acme.example"}, "PIPELINE_SMTP_URL is not"},
		} {
			m := newMain(t, filepath.Join(t.TempDir(), "pipeline.db"))
			for k, v := range tc.vars {
				m.env[k] = v
			}
			_, stderr, err := m.Run("", "serve")
			require.Error(t, err, tc.vars)
			assert.Contains(t, stderr, tc.want, tc.vars)
			assert.NotContains(t, stderr, "topsecret", tc.vars)
		}
	})
}

// TestDemo_MailToTheLog: the demo sends messages through log:, each
// written to the server's log as JSON and marked sent.
func TestDemo_MailToTheLog(t *testing.T) {
	t.Parallel()
	d := startDemo(t, nil)
	ids := regexp.MustCompile(`/api/v1/jobs/(\d+)/candidates/(\d+)/stage`).FindStringSubmatch(d.srv.stdout.String())
	require.NotNil(t, ids)
	path := "/api/v1/jobs/" + ids[1] + "/candidates/" + ids[2] + "/messages"
	req, err := http.NewRequest("POST", d.srv.URL+path, strings.NewReader(`{"subject":"Hello from the demo","body":"Hi!"}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+d.env["PIPELINE_TOKEN"])
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	assert.Eventually(t, func() bool {
		logs := d.srv.stderr.String()
		return strings.Contains(logs, `"msg":"mail"`) && strings.Contains(logs, `"subject":"Hello from the demo"`)
	}, 30*time.Second, 50*time.Millisecond, "the mail is in the log")
}
