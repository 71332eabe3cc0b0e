package simdevice

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestQuirksOffByDefault(t *testing.T) {
	d := newTestDevice(t, Config{Cores: 8})
	runCases(t, d, []shellCase{
		{name: "nproc", cmd: "nproc", wantOut: "8\n"},
		{name: "possible", cmd: "cat /sys/devices/system/cpu/possible", wantOut: "0-7\n"},
		{name: "ls cpu", cmd: "ls /sys/devices/system/cpu | head -4", wantOut: "cpu0\ncpu1\ncpu2\ncpu3\n"},
		{name: "proc net", cmd: "ls /proc/net", wantOut: "dev\n"},
	})
}

func TestQuirksMissingCommandsAndFiles(t *testing.T) {
	d := newTestDevice(t, Config{Cores: 8, Quirks: Quirks{
		MissingCommands: []string{"nproc", "getprop"},
		MissingFiles:    []string{"/sys/devices/system/cpu/possible", "/proc/net", "/proc/*/net"},
	}})
	run(t, d, "monkey -p "+PresetPackage+" 1", "")
	out, _, _ := run(t, d, "pidof "+PresetPackage, "")
	pid := strings.TrimSpace(out)
	if pid == "" {
		t.Fatalf("pidof %s printed nothing", PresetPackage)
	}
	runCases(t, d, []shellCase{
		{name: "nproc", cmd: "nproc", wantErr: "/system/bin/sh: nproc: inaccessible or not found\n", code: 127},
		{name: "nproc by path", cmd: "/system/bin/nproc", wantErr: "/system/bin/sh: /system/bin/nproc: inaccessible or not found\n", code: 127},
		{name: "getprop", cmd: "getprop ro.build.version.sdk", wantErr: "/system/bin/sh: getprop: inaccessible or not found\n", code: 127},
		{name: "which", cmd: "which nproc", code: 1},
		{name: "toybox", cmd: "toybox nproc", wantErr: "toybox: Unknown command nproc\n", code: 1},
		{name: "possible", cmd: "cat /sys/devices/system/cpu/possible", wantErr: "cat: /sys/devices/system/cpu/possible: No such file or directory\n", code: 1},
		{name: "present stays", cmd: "cat /sys/devices/system/cpu/present", wantOut: "0-7\n"},
		{name: "proc net dev", cmd: "cat /proc/net/dev", wantErr: "cat: /proc/net/dev: No such file or directory\n", code: 1},
		{name: "pid net dev", cmd: "cat /proc/" + pid + "/net/dev", wantErr: "cat: /proc/" + pid + "/net/dev: No such file or directory\n", code: 1},
		{name: "proc listing", cmd: "ls /proc | grep -c '^net$'", wantOut: "0\n", code: 1},
		{name: "pid stat stays", cmd: "cat /proc/" + pid + "/stat | cut -d' ' -f1", wantOut: pid + "\n"},
	})
}

func TestQuirksDeniedServices(t *testing.T) {
	d := newTestDevice(t, Config{Quirks: Quirks{DeniedServices: []string{"netstats", "meminfo", "SurfaceFlinger"}}})
	run(t, d, "monkey -p "+PresetPackage+" 1", "")
	denied := regexp.MustCompile(`^Permission Denial: can't dump (NetworkStats|meminfo) from from pid=\d+, uid=2000 due to missing android.permission.DUMP permission\n$`)
	for _, cmd := range []string{"dumpsys netstats", "dumpsys netstats detail", "dumpsys meminfo " + PresetPackage} {
		out, errOut, code := run(t, d, cmd, "")
		if !denied.MatchString(out) || errOut != "" || code != 0 {
			t.Errorf("%s: %q %q exit %d, want the denial line and exit 0", cmd, out, errOut, code)
		}
	}
	if out, _, _ := run(t, d, "dumpsys SurfaceFlinger --list", ""); !regexp.MustCompile(`^Permission Denial: can't dump SurfaceFlinger from pid=\d+, uid=2000\n$`).MatchString(out) {
		t.Errorf("SurfaceFlinger: %q", out)
	}
	// Services not listed answer as before.
	if out, _, _ := run(t, d, "dumpsys gfxinfo "+PresetPackage+" framestats", ""); !strings.Contains(out, "---PROFILEDATA---") {
		t.Errorf("gfxinfo denied too: %.200q", out)
	}
}

func TestQuirksValidate(t *testing.T) {
	for _, q := range []Quirks{
		{MissingCommands: []string{""}},
		{MissingCommands: []string{"sh"}},
		{MissingCommands: []string{"/system/bin/nproc"}},
		{MissingFiles: []string{"/data/local/tmp"}},
		{MissingFiles: []string{"/proc/[net"}},
		{DeniedServices: []string{""}},
		{DeniedServices: []string{"meminfo com.x"}},
		{HugeOutputs: []HugeOutput{{Command: " "}}},
		{HugeOutputs: []HugeOutput{{Command: "dumpsys meminfo", Bytes: -1}}},
	} {
		if _, err := New(Config{Quirks: q}); err == nil {
			t.Errorf("New with Quirks %+v: no error", q)
		}
	}
}

// TestQuirksOnlineCores parks half the cores: the files and commands that
// count cores tell online from possible as a real kernel does, and the cpu
// line grows with the online cores alone.
func TestQuirksOnlineCores(t *testing.T) {
	d := newTestDevice(t, Config{Cores: 8, Quirks: Quirks{OnlineCores: 4}})
	runCases(t, d, []shellCase{
		{name: "nproc", cmd: "nproc", wantOut: "4\n"},
		{name: "online", cmd: "cat /sys/devices/system/cpu/online", wantOut: "0-3\n"},
		{name: "possible", cmd: "cat /sys/devices/system/cpu/possible", wantOut: "0-7\n"},
		{name: "present", cmd: "cat /sys/devices/system/cpu/present", wantOut: "0-7\n"},
		{name: "cpuN lines", cmd: "grep -c '^cpu[0-9]' /proc/stat", wantOut: "4\n"},
		{name: "configured", cmd: "getconf _NPROCESSORS_CONF", wantOut: "8\n"},
	})
	w := d.World()
	before := w.Truth()
	up := w.Uptime()
	for w.Uptime()-up < 200*time.Millisecond {
		time.Sleep(10 * time.Millisecond)
	}
	after := w.Truth()
	// Δtotal is 4 cores' worth of 100 ticks a second, give or take the
	// ticks the two reads straddle.
	secs := (after.Uptime - before.Uptime).Seconds()
	if got, want := float64(after.DeviceTotal-before.DeviceTotal), 4*100*secs; got < want-8 || got > want+8 {
		t.Errorf("Δtotal %.0f ticks over %.3f s, want %.0f (4 online cores)", got, secs, want)
	}
	if _, err := New(Config{Cores: 4, Quirks: Quirks{OnlineCores: 5}}); err == nil {
		t.Error("more cores online than the phone has: no error")
	}
}

// countingWriter counts what is written and keeps the first bytes; it
// fails once it has taken failAfter bytes (0: never).
type countingWriter struct {
	n, failAfter int64
	head         bytes.Buffer
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.failAfter > 0 && c.n >= c.failAfter {
		return 0, errors.New("reader gone")
	}
	c.n += int64(len(p))
	if c.head.Len() < 4096 {
		c.head.Write(p[:min(len(p), 4096)])
	}
	return len(p), nil
}

// TestQuirksHugeOutputs: a command of HugeOutputs prints its real output
// over and over up to the size asked for, streamed in pieces (its memory is
// a piece's, not the output's), and stops when its reader goes away;
// others print as before.
func TestQuirksHugeOutputs(t *testing.T) {
	const size = 256 << 20
	d := newTestDevice(t, Config{Quirks: Quirks{HugeOutputs: []HugeOutput{{Command: "dumpsys meminfo", Bytes: size}}}})
	run(t, d, "monkey -p "+PresetPackage+" 1", "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var out countingWriter
	code := d.Shell(ctx, "dumpsys meminfo "+PresetPackage, nil, &out, &out)
	runtime.ReadMemStats(&after)
	if code != 0 || out.n != size || !strings.Contains(out.head.String(), "TOTAL") {
		t.Errorf("exit %d, %d bytes, want 0 and %d of the meminfo dump repeated: %.300q", code, out.n, size, out.head.String())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/16 {
		t.Errorf("printing %d bytes allocated %d: not streamed", size, alloc)
	}

	// A reader that goes away ends it.
	gone := countingWriter{failAfter: 1 << 20}
	if code := d.Shell(ctx, "dumpsys meminfo "+PresetPackage, nil, &gone, &gone); code == 0 || gone.n > 2<<20 {
		t.Errorf("reader gone after 1 MiB: exit %d, %d bytes written", code, gone.n)
	}
	// The default is 4 GiB; other commands and services are not touched.
	if q := (Quirks{HugeOutputs: []HugeOutput{{Command: "dumpsys meminfo"}}}); q.Validate() != nil {
		t.Errorf("Bytes 0: %v", q.Validate())
	}
	if out, _, code := run(t, d, "dumpsys gfxinfo "+PresetPackage+" framestats", ""); code != 0 || len(out) > 1<<20 || !strings.Contains(out, "---PROFILEDATA---") {
		t.Errorf("gfxinfo: exit %d, %d bytes", code, len(out))
	}
}
