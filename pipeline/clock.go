package pipeline

import "time"

// Clock tells the time. Tests substitute a fixed clock.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock, in UTC.
type SystemClock struct{}

// Now returns the current time in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// ClockFunc adapts a function to a Clock.
type ClockFunc func() time.Time

// Now calls f.
func (f ClockFunc) Now() time.Time { return f() }

// Date truncates t to its calendar day in UTC.
func Date(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// AddMonths adds n calendar months to t; a day that does not exist in the
// target month becomes that month's last day (31 August + 6 months is the end
// of February), so an expiry never spills into the month after.
func AddMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	first := time.Date(y, m+time.Month(n), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
	last := first.AddDate(0, 1, -1).Day()
	return first.AddDate(0, 0, min(d, last)-1)
}
