package report

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report/internal/traceview"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/trace"
)

// markdownTrace writes the session's trace line: where the file is and how
// to open it, or why there is none.
func markdownTrace(b *strings.Builder, r *result.Result) {
	t := r.Trace
	if t == nil {
		return
	}
	if t.File == "" {
		fmt.Fprintf(b, "Perfetto trace not recorded: %s\n\n", mdEscape(t.NotRecorded))
		return
	}
	fmt.Fprintf(b, "Perfetto trace: `%s` (%.1f MB) — open %s and choose *Open trace file*\n\n", codeSpan(t.File), float64(t.SizeBytes)/1e6, trace.PerfettoUI)
}

// markdownTraceStep writes the step's FrameTimeline line, when it has one.
func markdownTraceStep(b *strings.Builder, st *result.Step) {
	if ts := st.Trace; ts != nil {
		fmt.Fprintf(b, "FrameTimeline (%s): %s\n\n", metrics.JankFrameTimeline, mdEscape(traceview.Summary(ts)))
	}
}
