package perftest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/result"
)

// endOut builds the output of endCmds for API 24+: the device clock read at
// boottime 12000 s, wall time 1732438812 (local = UTC + tz), and the crash
// and main/system buffers.
func endOut(tz time.Duration, crash, main string) []adbx.Result {
	local := time.Unix(1732438812, 0).UTC().Add(tz).Format("2006-01-02 15:04:05")
	return []adbx.Result{
		{Stdout: []byte("12000.00 80000.00\n")},
		{Stdout: []byte("1732438812.000000000 " + local + "\n")},
		{Stdout: []byte(crash)},
		{Stdout: []byte(main)},
	}
}

// at is a `-v threadtime -v epoch` line (liblog's layout) at wall time
// 1732438812 + off, boottime 12000 s + off.
func at(off time.Duration, pid, tid int, level, tag, msg string) string {
	t := time.Unix(1732438812, 0).Add(off)
	return fmt.Sprintf("%19d.%03d %5d %5d %s %-8s: %s\n", t.Unix(), t.Nanosecond()/1e6, pid, tid, level, tag, msg)
}

func TestAttributeEnd(t *testing.T) {
	const pkg = "com.perfgate.demo"
	s := time.Second
	ms := time.Millisecond
	// The process (pid 4242, started at 11990 s) was last seen at 11999.9 s
	// and found gone at 12000.0 s; the log is read just after.
	end := processEnd{pid: 4242, aliveUp: int64(11999900 * ms), deadUp: int64(12000 * s), startUp: int64(11990 * s)}
	oldCrashOther := at(-30*s, 2871, 2871, "E", "AndroidRuntime", "FATAL EXCEPTION: main") +
		at(-30*s, 2871, 2871, "E", "AndroidRuntime", "Process: com.android.vending, PID: 2871") +
		at(-30*s, 2871, 2871, "E", "AndroidRuntime", "java.lang.NullPointerException")
	// An earlier process had pid 4242 and crashed, long before this one
	// started.
	reusedPid := at(-600*s, 4242, 4242, "E", "AndroidRuntime", "FATAL EXCEPTION: main") +
		at(-600*s, 4242, 4242, "E", "AndroidRuntime", "Process: com.perfgate.demo, PID: 4242") +
		at(-600*s, 4242, 4242, "E", "AndroidRuntime", "java.lang.OutOfMemoryError")
	crash := at(-250*ms, 4242, 4242, "E", "AndroidRuntime", "FATAL EXCEPTION: main") +
		at(-250*ms, 4242, 4242, "E", "AndroidRuntime", "Process: com.perfgate.demo, PID: 4242") +
		at(-250*ms, 4242, 4242, "E", "AndroidRuntime", "java.lang.IllegalStateException: perfgate demo crash")
	tests := []struct {
		name           string
		out            []adbx.Result
		reason, cause  string
		evidence, kept string
		lines          int
		crash          bool
	}{
		{"java crash among old crashes",
			endOut(0, oldCrashOther+reusedPid+crash, at(-400*ms, 4242, 4250, "D", "Feed", "loading")+
				at(-100*ms, 1000, 1100, "I", "ActivityManager", "Process com.perfgate.demo (pid 4242) has died: fg  TOP ")+
				at(-50*ms, 1000, 1100, "I", "ActivityManager", "Start proc 4300:com.perfgate.demo/u0a234 for activity {com.perfgate.demo/.MainActivity}")),
			logcat.EndCrash, "java", "FATAL EXCEPTION: main", "perfgate demo crash", 5, true},
		{"force-stopped, with an old crash of another app and of the pid's last owner",
			endOut(0, oldCrashOther+reusedPid, at(-60*ms, 1000, 1100, "I", "ActivityManager", "Force stopping com.perfgate.demo appid=10234 user=0: from pid 5555")+
				at(-59*ms, 1000, 1100, "I", "ActivityManager", "Killing 4242:com.perfgate.demo/u0a234 (adj 0): stop com.perfgate.demo due to from pid 5555")),
			logcat.EndForceStopped, "from pid 5555", "Force stopping com.perfgate.demo", "Killing 4242", 2, false},
		{"killed by the low memory killer",
			endOut(0, reusedPid, at(-20*ms, 321, 321, "I", "lowmemorykiller", "Kill 'com.perfgate.demo' (4242), uid 10234, oom_score_adj 900 to free 45000kB rss, 1000kB swap; reason: low watermark is breached")),
			logcat.EndKilled, "low memory killer: low watermark is breached", "Kill 'com.perfgate.demo' (4242)", "oom_score_adj", 1, false},
		{"an old force-stop is another death's",
			endOut(0, "", at(-40*s, 1000, 1100, "I", "ActivityManager", "Force stopping com.perfgate.demo appid=10234 user=0: from pid 5555")),
			logcat.EndUnknown, "", "", "", 0, false},
		{"year-less local times, two hours east of UTC",
			[]adbx.Result{{Stdout: []byte("12000.00 1.00\n")}, {Stdout: []byte("1732438812.000000000 2024-11-24 11:00:12\n")},
				{Stdout: []byte("11-24 10:50:12.000  4242  4242 E AndroidRuntime: FATAL EXCEPTION: main\n" + // 600 s earlier: the pid's last owner
					"11-24 11:00:11.800  4242  4242 F libc    : Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid 4242 (main), pid 4242 (com.perfgate.demo)\n")},
				{Stdout: []byte("11-24 11:00:11.900  1000  1100 I ActivityManager: Process com.perfgate.demo (pid 4242) has died: fg  TOP\n")}},
			logcat.EndCrash, "native", "Fatal signal 11", "has died", 2, true},
		{"no wall clock: lines by pid alone",
			[]adbx.Result{{Stdout: []byte("12000.00 1.00\n")}, {Stderr: []byte("/system/bin/sh: date: inaccessible or not found"), ExitCode: 127},
				{Stdout: []byte(crash)}, {Stdout: []byte(oldCrashOther)}},
			logcat.EndCrash, "java", "FATAL EXCEPTION", "IllegalStateException", 3, true},
		{"the log cannot be read",
			[]adbx.Result{{Stdout: []byte("12000.00 1.00\n")}, {Stdout: []byte("1732438812.000000000 2024-11-24 09:00:12\n")},
				{Stderr: []byte("logcat: permission denied"), ExitCode: 1}, {Stderr: []byte("logcat: permission denied"), ExitCode: 1}},
			logcat.EndUnknown, "", "", "", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cr, _, notes, crash := attributeEnd(result.Crash{PID: end.pid}, end, pkg, 100*ms, endCmds(33), tc.out)
			if cr.Reason != tc.reason || cr.Cause != tc.cause || !strings.Contains(cr.Evidence, tc.evidence) || crash != tc.crash {
				t.Errorf("%s (%s) by %q, crash %v; want %s (%s) by %q, crash %v", cr.Reason, cr.Cause, cr.Evidence, crash, tc.reason, tc.cause, tc.evidence, tc.crash)
			}
			if len(cr.Logcat) != tc.lines || !strings.Contains(strings.Join(cr.Logcat, "\n"), tc.kept) {
				t.Errorf("kept %d lines holding %q, want %d:\n%s", len(cr.Logcat), tc.kept, tc.lines, strings.Join(cr.Logcat, "\n"))
			}
			for _, l := range cr.Logcat {
				if strings.Contains(l, "OutOfMemoryError") || strings.Contains(l, "2871") || strings.Contains(l, "Start proc") {
					t.Errorf("kept another process's line %q", l)
				}
			}
			if (tc.reason == logcat.EndUnknown || tc.name == "no wall clock: lines by pid alone") && len(notes) == 0 {
				t.Error("no note")
			}
			t.Logf("notes %q", notes)
		})
	}
}

// TestAttributeEndCapture reads a real device's log (a native crash of
// surfaceflinger, pid 139, next to the launcher's frames, pid 1012): the
// launcher's end is not that crash.
func TestAttributeEndCapture(t *testing.T) {
	log := fixtures.Read(t, "logcat_choreographer/celadon188_threadtime_davey_skipped79.txt")
	out := []adbx.Result{{Stdout: []byte("5000.00 1.00\n")}, {Stdout: []byte("1554083702.000000000 2019-04-01 01:55:02\n")},
		{Stdout: log}, {}}
	end := processEnd{pid: 1012, aliveUp: 4999_900_000_000, deadUp: 5000_000_000_000}
	cr, _, _, crash := attributeEnd(result.Crash{}, end, "com.android.launcher3", 100*time.Millisecond, endCmds(23), out)
	if crash || cr.Reason != logcat.EndUnknown || len(cr.Logcat) != 3 {
		t.Errorf("launcher end: %s (%s) by %q, crash %v, lines %q", cr.Reason, cr.Cause, cr.Evidence, crash, cr.Logcat)
	}
	end.pid = 139
	cr, _, _, crash = attributeEnd(result.Crash{}, end, "surfaceflinger", 100*time.Millisecond, endCmds(23), out)
	if !crash || cr.Reason != logcat.EndCrash || cr.Cause != "native" || !strings.Contains(cr.Evidence, "SIGSEGV") {
		t.Errorf("surfaceflinger end: %s (%s) by %q, crash %v", cr.Reason, cr.Cause, cr.Evidence, crash)
	}
}

func TestParseLogClock(t *testing.T) {
	ok := func(s string) adbx.Result { return adbx.Result{Stdout: []byte(s)} }
	c, err := parseLogClock(ok("12000.50 1.00\n"), ok("1732438812.123456789 2024-11-24 10:00:12\n"))
	if err != nil || c.up != 12000500e6 || c.res != time.Millisecond || !c.epoch.Equal(time.Unix(1732438812, 123456789)) ||
		c.local != time.Date(2024, 11, 24, 10, 0, 12, 123456789, time.UTC) {
		t.Errorf("clock %+v, %v", c, err)
	}
	// An old toolbox date prints %N as N: a second's resolution.
	if c, err := parseLogClock(ok("12000.50 1.00\n"), ok("1732438812.N 2024-11-24 10:00:12\n")); err != nil || c.res != time.Second {
		t.Errorf("clock %+v, %v", c, err)
	}
	for _, bad := range [][2]adbx.Result{
		{{Stderr: []byte("cat: /proc/uptime: Permission denied"), ExitCode: 1}, ok("1 2024-11-24 10:00:12")},
		{ok("12000.50"), {Stderr: []byte("/system/bin/sh: date: inaccessible or not found"), ExitCode: 127}},
		{ok("12000.50"), ok("Sun Nov 24 10:00:12 UTC 2024")},
	} {
		if _, err := parseLogClock(bad[0], bad[1]); err == nil {
			t.Errorf("%q %q: no error", bad[0].Stdout, bad[1].Stdout)
		} else if bad[0].ExitCode+bad[1].ExitCode > 0 && !strings.Contains(err.Error(), "exit status") {
			t.Errorf("error %v does not give the exit status", err)
		}
	}
}

func FuzzAttributeEnd(f *testing.F) {
	f.Add([]byte("         1732438811.750  4242  4242 E AndroidRuntime: FATAL EXCEPTION: main\n"), 4242, []byte("1732438812.000000000 2024-11-24 09:00:12"))
	f.Add(fixtures.Read(f, "logcat_choreographer/celadon188_threadtime_davey_skipped79.txt"), 139, []byte("1554083702.N 2019-04-01 01:55:02"))
	f.Add(fixtures.Read(f, "anr/flutter70028_threadtime_tvbox_anr_in_cpu_usage_later_excerpt.txt"), 4960, []byte("x"))
	f.Fuzz(func(t *testing.T, log []byte, pid int, date []byte) {
		out := []adbx.Result{{Stdout: []byte("12000.00 1.00\n")}, {Stdout: date}, {Stdout: log}, {Stdout: log}}
		end := processEnd{pid: pid, aliveUp: 11999_900_000_000, deadUp: 12000_000_000_000}
		cr, _, _, crash := attributeEnd(result.Crash{}, end, "com.perfgate.demo", 100*time.Millisecond, endCmds(33), out)
		if len(cr.Logcat) > endLines {
			t.Fatalf("%d lines kept", len(cr.Logcat))
		}
		switch cr.Reason {
		case logcat.EndCrash:
			if !crash || cr.Evidence == "" {
				t.Fatalf("crash %+v not counted or without evidence", cr)
			}
		case logcat.EndKilled, logcat.EndForceStopped, logcat.EndUnknown:
			if crash {
				t.Fatalf("%s counted as a crash from a readable log", cr.Reason)
			}
		default:
			t.Fatalf("reason %q", cr.Reason)
		}
	})
}
