package main

import "time"

// timestamp is t as the API shows times: UTC, whole seconds, so that it
// marshals as RFC 3339 like "2026-01-05T10:00:00Z".
func timestamp(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

func optionalTimestamp(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := timestamp(*t)
	return &u
}
