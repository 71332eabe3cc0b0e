package simdevice

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/trace"
)

const minimalConfig = `duration_ms: 60000 buffers { size_kb: 2048 }
data_sources { config { name: "linux.ftrace" ftrace_config { ftrace_events: "sched/sched_switch" atrace_categories: "view" } } }
data_sources { config { name: "android.surfaceflinger.frametimeline" } }
data_sources { config { name: "linux.process_stats" } }`

// stamp is the "[  12.345]" prefix of perfetto's log lines.
var stamp = regexp.MustCompile(`\[ *[0-9]+\.[0-9]{3}\] +`)

// What each Android version's perfetto takes, and how it refuses the rest.
func TestPerfettoCommandLine(t *testing.T) {
	out := " -o /data/misc/perfetto-traces/t"
	for _, tc := range []struct {
		name    string
		api     int
		q       Quirks
		cmd     string
		stdin   string
		wantOut string // a substring
		wantErr string // a substring, perfetto's log stamps removed
		code    int
	}{
		{name: "no --txt on Android 9", api: 28, cmd: "perfetto --txt -c -" + out, stdin: minimalConfig, wantErr: "perfetto: unrecognized option '--txt'", code: 1},
		{name: "no --background-wait on Android 11", api: 30, cmd: "perfetto --txt -c -" + out + " --background-wait", stdin: minimalConfig, wantErr: "unrecognized option '--background-wait'", code: 1},
		{name: "no --query on Android 9", api: 28, cmd: "perfetto --query", wantErr: "unrecognized option '--query'", code: 1},
		{name: "query on Android 11", api: 30, cmd: "perfetto --query | grep -c traced_probes", wantOut: "8\n"},
		{name: "FrameTimeline from Android 12", api: 33, cmd: "perfetto --query | grep -c frametimeline", wantOut: "2\n"},
		{name: "a data source taken away", api: 33, q: Quirks{MissingDataSources: []string{dsFrameTimeline}}, cmd: "perfetto --query | grep -c frametimeline", wantOut: "1\n"},
		{name: "no perfetto", api: 33, q: Quirks{MissingCommands: []string{"perfetto"}}, cmd: "perfetto --query", wantErr: "/system/bin/sh: perfetto: inaccessible or not found", code: 127},
		{name: "unknown field", api: 33, cmd: "perfetto --txt -c -" + out, stdin: "duration: 5 " + minimalConfig, wantErr: "<stdin>:1: No field named \"duration\" in proto TraceConfig\nperfetto_cmd.cc:704  The trace config is invalid, bailing out.", code: 1},
		{name: "unknown ftrace field", api: 33, cmd: "perfetto --txt -c -" + out, stdin: `data_sources { config { name: "linux.ftrace" ftrace_config { events: "x" } } }`, wantErr: "No field named \"events\" in proto FtraceConfig", code: 1},
		{name: "no data source", api: 33, cmd: "perfetto --txt -c -" + out, stdin: "duration_ms: 5", wantErr: "The trace config has no data source", code: 1},
		{name: "empty config", api: 33, cmd: "perfetto --txt -c -" + out, stdin: "\n", wantErr: "The TraceConfig is empty", code: 1},
		{name: "text without --txt", api: 33, cmd: "perfetto -c -" + out, stdin: minimalConfig, wantErr: "Try adding --txt to the cmdline.", code: 1},
		{name: "no output", api: 33, cmd: "perfetto --txt -c -", stdin: minimalConfig, wantErr: "Either --out or --upload is required", code: 1},
		{name: "output the shell cannot write", api: 33, cmd: "perfetto --txt -c - -o /data/local/tmp/t", stdin: minimalConfig,
			wantErr: "Failed to open /data/local/tmp/t. If you get permission denied in /data/misc/perfetto-traces", code: 1},
		{name: "config file before Android 12", api: 30, cmd: "echo 'x: 1' > /data/local/tmp/c; perfetto --txt -c /data/local/tmp/c" + out,
			wantErr: "Could not open /data/local/tmp/c. If this is a permission denied error, try placing the config in /data/misc/perfetto-configs", code: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newTestDevice(t, Config{API: tc.api, Quirks: tc.q})
			o, e, code := run(t, d, tc.cmd, tc.stdin)
			e = stamp.ReplaceAllString(e, "")
			if code != tc.code || !strings.Contains(o, tc.wantOut) || !strings.Contains(e, tc.wantErr) {
				t.Errorf("%s\n got stdout %q stderr %q status %d\nwant stdout %q stderr %q status %d", tc.cmd, o, e, code, tc.wantOut, tc.wantErr, tc.code)
			}
		})
	}
}

// In the background perfetto prints its pid and records until killed; it
// then writes the file and exits a moment later, so the file is whole only
// once kill -0 no longer finds it. SIGKILL leaves the file empty.
func TestPerfettoBackground(t *testing.T) {
	t.Parallel()
	d := newTestDevice(t, Config{API: 33, Workload: mustPreset(t, "janky-scroll")})
	run(t, d, "monkey -p "+PresetPackage+" -c android.intent.category.LAUNCHER 1", "")
	const f = "/data/misc/perfetto-traces/bg.perfetto-trace"
	pid, e, code := run(t, d, "perfetto --txt -c - -o "+f+" --background-wait", minimalConfig)
	pid = strings.TrimSpace(pid)
	if code != 0 || !regexp.MustCompile(`^[0-9]+$`).MatchString(pid) {
		t.Fatalf("start: status %d, stdout %q, stderr %q", code, pid, e)
	}
	if _, e, code := run(t, d, "kill -0 "+pid, ""); code != 0 {
		t.Fatalf("kill -0 while recording: %d %q", code, e)
	}
	// Some frames into the recording.
	started := d.World().Uptime()
	deadline := time.Now().Add(20 * time.Second)
	for n := 0; n < 10; {
		if time.Now().After(deadline) {
			t.Fatal("the app rendered no frame in 20 s")
		}
		n = 0
		for _, f := range d.World().TruthFrames() {
			if f.IntendedVsync > int64(started) {
				n++
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	o, e, code := run(t, d, "kill -TERM "+pid+"; i=0; while kill -0 "+pid+" 2>/dev/null; do i=$((i+1)); [ $i -ge 100 ] && exit 124; sleep 0.1; done; echo gone", "")
	if code != 0 || o != "gone\n" {
		t.Fatalf("stop: %d %q %q", code, o, e)
	}
	if _, e, code := run(t, d, "kill -0 "+pid, ""); code != 1 || e != "kill: "+pid+": No such process\n" {
		t.Errorf("kill -0 after the exit: %d %q", code, e)
	}
	rc, err := d.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(rc)
	a, err := trace.Analyze(bytes.NewReader(data), trace.Options{Package: PresetPackage})
	if err != nil || !strings.Contains(strings.Join(a.Sources, " "), "frametimeline") || len(a.Frames) == 0 {
		t.Fatalf("the pulled trace (%d bytes): %v, sources %v, %d frames", len(data), err, a.Sources, len(a.Frames))
	}

	pid, _, _ = run(t, d, "perfetto --txt -c - -o /data/misc/perfetto-traces/killed --background", minimalConfig)
	pid = strings.TrimSpace(pid)
	if _, e, code := run(t, d, "kill -9 "+pid+"; kill -0 "+pid, ""); code != 1 || !strings.Contains(e, "No such process") {
		t.Errorf("after SIGKILL: %d %q", code, e)
	}
	if o, _, _ := run(t, d, "ls -l /data/misc/perfetto-traces/killed", ""); !strings.Contains(o, " 0 ") {
		t.Errorf("SIGKILL left %q", o)
	}
}

// In the foreground perfetto records for the config's duration, writes the
// file and says how much it wrote.
func TestPerfettoForeground(t *testing.T) {
	d := newTestDevice(t, Config{API: 33})
	cfg := strings.Replace(minimalConfig, "duration_ms: 60000", "duration_ms: 200", 1)
	_, e, code := run(t, d, "perfetto --txt -c - -o /data/misc/perfetto-traces/fg", cfg)
	if code != 0 || !regexp.MustCompile(`Wrote [1-9][0-9]* bytes into /data/misc/perfetto-traces/fg`).MatchString(e) {
		t.Errorf("status %d, stderr %q", code, e)
	}
}

// What a session that died leaves on a phone: perfetto still recording,
// listed by ps with the command line that names its file, and the file,
// whose time the shell can set back (touch -d) as if it were older. Once
// perfetto has exited, ps no longer lists it.
func TestPerfettoLeftoverInPs(t *testing.T) {
	t.Parallel()
	d := newTestDevice(t, Config{API: 33})
	const f = "/data/misc/perfetto-traces/perfgate-x-1.perfetto-trace"
	pid, e, code := run(t, d, "perfetto --txt -c - -o "+f+" --background", minimalConfig)
	pid = strings.TrimSpace(pid)
	if code != 0 {
		t.Fatalf("start: %d %q", code, e)
	}
	want := regexp.MustCompile(`(?m)^ *` + pid + ` perfetto --txt -c - -o ` + regexp.QuoteMeta(f) + ` --background$`)
	if o, e, code := run(t, d, "ps -A -o PID,ARGS", ""); code != 0 || !want.MatchString(o) {
		t.Errorf("ps -A -o PID,ARGS: %d %q %q, want a line matching %s", code, o, e, want)
	}
	if o, _, _ := run(t, d, "ps -p "+pid+" -o NAME", ""); !strings.HasSuffix(o, "perfetto\n") {
		t.Errorf("ps -p %s -o NAME: %q", pid, o)
	}
	now, _, _ := run(t, d, "date +%s", "")
	old, _ := strconv.ParseInt(strings.TrimSpace(now), 10, 64)
	old -= 1800
	if o, e, code := run(t, d, fmt.Sprintf("touch -d @%d %s && stat -c %%Y %s", old, f, f), ""); code != 0 || o != fmt.Sprintln(old) {
		t.Errorf("touch -d: %d %q %q, want %d", code, o, e, old)
	}
	if _, e, code := run(t, d, "touch -t 202401020304.05 /data/local/tmp/x && stat -c %y /data/local/tmp/x", ""); code != 0 {
		t.Errorf("touch -t: %d %q", code, e)
	} else if o, _, _ := run(t, d, "stat -c %y /data/local/tmp/x", ""); !strings.HasPrefix(o, "2024-01-02 03:04:05.") {
		t.Errorf("touch -t 202401020304.05: %q", o)
	}
	run(t, d, "kill -TERM "+pid+"; while kill -0 "+pid+" 2>/dev/null; do sleep 0.01; done", "")
	if o, _, _ := run(t, d, "ps -A -o PID,ARGS", ""); strings.Contains(o, "perfetto") {
		t.Errorf("ps lists perfetto after its exit: %q", o)
	}
	if o, _, _ := run(t, d, "stat -c %Y "+f, ""); o == fmt.Sprintln(old) {
		t.Errorf("perfetto wrote its file but its time stayed %q", o)
	}
}

// Quirks.BrokenPulls and ShortPulls: the sync service sends half of the
// file, then fails the read (EIO) or ends the transfer as if the file
// ended there; the file on the device stays whole either way.
func TestPerfettoPullFaults(t *testing.T) {
	t.Parallel()
	const dir = "/data/misc/perfetto-traces/"
	d := newTestDevice(t, Config{API: 33, Quirks: Quirks{BrokenPulls: []string{dir + "broken*"}, ShortPulls: []string{dir + "short*"}}})
	for _, name := range []string{"broken", "short", "whole"} {
		f := dir + name
		pid, e, code := run(t, d, "perfetto --txt -c - -o "+f+" --background", minimalConfig)
		if code != 0 {
			t.Fatalf("start: %d %q", code, e)
		}
		pid = strings.TrimSpace(pid)
		run(t, d, "kill -TERM "+pid+"; while kill -0 "+pid+" 2>/dev/null; do sleep 0.01; done", "")
		fi, err := d.Stat(f)
		if err != nil || fi.Size() < 2 {
			t.Fatalf("%s: %v, %v", f, fi, err)
		}
		rc, err := d.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		var wantErr error
		wantN := fi.Size() / 2
		switch name {
		case "broken":
			wantErr = syscall.EIO
		case "whole":
			wantN = fi.Size()
		}
		if int64(len(b)) != wantN || !errors.Is(err, wantErr) || (wantErr == nil) != (err == nil) {
			t.Errorf("%s: read %d of %d bytes, error %v; want %d bytes, error %v", name, len(b), fi.Size(), err, wantN, wantErr)
		}
		if after, _ := d.Stat(f); after == nil || after.Size() != fi.Size() {
			t.Errorf("%s: the device file changed with the pull: %v", name, after)
		}
	}
	for _, bad := range []string{"relative*", "/a/[b"} {
		if _, err := New(Config{Quirks: Quirks{ShortPulls: []string{bad}}}); err == nil {
			t.Errorf("ShortPulls %q: no error", bad)
		}
	}
}
