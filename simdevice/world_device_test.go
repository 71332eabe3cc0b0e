package simdevice

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// The world seen through the device's shell on the real clock, as adb
// users see it: launch, a one-round-trip sample, and the truth agreeing.
func TestWorldThroughShell(t *testing.T) {
	t.Parallel()
	d := newTestDevice(t, Config{API: 33, Workload: mustPreset(t, "smooth-scroll")})
	out, errOut, st := run(t, d, "am start -W -n com.perfgate.demo/.MainActivity", "")
	if st != 0 || !strings.Contains(out, "LaunchState: COLD\n") || !strings.Contains(out, "TotalTime: 650\n") {
		t.Fatalf("am start: %d %q %q", st, out, errOut)
	}
	time.Sleep(300 * time.Millisecond)
	out, _, st = run(t, d, "pid=$(pidof com.perfgate.demo); cat /proc/stat /proc/$pid/stat; dumpsys SurfaceFlinger --latency 'SurfaceView[com.perfgate.demo/com.perfgate.demo.MainActivity](BLAST)#0' | tail -n 1", "")
	if st != 0 {
		t.Fatalf("sample: %d %q", st, out)
	}
	pid := d.World().Truth().Pids[0]
	if !strings.Contains(out, "\n"+strconv.Itoa(pid)+" (m.perfgate.demo) S ") {
		t.Errorf("no pid stat line for %d:\n%s", pid, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := strings.Split(lines[len(lines)-1], "\t")
	if len(last) != 3 || last[1] == "0" {
		t.Errorf("last latency row %q", lines[len(lines)-1])
	}
	b, _ := strconv.ParseInt(last[1], 10, 64)
	found := false
	for _, f := range d.World().TruthFrames() {
		found = found || f.Present == b
	}
	if !found {
		t.Errorf("present time %d is not a truth frame", b)
	}
}

// The kernel's random UUID file gives a fresh UUID on every read; adbx
// batches take their unforgeable output separator from it.
func TestRandomUUIDFile(t *testing.T) {
	d := newTestDevice(t, Config{})
	out, _, st := run(t, d, "cat /proc/sys/kernel/random/uuid /proc/sys/kernel/random/uuid", "")
	if st != 0 {
		t.Fatalf("cat uuid: exit %d", st)
	}
	ids := strings.Fields(out)
	if len(ids) != 2 || ids[0] == ids[1] {
		t.Fatalf("want two different UUIDs, got %q", out)
	}
	for _, id := range ids {
		if len(id) != 36 || strings.Count(id, "-") != 4 || id[14] != '4' {
			t.Errorf("%q is not a version-4 UUID", id)
		}
	}
}

// toybox ps -o prints just the asked fields; adbx finds an app's processes
// (main and :remote ones) with `ps -A -o PID,NAME`.
func TestPsFields(t *testing.T) {
	t.Parallel()
	d := newTestDevice(t, Config{Workload: mustPreset(t, "smooth-scroll")})
	if _, _, st := run(t, d, "am start -W -n com.perfgate.demo/.MainActivity", ""); st != 0 {
		t.Fatalf("am start: exit %d", st)
	}
	out, errOut, st := run(t, d, "ps -A -o PID,NAME", "")
	if st != 0 {
		t.Fatalf("ps: exit %d: %s", st, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if got := strings.Fields(lines[0]); len(got) != 2 || got[0] != "PID" || got[1] != "NAME" {
		t.Fatalf("header %q", lines[0])
	}
	want := strconv.Itoa(d.World().Truth().Pids[0]) + " com.perfgate.demo"
	found := false
	for _, l := range lines[1:] {
		if strings.Join(strings.Fields(l), " ") == want {
			found = true
		}
		if len(strings.Fields(l)) != 2 {
			t.Errorf("row %q has not 2 fields", l)
		}
	}
	if !found {
		t.Errorf("no row %q in:\n%s", want, out)
	}
	if _, _, st := run(t, d, "ps -o PID,BOGUS", ""); st != 1 {
		t.Errorf("ps -o BOGUS: exit %d, want 1", st)
	}
}
