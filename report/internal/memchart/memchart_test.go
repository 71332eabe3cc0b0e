package memchart

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/result"
)

var part = regexp.MustCompile(`<rect class="part" x="([\d.]+)" y="([\d.]+)" width="[\d.]+" height="([\d.]+)" fill="[^"]+"><title>([^:]+): (\d+) KiB`)

// Three real reads over a session of two steps: each bar stacks the six
// App Summary rows its capture prints, every part as tall as its value on
// one scale, in the order of Rows, and each step is a band.
func TestBreakdownOfRealReads(t *testing.T) {
	var samples []result.MemorySample
	for i, name := range []string{"yuvaupdate_modern_swappss_utf16le_a.txt", "yuvaupdate_modern_swappss_utf16le_b.txt", "frameprobe_samsung_s23_api34.txt"} {
		m, err := dumpsys.ParseMeminfo(fixtures.Read(t, "meminfo/"+name))
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, result.MemorySample{HostNs: int64(i+1) * 1e9, PSSKB: m.PSSKB, Summary: result.MeminfoSummary(m.Summary)})
	}
	r := &result.Result{Memory: samples, Steps: []*result.Step{{Name: "launch", HostStartNs: 5e8, HostEndNs: 15e8}, {Name: "scroll", HostStartNs: 2e9, HostEndNs: 4e9}}}
	svg := Session(r)
	parts := part.FindAllStringSubmatch(svg, -1)
	if len(parts) != len(samples)*len(Rows) {
		t.Fatalf("%d parts, want %d (%d reads of %d rows)", len(parts), len(samples)*len(Rows), len(samples), len(Rows))
	}
	for _, st := range r.Steps {
		if !strings.Contains(svg, "<title>step "+st.Name+"</title>") {
			t.Errorf("no band for step %s", st.Name)
		}
	}
	// The scale, from the tallest part (the least rounded).
	scale, tallest := 0.0, 0.0
	for _, p := range parts {
		v, _ := strconv.ParseFloat(p[5], 64)
		if h, _ := strconv.ParseFloat(p[3], 64); h > tallest {
			scale, tallest = h/v, h
		}
	}
	for i, p := range parts {
		read, row := samples[i/len(Rows)], Rows[i%len(Rows)]
		v, _ := strconv.ParseInt(p[5], 10, 64)
		h, _ := strconv.ParseFloat(p[3], 64)
		if p[4] != row.Name || v != read.Summary[row.Key] {
			t.Errorf("part %d: %s %d KiB, want %s %d", i, p[4], v, row.Name, read.Summary[row.Key])
		}
		// Page coordinates are printed to 0.1 px.
		if math.Abs(h-scale*float64(v)) > 0.25 {
			t.Errorf("part %d (%s %d KiB) is %.1f px tall, want %.1f", i, row.Name, v, h, scale*float64(v))
		}
	}
	old := &result.Result{Memory: []result.MemorySample{{HostNs: 1e9, PSSKB: 5000}}, Steps: r.Steps}
	if empty := Session(old); !strings.Contains(empty, "no dumpsys meminfo read with an App Summary") {
		t.Errorf("a session of Android 4 reads: %s", empty)
	}
}
