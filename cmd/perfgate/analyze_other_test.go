package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/analyze"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestAnalyzeMeminfoJSONKeys(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run([]string{"analyze", "meminfo", fixtures.Path(t, "meminfo/mixelmeza_flutter_modern_pss_rss.txt")}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"pss_kb", "rss_kb", "swap_kb", "summary", "source"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q key in %s", k, out.String())
		}
	}
	s, _ := m["summary"].(map[string]any)
	for k, want := range map[string]float64{"java_heap_kb": 34292, "native_heap_kb": 57464, "code_kb": 37436, "stack_kb": 1632,
		"graphics_kb": 0, "private_other_kb": 203408, "system_kb": 19342, "total_kb": 353574} {
		if s[k] != want {
			t.Errorf("summary.%s = %v, want %v", k, s[k], want)
		}
	}
}

// cpuFiles writes a BEFORE and an AFTER sample built from real captures:
// BEFORE is the 8-core /proc/stat plus the apk_protect /proc/<pid>/stat;
// AFTER changes them by hand-chosen amounts.
func cpuFiles(t *testing.T) (before, after string) {
	t.Helper()
	stat := string(fixtures.Read(t, "proc/unidbg_rootfs_8core_2025_proc_stat.txt"))
	pid := string(fixtures.Read(t, "proc/unidbg_rootfs_pid_stat_apk_protect.txt"))
	const cpuLine = "cpu  220763 20135 475136 128605333"
	const pidTimes = "45274 0 0 0 404 40 "
	if !strings.Contains(stat, cpuLine) || !strings.Contains(pid, pidTimes) {
		t.Fatal("captures changed; update the test")
	}
	// user +400, system +400, idle +3200: Δtotal 4000, Δbusy 800.
	stat2 := strings.Replace(stat, cpuLine, "cpu  221163 20135 475536 128608533", 1)
	// utime +200, stime +200 for pid 4292, and a :remote process that started
	// in between with 20+20 ticks: Δ(utime+stime) = 440.
	pid2 := strings.Replace(pid, pidTimes, "45274 0 0 0 604 240 ", 1)
	remote := "4400 (apk_protect:remote) S 983 983 0 0 -1 1077936448 10 0 0 0 20 20 0 0 20 0 5 0 103020000 1000000 500 18446744073709551615 1 1 0 0 0 0 4612 1 1073775864 0 0 0 17 2 0 0 0 0 0\n"
	dir := t.TempDir()
	before, after = filepath.Join(dir, "before.txt"), filepath.Join(dir, "after.txt")
	otherWriteFile(t, before, stat+"\n"+pid)
	otherWriteFile(t, after, pid2+"\r\n"+stat2+remote)
	return before, after
}

func TestAnalyzeCPU(t *testing.T) {
	before, after := cpuFiles(t)
	tests := []struct {
		name  string
		args  []string
		want  analyze.CPU
		app   float64
		appPC float64
	}{
		// device 800/4000 = 20 %; app 440/4000 = 11 %; 8 cpuN lines → 88 %.
		{"cores from cpuN lines", []string{before, after}, analyze.CPU{DeviceCPUPct: 20, Cores: 8}, 11, 88},
		{"-cores 4", []string{"-cores", "4", before, after}, analyze.CPU{DeviceCPUPct: 20, Cores: 4}, 11, 44},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if err := run(append([]string{"analyze", "cpu"}, tc.args...), &out, &errOut); err != nil {
				t.Fatalf("run: %v (stderr %q)", err, errOut.String())
			}
			var got analyze.CPU
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
			if !near(got.DeviceCPUPct, tc.want.DeviceCPUPct) || got.Cores != tc.want.Cores || got.AppCPUPct == nil || got.AppCPUCorePct == nil ||
				!near(*got.AppCPUPct, tc.app) || !near(*got.AppCPUCorePct, tc.appPC) {
				t.Errorf("got %s", out.String())
			}
		})
	}
}

func TestAnalyzeCPUDeviceOnly(t *testing.T) {
	dir := t.TempDir()
	b, a := filepath.Join(dir, "b"), filepath.Join(dir, "a")
	// Δtotal 200 (100 user + 100 idle) → 50 %; no processes → app null.
	otherWriteFile(t, b, "cpu 100 0 0 100\ncpu0 100 0 0 100\n")
	otherWriteFile(t, a, "cpu 200 0 0 200\ncpu0 200 0 0 200\n")
	var out, errOut bytes.Buffer
	if err := run([]string{"analyze", "cpu", b, a}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m["device_cpu_pct"] != 50.0 || m["app_cpu_pct"] != nil || m["app_cpu_core_pct"] != nil || m["cores"] != 1.0 {
		t.Errorf("got %s", out.String())
	}
}

func otherWriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
