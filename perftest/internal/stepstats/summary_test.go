package stepstats

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// summaryRow finds an App Summary row's PSS in a capture's text by itself,
// not through the parser: "           Java Heap:    17976".
func summaryRow(text, label string) (int64, bool) {
	_, after, ok := strings.Cut(text, "App Summary")
	if !ok {
		return 0, false
	}
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(label) + `:\s+(\d+)`).FindStringSubmatch(after)
	if m == nil {
		return 0, false
	}
	v, _ := strconv.ParseInt(m[1], 10, 64)
	return v, true
}

// The App Summary metrics of a step are the highest of each row over its
// real meminfo reads; Android 4's meminfo, which prints no App Summary,
// leaves them absent with the reason, never 0.
func TestSummaryMetricsOnRealCaptures(t *testing.T) {
	labels := map[metrics.Name]string{
		metrics.MemJavaHeapMax: "Java Heap", metrics.MemNativeHeapMax: "Native Heap", metrics.MemCodeMax: "Code",
		metrics.MemStackMax: "Stack", metrics.MemGraphicsMax: "Graphics", metrics.MemPrivateOtherMax: "Private Other",
	}
	for _, reads := range [][]string{
		{"droidmonitor_api18_android43.txt"},
		{"droidmonitor_api19_android44.txt"},
		{"droidmonitor_api23_android60.txt"},
		{"frameprobe_samsung_s23_api34.txt"},
		{"mixelmeza_flutter_modern_pss_rss.txt"},
		{"yuvaupdate_modern_swappss_utf16le_a.txt", "yuvaupdate_modern_swappss_utf16le_b.txt"},
	} {
		t.Run(reads[0], func(t *testing.T) {
			r := &result.Result{}
			var texts []string
			for i, name := range reads {
				raw := fixtures.Read(t, "meminfo/"+name)
				m, err := dumpsys.ParseMeminfo(raw)
				if err != nil {
					t.Fatal(err)
				}
				texts = append(texts, string(devtext.Normalize(raw)))
				r.Memory = append(r.Memory, result.MemorySample{HostNs: int64(i+1) * 1e9, PSSKB: m.PSSKB, Summary: result.MeminfoSummary(m.Summary)})
			}
			st := &result.Step{Name: "s", HostStartNs: 0, HostEndNs: int64(len(reads)+1) * 1e9}
			st.MemoryStats = Memory(r, st, 1e8, 1e9)
			got := map[metrics.Name]float64{}
			for _, m := range st.Metrics() {
				got[m.Name] = m.Value
			}
			why := map[metrics.Name]string{}
			for _, a := range st.Absent() {
				why[a.Name] = a.Reason
			}
			for name, label := range labels {
				var want int64
				found := false
				for _, text := range texts {
					if v, ok := summaryRow(text, label); ok {
						want, found = max(want, v), true
					}
				}
				v, measured := got[name]
				switch {
				case !found && (measured || !strings.Contains(why[name], "no App Summary")):
					t.Errorf("%s: %v (measured %v, reason %q); the capture has no App Summary", name, v, measured, why[name])
				case found && (!measured || v != float64(want)):
					t.Errorf("%s: %v (measured %v, reason %q), the capture's highest %s: %d", name, v, measured, why[name], label, want)
				}
			}
		})
	}
}
