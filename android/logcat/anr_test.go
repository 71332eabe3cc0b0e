package logcat

import (
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestParseANRsCaptures(t *testing.T) {
	const inputTimeout = "Input dispatching timed out (Waiting to send non-key event because the touched window has not finished processing certain input events that were delivered to it over 500.0ms ago.  Wait queue length: "
	tests := []struct {
		file      string
		process   string
		component string
		pid       int
		reason    string // its start
		logger    int    // the logging system_server's pid, -1 when the copy has none
		timed     bool
	}{
		{"anr/droidcon53_studio_format_2017_anr_in_cpu_usage_with_awake.txt", "co.touchlab.droidcon.anon",
			"co.touchlab.droidcon.anon/co.touchlab.droidconandroid.ScheduleActivity", 27003, inputTimeout + "58.", 951, true},
		{"anr/matisse23_studio_format_mumu_emulator_anr_in_cpu_usage_excerpt.txt", "com.unistrong.mapoffline",
			"com.unistrong.mapoffline/com.matisse.ui.activity.matisse.MatisseActivity", 1866, inputTimeout + "4.", 369, true},
		{"anr/flutter70028_threadtime_tvbox_anr_in_cpu_usage_later_excerpt.txt", "com.zxs.app",
			"com.zxs.app/com.zxs.flutter_app.MainActivity", 4960, inputTimeout + "12.", 2479, true},
		{"anr/droidify1135_android14plus_anr_in_psi_tag_only_excerpt.txt", "com.looker.droidify",
			"com.looker.droidify/.MainActivity", 17681, "Input dispatching timed out (61a981d com.looker.droidify/", -1, false},
		// The author elided the report's middle: no PID line.
		{"looper_slow/glassai_emulator_api31_system_server_slow_delivery_52s_then_anr.txt", "com.smartview.glassai",
			"com.smartview.glassai/.MainActivity", -1, "Input dispatching timed out (f8ee1fe ", 541, true},
	}
	for _, tt := range tests {
		anrs := ParseANRs(fixtures.Read(t, tt.file))
		if len(anrs) != 1 {
			t.Errorf("%s: %d ANRs, want 1", tt.file, len(anrs))
			continue
		}
		a := anrs[0]
		if a.Process != tt.process || a.Component != tt.component || a.PID != tt.pid || !strings.HasPrefix(a.Reason, tt.reason) ||
			a.Entry.PID != tt.logger || a.Entry.Time.IsZero() == tt.timed {
			t.Errorf("%s: %+v", tt.file, a)
		}
	}
	// Two reports back to back in one log, and another app's lines between.
	log := "03-24 11:45:56.097  2479  2510 E ActivityManager: ANR in a.b (a.b/.M)\n" +
		"03-24 11:45:56.097  2479  2510 E ActivityManager: PID: 10\n" +
		"03-24 11:45:56.100  3000  3000 I art: hello\n" +
		"03-24 11:46:01.000  2479  2510 E ActivityManager: ANR in c.d\n" +
		"03-24 11:46:01.000  2479  2510 E ActivityManager: PID: 11\n" +
		"03-24 11:46:01.000  2479  2510 E ActivityManager: Reason: executing service c.d/.S\n"
	anrs := ParseANRs([]byte(log))
	if len(anrs) != 2 || anrs[0].PID != 10 || anrs[0].Reason != "" || anrs[1].Process != "c.d" || anrs[1].Component != "" || anrs[1].PID != 11 || anrs[1].Reason != "executing service c.d/.S" {
		t.Errorf("two reports: %+v", anrs)
	}
}

func TestParseANRTracesCaptures(t *testing.T) {
	tests := []struct {
		file     string
		sections int
		pid      int
		cmd      string
		threads  int
		state    string
		frames   int
		top      string
		locks    []string
	}{
		{"anr/boom618_huawei_mate8_nxt_al10_android7_data_anr_traces_full.txt", 23, 21753, "com.tencent.mm", 73, "Runnable", 92,
			"java.util.regex.Matcher.openImpl(Native method)", []string{"locked <0x0026486f> (a java.util.regex.Matcher)"}},
		// NUL bytes between sections do not end the dump.
		{"anr/hbpencil_meizu_mtk_android5_data_anr_traces_full_with_nul.txt", 14, 18672, "com.example.shinelon.wanandroid", 33, "Suspended", 13,
			"android.support.v4.view.ViewPager.populate(ViewPager.java:1199)", nil},
		// An excerpt of threads without the section header.
		{"anr/newsblur614_android5_dalvik_threads_main_blocked_excerpt.txt", 1, -1, "", 2, "Blocked", 12,
			"com.newsblur.database.BlurDatabaseHelper.<init>(BlurDatabaseHelper.java:59)",
			[]string{"waiting to lock <0x356916a7> (a java.lang.Object) held by thread 18"}},
	}
	for _, tt := range tests {
		secs := ParseANRTraces(fixtures.Read(t, tt.file))
		if len(secs) != tt.sections {
			t.Errorf("%s: %d sections, want %d", tt.file, len(secs), tt.sections)
			continue
		}
		s := secs[0]
		m := s.Main()
		if s.PID != tt.pid || s.Cmd != tt.cmd || len(s.Threads) != tt.threads || m == nil {
			t.Errorf("%s: section %d %q, %d threads, main %v", tt.file, s.PID, s.Cmd, len(s.Threads), m)
			continue
		}
		if m.State != tt.state || len(m.Frames) != tt.frames || m.Frames[0] != tt.top || strings.Join(m.Locks, "|") != strings.Join(tt.locks, "|") || m.TID != 1 {
			t.Errorf("%s: main %s %d frames, top %q, locks %q", tt.file, m.State, len(m.Frames), m.Frames[0], m.Locks)
		}
		if tt.pid > 0 && m.SysTid != tt.pid {
			t.Errorf("%s: main sysTid %d, want the pid %d", tt.file, m.SysTid, tt.pid)
		}
	}
	// The system_server section of the Huawei dump follows the app's.
	secs := ParseANRTraces(fixtures.Read(t, "anr/boom618_huawei_mate8_nxt_al10_android7_data_anr_traces_full.txt"))
	if secs[1].Cmd != "system_server" || secs[1].At != "2017-09-25 17:37:10" {
		t.Errorf("second section %d %q at %q", secs[1].PID, secs[1].Cmd, secs[1].At)
	}
}

func FuzzParseANRs(f *testing.F) {
	for _, name := range []string{
		"anr/droidcon53_studio_format_2017_anr_in_cpu_usage_with_awake.txt",
		"anr/droidify1135_android14plus_anr_in_psi_tag_only_excerpt.txt",
		"anr/flutter70028_threadtime_tvbox_anr_in_cpu_usage_later_excerpt.txt",
		"anr/newsblur614_android5_dalvik_threads_main_blocked_excerpt.txt",
	} {
		f.Add(fixtures.Read(f, name))
	}
	f.Add([]byte("----- pid 12 at 2017-09-25 17:37:10 -----\nCmd line: a.b\n\"main\" prio=5 tid=1 Native\n  at a.B.c(B.java:1)\n----- end 12 -----\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, a := range ParseANRs(in) {
			if a.Process == "" || a.PID == 0 || a.PID < -1 {
				t.Fatalf("bad ANR %+v", a)
			}
		}
		for _, s := range ParseANRTraces(in) {
			if s.PID == 0 || s.PID < -1 {
				t.Fatalf("bad section %+v", s)
			}
			if tm, ok := s.Time(); ok && (tm.Year() == 0 || !strings.HasPrefix(s.At, tm.Format("2006-01-02 15:04:05"))) {
				t.Fatalf("section at %q: time %v", s.At, tm)
			}
			for _, th := range s.Threads {
				for _, fr := range th.Frames {
					if strings.ContainsRune(fr, '\n') {
						t.Fatalf("frame spans lines: %q", fr)
					}
				}
			}
		}
	})
}

func TestANRTraceTime(t *testing.T) {
	for at, want := range map[string]string{
		"2017-09-25 17:37:10":                "2017-09-25T17:37:10Z",
		"2021-05-10 12:34:56.789012345+0800": "2021-05-10T12:34:56.789012345Z",
		"2026-11-28 14:00:05.000000000-0700": "2026-11-28T14:00:05Z",
		"2026-11-28 14:00:05.123":            "2026-11-28T14:00:05.123Z",
		"":                                   "",
		"17:37:10":                           "",
		"09-25 17:37:10":                     "",
		"2017-09-25 nonsense":                "",
	} {
		tm, ok := ANRTrace{At: at}.Time()
		got := ""
		if ok {
			got = tm.Format(time.RFC3339Nano)
		}
		if got != want {
			t.Errorf("Time of %q = %q, want %q", at, got, want)
		}
	}
	// The real dump's header.
	secs := ParseANRTraces(fixtures.Read(t, "anr/boom618_huawei_mate8_nxt_al10_android7_data_anr_traces_full.txt"))
	if tm, ok := secs[0].Time(); !ok || !tm.Equal(time.Date(2017, 9, 25, 17, 37, 10, 0, time.UTC)) {
		t.Errorf("time of the first section %q: %v %v", secs[0].At, tm, ok)
	}
}
