package tracing

import (
	"cmp"
	"fmt"

	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/sections"
)

// appSections are the trace's sections of the app's processes, on the
// trace clock, from the markers col gathered while a was analysed.
type appSections struct {
	slices  []sections.Slice
	unended int
	why     string // why the trace tells no section of the app
}

// readSections pairs the markers col gathered into the app's sections.
func readSections(a *trace.Analysis, col *sections.Collector) *appSections {
	out := &appSections{}
	switch {
	case a.NotMeasured["slices"] != "":
		out.why = "sections: " + a.NotMeasured["slices"]
	case len(a.AppPIDs) == 0:
		out.why = "sections: the trace names no process of " + a.Package + " (no process list, no frame of its windows)"
	default:
		out.slices, out.unended = sections.Slices(col, a.AppPIDs, func(ns int64) (int64, bool) {
			v, err := a.Convert(ns, trace.Boottime)
			return v, err == nil
		})
	}
	return out
}

// Sections are the step's figures of each section Config.Sections names,
// or each with the reason it has none: no trace, the step outside it or
// only partly in it (ts is the step's part of the trace, from Step).
func (r *Recorder) Sections(st *result.Step, ts *result.TraceStep, in StepInput) []result.SectionStats {
	if len(r.cfg.Sections) == 0 {
		return nil
	}
	out := make([]result.SectionStats, len(r.cfg.Sections))
	why, start, end := r.sectionsWindow(st, ts, in)
	for i, sp := range r.cfg.Sections {
		s := result.SectionStats{Name: sp.Name, MainThread: sp.MainThread, NotMeasured: why}
		if why == "" {
			m := sections.Measure(r.secs.slices, sp, start, end)
			s.Count = m.Count
			if m.Count > 0 {
				s.FirstMs, s.MinMs, s.MaxMs, s.SumMs = ms(m.FirstNs), ms(m.MinNs), ms(m.MaxNs), ms(m.SumNs)
			}
		}
		out[i] = s
	}
	return out
}

// sectionsWindow is the step's window on the trace clock, or why its
// sections cannot be told.
func (r *Recorder) sectionsWindow(st *result.Step, ts *result.TraceStep, in StepInput) (why string, start, end int64) {
	switch {
	case r.a == nil || r.secs == nil:
		return "sections: " + r.Why(st), 0, 0
	case r.secs.why != "":
		return r.secs.why, 0, 0
	case ts == nil:
		return "sections: the step could not be placed in the trace", 0, 0
	case ts.Partial != "":
		return "sections: the trace covers only part of the step: " + ts.Partial, 0, 0
	}
	clock, _ := stepClock(in.ClockSource)
	start, err1 := r.a.Convert(st.DeviceStartNs, clock)
	end, err2 := r.a.Convert(st.DeviceEndNs, clock)
	if err := cmp.Or(err1, err2); err != nil {
		return fmt.Sprintf("sections: %v", err), 0, 0
	}
	return "", start, end
}

// ms is ns in milliseconds.
func ms(ns int64) float64 { return float64(ns) / 1e6 }
