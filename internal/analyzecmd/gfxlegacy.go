package analyzecmd

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
)

// gfxLegacy is what `perfgate analyze frames` prints for a gfxinfo
// capture without framestats: the statistics summary Android prints
// ("Total frames rendered", "Janky frames", the percentiles), or the
// "Profile data in ms" table of Android 4 to 6 (Draw, Prepare, Process,
// Execute per frame). Every frame metric of the catalogue they cannot
// give is in NotMeasured with the reason.
type gfxLegacy struct {
	File string `json:"file"`
	// Source is "gfxinfo summary" or "gfxinfo profile table".
	Source  string `json:"source"`
	Package string `json:"package,omitempty"`
	PID     int    `json:"pid,omitempty"`
	Window  string `json:"window,omitempty"`
	// Metrics are the catalogue's metrics the capture gives: frames and
	// frame_time_pNN (ms; as the summary states them, or nearest rank of
	// the table's rows, each row's columns summed).
	Metrics map[metrics.Name]float64 `json:"metrics"`
	// JankyFrames and JankyPercent are the summary's "Janky frames" line:
	// Android's own count since "Stats since", not perfgate's jank.
	JankyFrames  *int64   `json:"janky_frames,omitempty"`
	JankyPercent *float64 `json:"janky_percent,omitempty"`
	// Columns names the table's columns, Rows counts its frames.
	Columns     []string                `json:"columns,omitempty"`
	NotMeasured map[metrics.Name]string `json:"not_measured"`
}

// maxLegacyCapture bounds a capture read whole to find a summary or a
// profile table (a dump of every process is a few MB), as analyze
// meminfo's is.
const maxLegacyCapture = 16 << 20

// readGfxLegacy reads the capture at path as a gfxinfo summary or
// profile table; ok is false when it holds neither (or is no gfxinfo).
// window picks the window whose label contains it.
func readGfxLegacy(path, window string) (out *gfxLegacy, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxLegacyCapture))
	if err != nil {
		return nil, false
	}
	g, err := gfxinfo.Parse(b)
	if err != nil {
		return nil, false
	}
	return legacyOf(g, path, window)
}

// emptyProfile says why a gfxinfo capture without framestats has no
// frames when its "Profile data in ms" table is empty: Android 4 and 5
// print the heading alone while Profile GPU Rendering is off.
func emptyProfile(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxLegacyCapture))
	g, err := gfxinfo.Parse(b)
	if err != nil || !strings.Contains(string(b), "Profile data in ms") {
		return ""
	}
	for _, w := range g.Windows() {
		if w.Profile != nil && len(w.Profile.Rows) > 0 {
			return ""
		}
	}
	return "its \"Profile data in ms\" table has no frame rows (Profile GPU Rendering was off: adb shell setprop debug.hwui.profile true, then draw again), and no statistics summary or framestats"
}

// legacyOf is the profile table with most rows (of the windows window
// matches) when a window has one, else the first summary with a frame
// count.
func legacyOf(g *gfxinfo.Info, path, window string) (*gfxLegacy, bool) {
	var table *gfxinfo.Window
	var tableOf, sumOf *gfxinfo.Process
	var sum *gfxinfo.Summary
	for _, p := range g.Processes {
		if sum == nil && p.Summary.TotalFrames >= 0 {
			sum, sumOf = &p.Summary, p
		}
		for _, w := range p.Windows {
			if window != "" && !strings.Contains(w.Label(), window) {
				continue
			}
			if w.Profile != nil && len(w.Profile.Rows) > 0 && (table == nil || len(w.Profile.Rows) > len(table.Profile.Rows)) {
				table, tableOf = w, p
			}
			if sum == nil && w.Summary.TotalFrames >= 0 {
				sum, sumOf = &w.Summary, p
			}
		}
	}
	out := &gfxLegacy{File: path, Metrics: map[metrics.Name]float64{}, NotMeasured: map[metrics.Name]string{}}
	switch {
	case table != nil:
		out.Source, out.Package, out.PID, out.Window = "gfxinfo profile table", tableOf.Package, tableOf.PID, table.Label()
		out.Columns = table.Profile.Columns
		ns := make([]int64, len(table.Profile.Rows))
		for i, t := range table.Profile.Totals() {
			ns[i] = int64(math.Round(t * 1e6))
		}
		pc := frames.PercentilesOf(ns)
		out.Metrics[metrics.Frames] = float64(len(ns))
		out.Metrics[metrics.FrameTimeP50], out.Metrics[metrics.FrameTimeP90] = pc.P50, pc.P90
		out.Metrics[metrics.FrameTimeP95], out.Metrics[metrics.FrameTimeP99] = pc.P95, pc.P99
		out.notMeasured("the profile table (\"Profile data in ms\", Android 4 to 6) has each frame's " + strings.Join(table.Profile.Columns, ", ") + " times, no start or vsync times; frame time is their sum")
	case sum != nil:
		out.Source, out.Package, out.PID = "gfxinfo summary", sumOf.Package, sumOf.PID
		out.Metrics[metrics.Frames] = float64(sum.TotalFrames)
		for _, p := range []struct {
			n metrics.Name
			v int64
			s string
		}{{metrics.FrameTimeP50, sum.P50, "50th"}, {metrics.FrameTimeP90, sum.P90, "90th"}, {metrics.FrameTimeP95, sum.P95, "95th"}, {metrics.FrameTimeP99, sum.P99, "99th"}} {
			if p.v >= 0 {
				out.Metrics[p.n] = float64(p.v)
			} else {
				out.NotMeasured[p.n] = "the summary has no \"" + p.s + " percentile\" line"
			}
		}
		if sum.JankyFrames >= 0 {
			out.JankyFrames, out.JankyPercent = &sum.JankyFrames, &sum.JankyPercent
		}
		out.notMeasured("the capture is the statistics summary alone (no framestats): it gives a frame count and percentiles rounded to its histogram's buckets, not each frame")
	default:
		return nil, false
	}
	return out, true
}

// notMeasured gives every frame metric of the catalogue out has no value
// for the reason why.
func (out *gfxLegacy) notMeasured(why string) {
	for _, d := range metrics.Catalogue() {
		if _, ok := out.Metrics[d.Name]; !ok && d.Family == metrics.FamilyFrames && out.NotMeasured[d.Name] == "" {
			out.NotMeasured[d.Name] = why
		}
	}
}

// write prints out as indented JSON, and the metrics it lacks on stderr.
func (out *gfxLegacy) write(stdout, stderr io.Writer) error {
	fmt.Fprintf(stderr, "%s: %s without framestats: %d frame metrics not measured (see not_measured)\n", out.File, out.Source, len(out.NotMeasured))
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = stdout.Write(append(b, '\n'))
	return err
}
