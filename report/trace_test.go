package report_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// traceSession measures janky-scroll for one step with a Perfetto trace,
// on a phone with the given quirks, in a bubble (simtest.Bubble).
func traceSession(t *testing.T, q simdevice.Quirks) (r *result.Result) {
	t.Helper()
	dir := t.TempDir() // the test's, not the bubble's: the Result's files outlive the bubble
	simtest.Bubble(t, func(t *testing.T) {
		_, d := simDevice(t, "janky-scroll", q)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		ticks := make(chan struct{}, 256)
		s, err := perftest.NewSession(ctx, d, perftest.Config{Package: simdevice.PresetPackage, Name: "TestTrace",
			ResultFile: filepath.Join(dir, "result.json"), Trace: &perftest.TraceConfig{},
			OnTick: func(result.Live) {
				select {
				case ticks <- struct{}{}:
				default:
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		// The scroll's slow frames come at frames 30, 90 and 150: 30 ticks
		// (3 s) hold at least one.
		s.Step("scroll", func() {
			for range 30 {
				select {
				case <-ticks:
				case <-time.After(30 * time.Second):
					t.Fatal("no tick in 30 s")
				}
			}
		})
		r = s.Stop()
		if r.Error != "" {
			t.Fatalf("session ended early: %s", r.Error)
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	return r
}

// The reports link the trace, say how to open it, show FrameTimeline's
// jank beside the other definitions and list each janky frame.
func TestReportsShowTheTrace(t *testing.T) {
	t.Parallel()
	r := traceSession(t, simdevice.Quirks{})
	st := r.Step("scroll")
	if r.Trace == nil || r.Trace.File == "" || st.Trace == nil || st.Trace.AppJank == 0 {
		t.Fatalf("no trace with app jank: %+v, step %+v", r.Trace, st.Trace)
	}
	var h, m bytes.Buffer
	if err := report.WriteHTML(&h, []*result.Result{r}, report.Options{PageDir: filepath.Dir(r.Path)}); err != nil {
		t.Fatal(err)
	}
	html := h.String()
	for _, want := range []string{
		`href="result.perfetto-trace"`,
		`<a href="https://ui.perfetto.dev">https://ui.perfetto.dev</a> and choose <em>Open trace file</em>`,
		"<h4>FrameTimeline (Perfetto trace)</h4>",
		fmt.Sprintf("<td>%s</td><td class=\"num\">%d</td>", metrics.JankFrameTimeline, st.Trace.AppJank),
	} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if n := strings.Count(html, `<span class="fail">App Deadline Missed`); n != st.Trace.AppJank {
		t.Errorf("HTML lists %d app-jank frames, the step has %d", n, st.Trace.AppJank)
	}
	if err := report.WriteMarkdown(&m, []*result.Result{r}, report.Options{}); err != nil {
		t.Fatal(err)
	}
	md := m.String()
	for _, want := range []string{
		"Perfetto trace: `" + r.Trace.File + "`",
		"open https://ui.perfetto.dev and choose *Open trace file*",
		fmt.Sprintf("| %s | %d |", metrics.JankFrameTimeline, st.Trace.AppJank),
		fmt.Sprintf("FrameTimeline (jank_frametimeline): %d frames, %d janky, %d app jank", st.Trace.Frames, st.Trace.Janky, st.Trace.AppJank),
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

// A phone without perfetto: the reports say so, and the FrameTimeline row
// is not measured, with the reason.
func TestReportsWithoutPerfetto(t *testing.T) {
	t.Parallel()
	r := traceSession(t, simdevice.Quirks{MissingCommands: []string{"perfetto"}})
	var h, m bytes.Buffer
	if err := report.WriteHTML(&h, []*result.Result{r}, report.Options{PageDir: filepath.Dir(r.Path)}); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteMarkdown(&m, []*result.Result{r}, report.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{h.String(), m.String()} {
		if !strings.Contains(out, "Perfetto trace not recorded: the device has no perfetto (command -v perfetto: exit status 1") {
			t.Errorf("report does not say the device has no perfetto:\n%s", out)
		}
	}
	if !strings.Contains(m.String(), "| jank_frametimeline | not measured | trace: the device has no perfetto") {
		t.Errorf("Markdown lacks the unmeasured FrameTimeline row:\n%s", m.String())
	}
}
