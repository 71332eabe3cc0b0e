package history

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// DigestOptions shape a digest.
type DigestOptions struct {
	// Title heads it; default "perfgate history".
	Title string
	// Since keeps the change points whose new level began at or after it;
	// zero keeps all.
	Since time.Time
	// MinPct leaves out changes smaller than this, in percent.
	MinPct float64
	// TrendLink, when set, is where the trend pages are (a folder or URL
	// holding <metric>.html).
	TrendLink string
}

// DigestEntry is one change point of a digest.
type DigestEntry struct {
	Key    Key
	Unit   string
	Change Change
}

// Digest lists the change points of trends that o keeps: regressions
// first, then improvements, then context metrics, each by size.
func Digest(trends []Trend, o DigestOptions) []DigestEntry {
	var out []DigestEntry
	for _, t := range trends {
		for _, c := range t.Changes {
			if !o.Since.IsZero() && c.First.Time.Before(o.Since) || math.Abs(c.ChangePct) < o.MinPct {
				continue
			}
			out = append(out, DigestEntry{Key: t.Key, Unit: t.Unit, Change: c})
		}
	}
	rank := func(e DigestEntry) int {
		switch {
		case e.Change.Regression:
			return 0
		case e.Change.Improvement:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(out, func(a, b DigestEntry) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(math.Abs(b.Change.ChangePct), math.Abs(a.Change.ChangePct)))
	})
	return out
}

// WriteDigest writes the change points of trends as Markdown, for a pull
// request, $GITHUB_STEP_SUMMARY or a weekly job:
//
//   - ❌ **frame_time_p95 of scroll rose 18% at abc1234, p = 0.001** (TestFeed, Pixel 7): 18.2 ms → 21.5 ms (…)
func WriteDigest(w io.Writer, trends []Trend, o DigestOptions) error {
	var b strings.Builder
	title := o.Title
	if title == "" {
		title = "perfgate history"
	}
	fmt.Fprintf(&b, "## %s\n\n", mdText(title))
	runs := 0
	for _, t := range trends {
		runs = max(runs, t.Len())
	}
	entries := Digest(trends, o)
	scope := ""
	if !o.Since.IsZero() {
		scope = " since " + o.Since.UTC().Format(time.RFC3339)
	}
	if len(entries) == 0 {
		fmt.Fprintf(&b, "No change points%s in %d series (up to %d runs each).\n", scope, len(trends), runs)
	} else {
		regressions := 0
		for _, e := range entries {
			if e.Change.Regression {
				regressions++
			}
		}
		fmt.Fprintf(&b, "%d change points%s in %d series (up to %d runs each), %d of them for the worse.\n\n", len(entries), scope, len(trends), runs, regressions)
		for _, e := range entries {
			mark := "➖"
			switch {
			case e.Change.Regression:
				mark = "❌"
			case e.Change.Improvement:
				mark = "✅"
			}
			link := ""
			if o.TrendLink != "" {
				link = fmt.Sprintf(" [trend](%s/%s.html)", strings.TrimSuffix(o.TrendLink, "/"), PageName(e.Key.Metric))
			}
			fmt.Fprintf(&b, "- %s **%s** (%s, %s): %s%s\n", mark, mdText(e.Change.Sentence(e.Key)), mdText(e.Key.Test), mdText(deviceName(e.Key.Device)), mdText(e.Change.Detail(e.Unit)), link)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdText escapes the characters Markdown would act on in free text.
func mdText(s string) string {
	r := strings.NewReplacer("\\", "\\\\", "*", "\\*", "_", "\\_", "`", "\\`", "[", "\\[", "]", "\\]", "<", "&lt;", ">", "&gt;", "|", "\\|", "\n", " ")
	return r.Replace(s)
}
