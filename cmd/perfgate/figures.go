package main

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
)

// figures is a summary line's list of a step's metrics: each a value, or
// "<label> not measured" with the reason said once at the end (unmeasured
// is never zero, and never left out without a word).
type figures struct {
	st     *perftest.Step
	parts  []string
	absent []metrics.Name // in the order added
}

// add appends the named metric, formatted, or says it was not measured.
func (f *figures) add(name metrics.Name, label string, format func(float64) string) {
	for _, m := range f.st.Metrics() {
		if m.Name == name {
			f.parts = append(f.parts, format(m.Value))
			return
		}
	}
	f.parts = append(f.parts, label+" not measured")
	f.absent = append(f.absent, name)
}

// why says why the metrics added were not measured, grouped by reason:
// "not measured: fps, jank (frames: the app rendered no frame in the
// step)"; "" when all were.
func (f *figures) why() string {
	if len(f.absent) == 0 {
		return ""
	}
	reason := map[metrics.Name]string{}
	for _, a := range f.st.Absent() {
		reason[a.Name] = a.Reason
	}
	var order []string
	names := map[string][]string{}
	for _, n := range f.absent {
		r := reason[n]
		if names[r] == nil {
			order = append(order, r)
		}
		names[r] = append(names[r], string(n))
	}
	var groups []string
	for _, r := range order {
		g := strings.Join(names[r], ", ")
		if r != "" {
			g += " (" + r + ")"
		}
		groups = append(groups, g)
	}
	return "not measured: " + strings.Join(groups, "; ")
}

// stepFigures are the figures a summary line shows for a step: frames,
// FPS, jank, app CPU and PSS, in that order.
func stepFigures(st *perftest.Step) *figures {
	f := &figures{st: st}
	f.add(metrics.Frames, "frames", func(v float64) string {
		if v == 0 {
			// Said where it shows, not only as the reason of fps and jank.
			return "0 frames (the app drew none in the step: is it on screen?)"
		}
		return fmt.Sprintf("%.0f frames", v)
	})
	f.add(metrics.FPS, "fps", func(v float64) string { return fmt.Sprintf("%.1f fps", v) })
	f.add(metrics.Jank, "jank", func(v float64) string { return fmt.Sprintf("jank %.0f (%s)", v, st.Frames().JankDefinition) })
	f.add(metrics.CPU, "cpu", func(v float64) string { return fmt.Sprintf("cpu %.1f%%", v) })
	f.add(metrics.PSSMax, "pss max", func(v float64) string { return fmt.Sprintf("pss max %.0f KiB", v) })
	return f
}
