// Package sessview holds the parts of a session's HTML page that stand
// apart from its charts: the facts of a session, the names that tell
// several runs of one test apart, the unit a byte chart is drawn in, and
// the table that sums up repeated runs of a test, and the index of a
// report folder.
package sessview

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/result"
)

// Fact is one row of a key-value table.
type Fact struct{ Key, Value string }

// Facts are the device and app facts of r, in benchstat's
// configuration-line vocabulary.
func Facts(r *result.Result) []Fact {
	d := r.Device
	var out []Fact
	add := func(k, v string) {
		if v != "" && v != "0" {
			out = append(out, Fact{k, v})
		}
	}
	add("device", strings.TrimSpace(d.Manufacturer+" "+d.Model))
	add("serial", d.Serial)
	add("android", d.Release)
	add("api", fmt.Sprint(d.API))
	add("abi", d.ABI)
	add("cores", fmt.Sprint(d.Cores))
	if d.RefreshHz > 0 {
		add("refresh", fmt.Sprintf("%g Hz", d.RefreshHz))
	}
	add("package", r.App.Package)
	add("uid", fmt.Sprint(r.App.UID))
	if len(r.App.PIDs) > 0 {
		add("pids", fmt.Sprint(r.App.PIDs))
	}
	if !r.Start.IsZero() {
		add("session", r.Start.UTC().Format(time.RFC3339)+" → "+r.End.UTC().Format(time.RFC3339))
	}
	add("frame source", r.Config.FrameSource)
	if r.Config.IntervalMs > 0 {
		add("tick", fmt.Sprintf("%g ms (meminfo every %g ms)", r.Config.IntervalMs, r.Config.SlowIntervalMs))
	}
	if r.Config.TrafficScope != "" {
		add("traffic scope", r.Config.TrafficScope)
	}
	if r.Clock.Samples > 0 {
		add("clock sync", fmt.Sprintf("±%.2f ms (%s, best round trip %.2f ms)", r.Clock.UncertaintyMs, r.Clock.Source, r.Clock.BestRTTMs))
	}
	add("result file", r.Path)
	return out
}

// Generated dates a page by its newest session rather than the clock, so
// the same results always give the same bytes.
func Generated(results []*result.Result) string {
	var t time.Time
	for _, r := range results {
		if r.End.After(t) {
			t = r.End
		}
	}
	if t.IsZero() {
		return "from results without a time"
	}
	return "from sessions ending " + t.UTC().Format(time.RFC3339)
}

// Name is what a Result is called: its test's name, else its file, else
// its app's package.
func Name(r *result.Result) string {
	if r.Name != "" {
		return r.Name
	}
	if r.Path != "" {
		return r.Path
	}
	return r.App.Package
}

// Device names the phone r ran on: its model and serial ("Pixel 6
// sim-report"), or "" when the Result does not say.
func Device(r *result.Result) string {
	return strings.TrimSpace(r.Device.Model + " " + r.Device.Serial)
}

// Labels name each Result of a page so that no two read alike: the test
// (Name), the device (Device), and, where a test ran more than once on
// that device (a pool, go test -count=6), which run it was in start order
// and when it began: "TestScroll · Pixel 6 sim-1 · run 2 of 6, 10:04:05".
// Runs are a test's Results on one device (result.Result.Key and the
// serial), as a comparison groups them.
func Labels(results []*result.Result) []string {
	type group struct{ test, device string }
	runs := map[group][]int{}
	for i, r := range results {
		g := group{r.Key(), Device(r)}
		runs[g] = append(runs[g], i)
	}
	out := make([]string, len(results))
	for i, r := range results {
		out[i] = Name(r)
		if d := Device(r); d != "" && len(results) > 1 {
			out[i] += " · " + d
		}
	}
	for _, idx := range runs {
		if len(idx) < 2 {
			continue
		}
		slices.SortStableFunc(idx, func(a, b int) int { return results[a].Start.Compare(results[b].Start) })
		for n, i := range idx {
			out[i] += fmt.Sprintf(" · run %d of %d", n+1, len(idx))
			if st := results[i].Start; !st.IsZero() {
				out[i] += ", " + st.UTC().Format("2006-01-02 15:04:05")
			}
		}
	}
	return out
}

// Beyond is label when it says more than name (a device, a run), else
// "": what a step's heading adds to tell the runs of a page apart.
func Beyond(label, name string) string {
	if label == name {
		return ""
	}
	return label
}

// ByteUnit picks the unit a chart of byte counts up to maxBytes is drawn
// in, and what a byte count is divided by for it: B below 1 KiB, KiB
// below 1 MiB, else MiB. Three bytes are "3 B", not "0.003 KiB".
func ByteUnit(maxBytes float64) (unit string, div float64) {
	switch {
	case maxBytes < 1024:
		return "B", 1
	case maxBytes < 1024*1024:
		return "KiB", 1024
	}
	return "MiB", 1024 * 1024
}
