package logcat

import (
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestLogcatProcEventsCaptures(t *testing.T) {
	tests := []struct {
		file string
		want []ProcEvent
	}{
		// A native crash of another process (surfaceflinger), next to an
		// app's frames.
		{"logcat_choreographer/celadon188_threadtime_davey_skipped79.txt", []ProcEvent{
			{Kind: ProcNativeCrash, PID: 139, Process: "surfaceflinger", Detail: "signal 11 (SIGSEGV)", Entry: 0}}},
		{"anr/flutter70028_threadtime_tvbox_anr_in_cpu_usage_later_excerpt.txt", []ProcEvent{
			{Kind: ProcANR, PID: 4960, Process: "com.zxs.app", Entry: 0,
				Detail: "Input dispatching timed out (Waiting to send non-key event because the touched window has not finished processing certain input events that were delivered to it over 500.0ms ago.  Wait queue length: 12.  Wait queue head age: 5662.1ms.)"}}},
		// The author elided the PID line: the ANR names no pid.
		{"looper_slow/glassai_emulator_api31_system_server_slow_delivery_52s_then_anr.txt", []ProcEvent{
			{Kind: ProcANR, PID: -1, Process: "com.smartview.glassai", Entry: 3,
				Detail: "Input dispatching timed out (f8ee1fe com.smartview.glassai/com.smartview.glassai.MainActivity (server) is not responding. Waited 5029ms for KeyEvent(... keyCode=4 ...))"}}},
		{"logcat_choreographer/cyclestreets203_threadtime_2018.txt", nil},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got := ProcEvents(logcatFixture(t, tc.file))
			if len(got) != len(tc.want) {
				t.Fatalf("events %+v\nwant %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("event %d: %+v\nwant %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestLogcatProcEventsAOSP reads the process lines the platform prints, in
// the shapes of its sources (ActivityManagerService, ProcessRecord.kill,
// RuntimeInit, lmkd), written here as a device prints them under
// `-v threadtime -v epoch`.
func TestLogcatProcEventsAOSP(t *testing.T) {
	log := `         1732438800.100  1100  1310 I ActivityManager: Start proc 4321:com.example/u0a123 for pre-top-activity {com.example/com.example.Main}
         1732438801.200  4321  4321 E AndroidRuntime: FATAL EXCEPTION: main
         1732438801.200  4321  4321 E AndroidRuntime: Process: com.example, PID: 4321
         1732438801.200  4321  4321 E AndroidRuntime: java.lang.IllegalStateException: boom
         1732438801.200  4321  4321 E AndroidRuntime: 	at com.example.Main.onClick(Main.java:42)
         1732438801.260  1100  1400 I ActivityManager: Process com.example (pid 4321) has died: fg  TOP 
         1732438802.000  1100  1310 I ActivityManager: Force stopping com.example appid=10123 user=0: from pid 5555
         1732438802.001  1100  1310 I ActivityManager: Killing 4400:com.example:remote/u0a123 (adj 0): stop com.example due to from pid 5555
         1732438803.000   321   321 I lowmemorykiller: Kill 'com.example' (4500), uid 10123, oom_score_adj 900 to free 45000kB rss, 1000kB swap; reason: low watermark is breached
         1732438803.500  1100  1200 I ActivityManager: Killing 4600:com.android.vending/u0a92 (adj 925): empty for 1800s
         1732438804.000  1100  1200 I ActivityManager: Force stopping u0: user stopped
         1732438805.000  4700  4710 F libc    : Fatal signal 6 (SIGABRT), code -1 (SI_QUEUE) in tid 4710 (RenderThread), pid 4700 (com.example)
`
	entries, err := Parse([]byte(log))
	if err != nil {
		t.Fatal(err)
	}
	if !entries[0].Epoch || !entries[0].Time.Equal(time.Unix(1732438800, 100e6)) || entries[0].PID != 1100 {
		t.Fatalf("epoch line read as %+v", entries[0])
	}
	want := []ProcEvent{
		{Kind: ProcStart, PID: 4321, Process: "com.example", Entry: 0},
		{Kind: ProcJavaCrash, PID: 4321, Process: "com.example", Detail: "java.lang.IllegalStateException: boom", Entry: 1},
		{Kind: ProcDied, PID: 4321, Process: "com.example", Entry: 5},
		{Kind: ProcForceStop, PID: -1, Process: "com.example", Detail: "from pid 5555", Entry: 6},
		{Kind: ProcKill, PID: 4400, Process: "com.example:remote", Detail: "stop com.example due to from pid 5555", Entry: 7},
		{Kind: ProcLMK, PID: 4500, Process: "com.example", Detail: "low memory killer: low watermark is breached", Entry: 8},
		{Kind: ProcKill, PID: 4600, Process: "com.android.vending", Detail: "empty for 1800s", Entry: 9},
		{Kind: ProcNativeCrash, PID: 4700, Process: "com.example", Detail: "signal 6 (SIGABRT)", Entry: 11},
	}
	got := ProcEvents(entries)
	if len(got) != len(want) {
		t.Fatalf("events %+v\nwant %+v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("event %d: %+v\nwant %+v", i, got[i], want[i])
		}
	}

	classify := func(idx ...int) End {
		var evs []ProcEvent
		for _, i := range idx {
			evs = append(evs, got[i])
		}
		return ClassifyEnd(evs)
	}
	ends := []struct {
		events        []int
		reason, cause string
	}{
		{[]int{1, 2}, EndCrash, "java"},
		{[]int{2}, EndUnknown, ""},
		{nil, EndUnknown, ""},
		{[]int{3, 4}, EndForceStopped, "from pid 5555"},
		{[]int{4}, EndForceStopped, "stop com.example due to from pid 5555"},
		{[]int{5}, EndKilled, "low memory killer: low watermark is breached"},
		{[]int{6}, EndKilled, "empty for 1800s"},
		{[]int{7, 3}, EndCrash, "native"},
		{[]int{3, 1}, EndCrash, "java"},
	}
	for _, tc := range ends {
		end := classify(tc.events...)
		if end.Reason != tc.reason || end.Cause != tc.cause || (end.Reason == EndUnknown) != (end.Event == nil) {
			t.Errorf("events %v: %+v, want %s (%s)", tc.events, end, tc.reason, tc.cause)
		}
	}
	anr := ClassifyEnd(ProcEvents(logcatFixture(t, "anr/flutter70028_threadtime_tvbox_anr_in_cpu_usage_later_excerpt.txt")))
	if anr.Reason != EndCrash || anr.Cause != "anr" || anr.Event.PID != 4960 {
		t.Errorf("ANR capture: %+v", anr)
	}
}

func FuzzLogcatProcEvents(f *testing.F) {
	for _, name := range []string{
		"logcat_choreographer/celadon188_threadtime_davey_skipped79.txt",
		"anr/flutter70028_threadtime_tvbox_anr_in_cpu_usage_later_excerpt.txt",
		"looper_slow/glassai_emulator_api31_system_server_slow_delivery_52s_then_anr.txt",
	} {
		f.Add(fixtures.Read(f, name))
	}
	f.Add([]byte("1732438801.200  4321  4321 E AndroidRuntime: FATAL EXCEPTION: main\n1732438801.200  4321  4321 E AndroidRuntime: Process: com.example, PID: 4321\n" +
		"11-24 09:00:00.000  1100  1310 I ActivityManager: Killing 4400:com.example:remote/u0a123 (adj 0): stop com.example\n" +
		"11-24 09:00:00.000   321   321 I lowmemorykiller: Killing 'com.example' (4500), uid 10123, adj 900\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var entries []Entry
		for i, line := range strings.Split(string(b), "\n") {
			if e, ok := ParseLine(line); ok {
				e.Line = i + 1
				entries = append(entries, e)
			}
		}
		events := ProcEvents(entries)
		for _, ev := range events {
			if ev.Entry < 0 || ev.Entry >= len(entries) {
				t.Fatalf("event %+v points past %d entries", ev, len(entries))
			}
			switch ev.Kind {
			case ProcForceStop, ProcANR:
				if ev.Process == "" {
					t.Fatalf("%s without a name: %+v", ev.Kind, ev)
				}
			case ProcStart, ProcJavaCrash, ProcNativeCrash, ProcKill, ProcLMK, ProcDied:
				if ev.PID <= 0 {
					t.Fatalf("%s without a pid: %+v", ev.Kind, ev)
				}
			default:
				t.Fatalf("unknown kind %+v", ev)
			}
		}
		end := ClassifyEnd(events)
		switch end.Reason {
		case EndUnknown:
			if end.Event != nil {
				t.Fatalf("unknown end with an event: %+v", end)
			}
		case EndCrash, EndForceStopped, EndKilled:
			if end.Event == nil {
				t.Fatalf("%s without its line", end.Reason)
			}
		default:
			t.Fatalf("bad reason %+v", end)
		}
	})
}
