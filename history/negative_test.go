package history

import (
	"bytes"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/perfgate/perfgate/metrics"
)

// A figure below zero (a frame overrun: frames done before their
// deadline) is drawn inside the chart: the axis runs down below the
// lowest run instead of from zero, where the points would fall off the
// plot.
func TestTrendChartBelowZero(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	s := Series{Key: Key{Test: "TestFeed@feed", Step: "scroll", Metric: string(metrics.FrameOverrunP95), Device: "Pixel 7"}, Unit: "ms", Better: metrics.Lower}
	for i, v := range []float64{-10.25, -8, -2.42, 3.5, -11.75, -6} {
		tm := t0.Add(time.Duration(i) * time.Hour)
		s.values = append(s.values, v)
		s.times = append(s.times, tm.UnixNano())
		s.Points = append(s.Points, Point{RunID: strconv.Itoa(i), Commit: commitOf(i), Time: tm, Value: v, Iterations: 1})
	}
	var b bytes.Buffer
	if err := WritePage(&b, string(metrics.FrameOverrunP95), []Trend{Analyze(s, TrendOptions{})}, PageOptions{}); err != nil {
		t.Fatal(err)
	}
	lo, hi := float64(frame.PadT), float64(frame.PadT+frame.PlotH())
	ys := regexp.MustCompile(`<circle class="run"[^>]* cy="([-0-9.]+)"`).FindAllStringSubmatch(b.String(), -1)
	if len(ys) != 6 {
		t.Fatalf("%d runs drawn, want 6", len(ys))
	}
	for _, m := range ys {
		if y, _ := strconv.ParseFloat(m[1], 64); y < lo || y > hi {
			t.Errorf("a run drawn at y %v, outside the plot [%v, %v]", y, lo, hi)
		}
	}
}
