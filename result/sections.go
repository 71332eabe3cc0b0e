package result

import (
	"github.com/perfgate/perfgate/metrics"
)

// SectionStats are a step's figures of the app's trace sections one name
// or pattern matched (perftest.TraceConfig.Sections, trace/sections): the
// durations of those that began in the step, in ms. A step without such a
// section has Count 0 and no durations; one whose trace could not be read
// has NotMeasured.
type SectionStats struct {
	// Name is the section's name or pattern as the session gave it, and
	// MainThread whether only the app's main threads counted.
	Name       string `json:"name"`
	MainThread bool   `json:"main_thread,omitempty"`
	Count      int    `json:"count"`
	// FirstMs is the earliest section's duration; MinMs, MaxMs and SumMs
	// the shortest, longest and total. 0 when Count is.
	FirstMs float64 `json:"first_ms,omitempty"`
	MinMs   float64 `json:"min_ms,omitempty"`
	MaxMs   float64 `json:"max_ms,omitempty"`
	SumMs   float64 `json:"sum_ms,omitempty"`
	// NotMeasured says why the step has no figures at all: no trace, or
	// a trace without the app's sections.
	NotMeasured string `json:"not_measured,omitempty"`
}

// sectionFigure is one metric of a SectionStats for the step's catalogue.
type sectionFigure struct {
	name metrics.Name
	why  string
	v    float64
	def  string
}

// figures are the section's metrics: count, measured as 0 where no
// section began in the step, and the durations, which then have none.
func (s SectionStats) figures() []sectionFigure {
	thread := "any thread of the app"
	if s.MainThread {
		thread = "the app's main thread"
	}
	def := "trace sections " + s.Name + " on " + thread + ", begun in the step (Macrobenchmark TraceSectionMetric)"
	whyDur := s.NotMeasured
	if whyDur == "" && s.Count == 0 {
		whyDur = "sections: no section " + s.Name + " on " + thread + " began in the step"
	}
	var out []sectionFigure
	for _, f := range []struct {
		stat string
		v    float64
	}{{metrics.SectionFirst, s.FirstMs}, {metrics.SectionMin, s.MinMs}, {metrics.SectionMax, s.MaxMs}, {metrics.SectionSum, s.SumMs}, {metrics.SectionCount, float64(s.Count)}} {
		why := whyDur
		if f.stat == metrics.SectionCount {
			why = s.NotMeasured
		}
		out = append(out, sectionFigure{metrics.SectionName(f.stat, s.Name), why, f.v, def})
	}
	return out
}
