package pipeline

import (
	"sync"
	"time"
)

// tokenCache keeps what the Service read of tokens, by hash, for a short
// time. Stale entries are swept as new ones arrive, so it holds about the
// tokens used within the last ttl.
type tokenCache struct {
	mu      sync.Mutex
	entries map[string]cachedToken
	swept   time.Time
}

type cachedToken struct {
	auth TokenAuth
	read time.Time
}

func (c *tokenCache) get(hash string, now time.Time, ttl time.Duration) (TokenAuth, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[hash]
	if !ok || now.Sub(e.read) >= ttl || now.Before(e.read) {
		return TokenAuth{}, false
	}
	return e.auth, true
}

func (c *tokenCache) put(hash string, a TokenAuth, now time.Time, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]cachedToken{}
	}
	if now.Sub(c.swept) >= ttl {
		for h, e := range c.entries {
			if now.Sub(e.read) >= ttl {
				delete(c.entries, h)
			}
		}
		c.swept = now
	}
	c.entries[hash] = cachedToken{auth: a, read: now}
}

// forget drops what was read of token id, so that its revocation here
// takes effect at once.
func (c *tokenCache) forget(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for h, e := range c.entries {
		if e.auth.Token.ID == id {
			delete(c.entries, h)
		}
	}
}
