package dumpsys

import (
	"errors"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestParseCPUInfo(t *testing.T) {
	ci, err := ParseCPUInfo(fixtures.Read(t, "cpuinfo/droidmonitor_dumpsys_cpuinfo_android44.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if ci.Load != [3]float64{20.88, 17.57, 10.31} {
		t.Errorf("load = %v", ci.Load)
	}
	if len(ci.Procs) != 26 {
		t.Fatalf("%d processes, want 26", len(ci.Procs))
	}
	tests := []struct {
		i            int
		pid          int
		name         string
		pct          float64
		user, kernel float64
	}{
		{0, 844, "system_server", 47, 37, 10},
		{3, 15887, "com.linkbubble.playstore", 9.2, 7.4, 1.8},
		{11, 11502, "kworker/u:13", 1.2, 0, 1.2},
		{24, 14728, "com.google.android.googlequicksearchbox:search", 0, 0, 0},
		{25, 24205, "kworker/1:1", 0, 0, 0},
	}
	for _, tc := range tests {
		p := ci.Procs[tc.i]
		if p.PID != tc.pid || p.Name != tc.name || p.Percent != tc.pct || p.Parts["user"] != tc.user || p.Parts["kernel"] != tc.kernel {
			t.Errorf("proc %d = %+v, want %d %q %v%% (%v user, %v kernel)", tc.i, p, tc.pid, tc.name, tc.pct, tc.user, tc.kernel)
		}
	}
	want := map[string]float64{"user": 49, "kernel": 20, "iowait": 26, "softirq": 0.5}
	if ci.Total.Percent != 96 || len(ci.Total.Parts) != len(want) {
		t.Fatalf("total = %+v", ci.Total)
	}
	for k, v := range want {
		if ci.Total.Parts[k] != v {
			t.Errorf("total %s = %v, want %v", k, ci.Total.Parts[k], v)
		}
	}
	for name, in := range map[string]string{
		"empty":    "",
		"bad load": "Load: 1 / 2\n",
		"bad pid":  "  5% x/system_server: 3% user + 2% kernel\n",
		"bad term": "  5% 1/system_server: 3% user + kernel\n",
	} {
		var pe *devtext.ParseError
		if _, err := ParseCPUInfo([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
	}
}

func FuzzParseCPUInfo(f *testing.F) {
	memFuzzAddFixtures(f, "cpuinfo/droidmonitor_dumpsys_cpuinfo_android44.txt")
	f.Add([]byte("Load: 1 / 2 / 3\n  5% 1/a:b: 3% user + 2% kernel / faults: 1 minor\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ParseCPUInfo(b)
	})
}
