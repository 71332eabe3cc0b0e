package history

import (
	"context"
	"fmt"
	"time"
)

// ParseTime reads a time as RFC 3339 (or a date), or as a duration back
// from now ("720h").
func ParseTime(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q: a duration back from now must not be negative", s)
		}
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is neither a time (2006-01-02T15:04:05Z07:00, 2006-01-02) nor a duration (720h)", bounded(s))
}

// Since reads when a digest starts: a time or duration (ParseTime), else a
// commit (or its prefix of at least 7 characters) whose first run among
// those f matches starts it.
func (s *Store) Since(ctx context.Context, f Filter, since string, now time.Time) (time.Time, error) {
	if t, err := ParseTime(since, now); err == nil {
		return t, nil
	}
	if len(since) >= 7 {
		first, ok, err := s.FirstRun(ctx, f, since)
		if err != nil {
			return first, err
		}
		if ok {
			return first, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time, a duration, or a commit (7 characters or more) with a run in the selected series", bounded(since))
}

// bounded keeps a quoted piece of user input short.
func bounded(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return s
}
