package report_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// Each step's page draws the battery current of the reads its mean
// (battery_current_mean) rests on, in mA with the sign the phone reports
// (negative on this Pixel while it discharges), and says so above the
// axis: the points sit below the axis's zero, not clipped at its foot.
func TestBatteryCurrentChart(t *testing.T) {
	r := loadRecorded(t)
	var b bytes.Buffer
	if err := report.WriteHTML(&b, []*result.Result{r}, report.Options{}); err != nil {
		t.Fatal(err)
	}
	charts := regexp.MustCompile(`<svg[^>]*data-chart="battery".*?</svg>`).FindAllString(b.String(), -1)
	if len(charts) != len(r.Steps) {
		t.Fatalf("%d battery charts for %d steps", len(charts), len(r.Steps))
	}
	for i, st := range r.Steps {
		c := charts[i]
		want := 0
		for _, s := range r.Samples {
			if s.Battery != nil && s.HostNs >= st.HostStartNs && s.HostNs <= st.HostEndNs {
				want++
			}
		}
		mean := st.BatteryStats.MeanCurrentMA
		got := strings.Count(c, fmt.Sprintf(": %s mA</title>", strconv.FormatFloat(mean, 'f', -1, 64)))
		if mean >= 0 || got < want || got > want+2 {
			t.Errorf("step %s: %d points at %g mA, want the %d reads inside it and at most one at each edge", st.Name, got, mean, want)
		}
		if !strings.Contains(c, ">Battery current per read (current_now), mA with the sign the phone reports</text>") {
			t.Errorf("step %s: the chart does not say the sign is the phone's", st.Name)
		}
		zero := regexp.MustCompile(`y1="([0-9.]+)" y2="[0-9.]+" stroke="#e5e5e5"/><text [^>]*>0</text>`).FindStringSubmatch(c)
		dot := regexp.MustCompile(`<circle[^>]*cy="([0-9.]+)"`).FindStringSubmatch(c)
		if zero == nil || dot == nil {
			t.Fatalf("step %s: no zero grid line or no point", st.Name)
		}
		z, _ := strconv.ParseFloat(zero[1], 64)
		y, _ := strconv.ParseFloat(dot[1], 64)
		if y <= z {
			t.Errorf("step %s: a point of %g mA at page y %g, not below zero at %g", st.Name, mean, y, z)
		}
	}
}
