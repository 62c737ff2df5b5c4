package pipeline

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestAddMonths(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct{ from, want string }{
		{"2026-01-15T10:00:00Z", "2026-07-15T10:00:00Z"},
		{"2026-08-31T23:59:59Z", "2027-02-28T23:59:59Z"},
		{"2027-08-31T00:00:00Z", "2028-02-29T00:00:00Z"},
		{"2026-12-31T12:00:00Z", "2027-06-30T12:00:00Z"},
		{"2026-07-01T00:00:00Z", "2027-01-01T00:00:00Z"},
	} {
		assert.Equal(t, at(tc.want), AddMonths(at(tc.from), TokenLifetime), tc.from)
	}
}

func TestDate(t *testing.T) {
	in := time.Date(2026, 3, 4, 23, 30, 0, 0, time.FixedZone("x", -2*3600))
	assert.Equal(t, time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC), Date(in))
}
