package pipeline

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// MaxWebhookURLLength is the longest webhook URL, in bytes.
const MaxWebhookURLLength = 2048

// WebhookPolicy says which URLs webhooks may be sent to. The zero value is
// the strict default: https only, to public addresses only.
type WebhookPolicy struct {
	// AllowHTTP accepts http:// URLs besides https://.
	AllowHTTP bool
	// AllowPrivate accepts hosts that resolve to loopback, private,
	// link-local or unspecified addresses.
	AllowPrivate bool
	// Resolver resolves host names; nil is net.DefaultResolver.
	Resolver *net.Resolver
}

// ForbiddenAddress reports whether ip is an address webhooks are not sent to
// unless the operator allows private addresses: loopback, private (RFC 1918
// and IPv6 unique local), link-local, or unspecified, IPv4 addresses
// written as IPv6 included.
func ForbiddenAddress(ip netip.Addr) bool {
	ip = ip.Unmap()
	return !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsUnspecified() || ip.IsInterfaceLocalMulticast()
}

// CheckURL reports, as a validation error on "url", what is wrong with raw
// as a webhook URL: it must be absolute https (http only when allowed),
// with a host and without user information or a fragment, and unless
// private addresses are allowed, every address its host resolves to now
// must be public. Delivery checks the address again when it connects.
func (p WebhookPolicy) CheckURL(ctx context.Context, raw string) error {
	bad := func(msg string) error { return Invalid("url", msg) }
	u, err := url.Parse(raw)
	switch {
	case strings.TrimSpace(raw) == "":
		return bad("The url field is required.")
	case len(raw) > MaxWebhookURLLength:
		return bad("The url may not be longer than 2048 bytes.")
	case err != nil || !u.IsAbs() || u.Opaque != "":
		return bad("The url must be an absolute URL.")
	case u.Scheme != "https" && !(p.AllowHTTP && u.Scheme == "http"):
		if p.AllowHTTP {
			return bad("The url must use https or http.")
		}
		return bad("The url must use https.")
	case u.Hostname() == "":
		return bad("The url must name a host.")
	case u.User != nil:
		return bad("The url may not carry user information; authenticate deliveries by their signature.")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return bad("The url may not have a fragment.")
	}
	if p.AllowPrivate {
		return nil
	}
	addrs, err := p.resolve(ctx, u.Hostname())
	if err != nil || len(addrs) == 0 {
		return bad("The url's host cannot be resolved.")
	}
	for _, a := range addrs {
		if ForbiddenAddress(a) {
			return bad("The url's host resolves to a loopback, private, link-local or unspecified address.")
		}
	}
	return nil
}

func (p WebhookPolicy) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{ip}, nil
	}
	r := p.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	return r.LookupNetIP(ctx, "ip", host)
}
