package history

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/metrics"
)

// NoMatch explains why no series of the history matches f, as an error
// that names the flag and quotes its value: a metric perfgate does not
// measure, or a test, step, metric or device the history holds no series
// of, with the names closest to it and the names there are. It is nil when
// each value alone matches some series (only their combination, the
// branches or the time matches none), and for a history without runs.
func (s *Store) NoMatch(ctx context.Context, f Filter) error {
	if f.Metric != "" && !metrics.Name(f.Metric).Known() {
		names := make([]string, 0, len(metrics.Catalogue()))
		for _, d := range metrics.Catalogue() {
			names = append(names, string(d.Name))
		}
		return unknownName("-metric", f.Metric, "is no metric perfgate measures", names)
	}
	keys, err := s.Keys(ctx, Filter{})
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil // a new history: nothing to name
	}
	for _, c := range []struct {
		flag, value string
		of          func(Key) string
	}{
		{"-test", f.Test, func(k Key) string { return k.Test }},
		{"-step", f.Step, func(k Key) string { return k.Step }},
		{"-metric", f.Metric, func(k Key) string { return k.Metric }},
		{"-device", f.Device, func(k Key) string { return k.Device }},
	} {
		if c.value == "" {
			continue
		}
		var held []string
		for _, k := range keys {
			held = append(held, c.of(k))
		}
		slices.Sort(held)
		held = slices.Compact(held)
		if !slices.Contains(held, c.value) {
			return unknownName(c.flag, c.value, "matches no series of history "+s.String(), held)
		}
	}
	return nil
}

// unknownName is the error for a flag's value that is none of names:
// `-metric "jnak" is no metric perfgate measures; did you mean jank? (one
// of: …)`.
func unknownName(flag, value, why string, names []string) error {
	msg := fmt.Sprintf("%s %s %s", flag, excerpt.Quote(value), why)
	if near := closest(value, names); len(near) > 0 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	}
	const most = 40
	list := names
	if len(list) > most {
		list = append(list[:most:most], fmt.Sprintf("… %d more", len(names)-most))
	}
	return fmt.Errorf("%s (one of: %s)", msg, strings.Join(list, ", "))
}

// closest is the names nearest to s by edit distance, case aside: those
// at the least distance, when it is at most a third of s's length (and at
// least 1), or the names that hold s or that s holds.
func closest(s string, names []string) []string {
	ls := strings.ToLower(s)
	best, out := max(1, len([]rune(s))/3), []string(nil)
	for _, n := range names {
		d := excerpt.EditDistance(ls, strings.ToLower(n))
		switch {
		case d > best:
		case len(out) == 0 || d < best:
			best, out = d, []string{n}
		default:
			out = append(out, n)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, n := range names {
		if ln := strings.ToLower(n); ls != "" && (strings.Contains(ln, ls) || strings.Contains(ls, ln)) {
			out = append(out, n)
		}
	}
	return out
}
