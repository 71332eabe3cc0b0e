package simdevice

import (
	"regexp"
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
