package main

import (
	"context"
	"fmt"
	"net"

	"github.com/pipeline-dev/pipeline/pipeline"
)

const signInLinkDoc = `
Print a one-time sign-in link to the people's pages (/app/) for the user
with that email, to hand over without mail: it works once, within 15
minutes, and only its hash is stored.

The link is on PIPELINE_BASE_URL, else on the listen address
(PIPELINE_ADDR, or -addr), as a server there would serve it; a listen
address of port 0 names no address, and PIPELINE_BASE_URL is needed. An
unknown email is an error (exit 1).`

func runSignInLink(ctx context.Context, e env, args []string) error {
	fs := newFlagSet(e)
	withDB(&e, fs)
	fs.StringVar(&e.cfg.Addr, "addr", e.cfg.Addr, "listen address the link names without PIPELINE_BASE_URL (PIPELINE_ADDR)")
	email := fs.String("email", "", "email of the user the link signs in")
	if err := parseFlagsOnly(e, fs, args, "email"); err != nil {
		return err
	}
	base, err := pagesBase(e.cfg.BaseURL, e.cfg.Addr)
	if err != nil {
		return err
	}
	return withOperator(ctx, e.cfg, writes, func(op *pipeline.Operator) error {
		secret, err := op.SignInLink(ctx, *email)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(e.stdout, pipeline.SignInURL(base, secret))
		return err
	})
}

// pagesBase is where the pages are reached: PIPELINE_BASE_URL, else the
// listen address, an unspecified host made loopback. A listen address of
// port 0, which a server makes another port each time, names none.
func pagesBase(baseURL, addr string) (string, error) {
	if baseURL != "" {
		return baseURL, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr, nil
	}
	if port == "0" {
		return "", fmt.Errorf("the listen address %s has no fixed port: set PIPELINE_BASE_URL to where the server is reached", addr)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port), nil
}
