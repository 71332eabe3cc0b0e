package logcat

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func logcatFixture(t *testing.T, name string) []Entry {
	t.Helper()
	e, err := Parse(fixtures.Read(t, name))
	if err != nil {
		t.Fatalf("ParseLogcat(%s): %v", name, err)
	}
	return e
}

// stamp is a year-less logcat time.
func stamp(mo, d, h, mi, s, msec int) time.Time {
	return time.Date(0, time.Month(mo), d, h, mi, s, msec*1e6, time.UTC)
}

func TestParseLogcatFormats(t *testing.T) {
	tests := []struct {
		file    string
		entries int
		// one entry checked field by field
		at   int
		want Entry
		// Choreographer skipped counts in order
		skipped []int
	}{
		{"logcat_choreographer/celadon188_threadtime_davey_skipped79.txt", 8, 0,
			Entry{Time: stamp(4, 1, 1, 55, 1, 569), PID: 139, TID: 139, Level: 'F', Tag: "libc",
				Message: "Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x18 in tid 139 (surfaceflinger), pid 139 (surfaceflinger)", Line: 1},
			[]int{79}},
		{"logcat_choreographer/cyclestreets203_threadtime_2018.txt", 5, 1,
			Entry{Time: stamp(5, 16, 13, 34, 3, 271), PID: 918, TID: 940, Level: 'W', Tag: "art",
				Message: "Long monitor contention event with owner method=void com.android.server.am.ActivityManagerService.attachApplication(android.app.IApplicationThread) from ActivityManagerService.java:6186 waiters=0 for 230ms", Line: 2},
			[]int{89, 54}},
		{"logcat_choreographer/davey_flutterhtml57_brief_api24to28.txt", 2, 1,
			Entry{PID: 25720, TID: -1, Level: 'I', Tag: "OpenGLRenderer", Line: 2}, nil},
		{"logcat_choreographer/davey_revanced634_android12_flags1.txt", 1, 0,
			Entry{Time: stamp(1, 9, 14, 33, 16, 331), PID: 32042, TID: 32643, Level: 'I', Tag: "OpenGLRenderer", Line: 1}, nil},
		{"logcat_choreographer/davey_reveny117_android12_sdk32_los19_int64max_excerpt.txt", 2, 1,
			Entry{Time: stamp(5, 15, 17, 47, 56, 346), PID: 4077, TID: 5637, Level: 'I', Tag: "OpenGLRenderer", Line: 2}, nil},
		{"logcat_choreographer/esteem306_long_format_2018.txt", 6, 3,
			Entry{Time: stamp(5, 18, 0, 42, 29, 853), PID: 10387, TID: 10404, Level: 'D', Tag: "OpenGLRenderer",
				Message: "endAllStagingAnimators on 0x7f6b4fc800 (RippleDrawable) with handle 0x7f6bfbf620", Line: 10},
			[]int{7, 14, 4, 2, 1}},
		{"logcat_choreographer/flutter11533_brief_format.txt", 1, 0,
			Entry{PID: 20834, TID: -1, Level: 'I', Tag: "Choreographer",
				Message: "Skipped 43 frames!  The application may be doing too much work on its main thread.", Line: 1},
			[]int{43}},
		{"logcat_choreographer/justified5_studio_tag_only_format.txt", 3, 1,
			Entry{PID: -1, TID: -1, Level: 'I', Tag: "Choreographer",
				Message: "Skipped 272 frames!  The application may be doing too much work on its main thread.", Line: 2},
			[]int{272, 272, 153}},
		{"logcat_choreographer/mythtv193_ddms_time_format_2013.txt", 1, 0,
			Entry{Time: stamp(9, 25, 23, 8, 36, 101), PID: 10853, TID: -1, Level: 'I', Tag: "Choreographer",
				Message: "Skipped 613 frames!  The application may be doing too much work on its main thread", Line: 1},
			[]int{613}},
		{"logcat_choreographer/tablefixheaders61_android_studio_format_small_colon_2014.txt", 5, 0,
			Entry{Time: stamp(7, 31, 9, 42, 39, 250), PID: 857, TID: 857, Level: 'I', Tag: "Choreographer",
				Message: "Skipped 47 frames!  The application may be doing too much work on its main thread.", Line: 1},
			[]int{47, 41, 39, 42, 43}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			entries := logcatFixture(t, tc.file)
			if len(entries) != tc.entries {
				t.Fatalf("entries = %d, want %d", len(entries), tc.entries)
			}
			got := entries[tc.at]
			if tc.want.Message == "" {
				got.Message = "" // long Davey messages are checked in frames.TestLogcatDaveys
			}
			if got != tc.want {
				t.Errorf("entry %d =\n%+v, want\n%+v", tc.at, got, tc.want)
			}
			var counts []int
			for _, s := range Skipped(entries) {
				counts = append(counts, s.Frames)
			}
			if !slices.Equal(counts, tc.skipped) {
				t.Errorf("skipped = %v, want %v", counts, tc.skipped)
			}
		})
	}
}

func TestLogcatStartups(t *testing.T) {
	in := "11-22 08:00:01.234  1234  1300 I ActivityTaskManager: Displayed com.android.settings/.Settings: +1s234ms\n" +
		"11-22 08:00:02.000  1234  1300 I ActivityManager: Displayed com.example/.Main: +850ms (total +2s10ms)\n" +
		"2026-11-22 08:00:03.000  1234  1300 I ActivityTaskManager: Fully drawn com.example/.Main: +1m2s3ms\n" +
		"11-22 08:00:04.000  1234  1300 I ActivityTaskManager: START u0 {cmp=com.example/.Main} from uid 2000\n" +
		"11-22 08:00:05.000  4000  4000 I MyApp: Displayed com.fake/.X: +1ms\n"
	entries, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got := Startups(entries)
	want := []Displayed{
		{Time: stamp(11, 22, 8, 0, 1, 234), Line: 1, Component: "com.android.settings/.Settings", Duration: 1234 * time.Millisecond},
		{Time: stamp(11, 22, 8, 0, 2, 0), Line: 2, Component: "com.example/.Main", Duration: 850 * time.Millisecond, Total: 2010 * time.Millisecond},
		{Time: time.Date(2026, 11, 22, 8, 0, 3, 0, time.UTC), Line: 3, Component: "com.example/.Main", FullyDrawn: true, Duration: 62003 * time.Millisecond},
	}
	if !slices.Equal(got, want) {
		t.Errorf("startups =\n%+v, want\n%+v", got, want)
	}
}

func TestParseLogcatDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"+1s234ms", 1234 * time.Millisecond, true},
		{"850ms", 850 * time.Millisecond, true},
		{"+2m3s4ms", 123004 * time.Millisecond, true},
		{"1h0m0s1ms", time.Hour + time.Millisecond, true},
		{"1d2h", 26 * time.Hour, true},
		{"", 0, false},
		{"+", 0, false},
		{"12", 0, false},
		{"1x", 0, false},
		{"ms", 0, false},
		{"999999999d", 0, false}, // overflows int64 ns
	}
	for _, tc := range tests {
		got, ok := ParseDuration(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%q = %v %v, want %v %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseLogcatErrors(t *testing.T) {
	tests := []struct {
		in   string
		line int
	}{
		{"I/Choreographer: ok\nthis is not logcat\n", 2},
		{"--------- beginning of main\n\nrandom words here\n", 3},
		{"[ 05-18 00:42:29.500 x:y I/Tag ]\nmsg\n", 1},
	}
	for _, tc := range tests {
		_, err := Parse([]byte(tc.in))
		var pe *devtext.ParseError
		if !errors.As(err, &pe) || pe.Line != tc.line || pe.Source != Source {
			t.Errorf("%q: err = %v, want ParseError at line %d", tc.in, err, tc.line)
		}
	}
	entries, err := Parse([]byte("--------- beginning of main\n05-16 13:34:02.594  4036  4036 I Choreographer: Skipped 89 frames!\n"))
	if err != nil || len(entries) != 1 || entries[0].Line != 2 {
		t.Errorf("separator: %v %+v", err, entries)
	}
}

func FuzzParseLogcatMessages(f *testing.F) {
	f.Add("Davey! duration=34192ms; Flags=1, FrameTimelineVsyncId=3044718, IntendedVsync=58055296526994, FrameInterval=58055297328840, FrameStartTime=16666666, FrameCompleted=58089488958515, ")
	f.Add("Davey! duration=9223360591209ms; Flags=0, QueueBufferDuration=6606")
	f.Add("Displayed com.example/.Main: +850ms (total +2s10ms)")
	f.Add("Fully drawn com.example/.Main: +1m2s3ms")
	f.Fuzz(func(t *testing.T, msg string) {
		if d, ok := ParseDavey(msg); ok {
			f := d.Frame()
			if d.LabelSwapped && !gfxPeriodLike(f.FrameInterval) {
				t.Fatalf("swapped to a non-period FrameInterval %d", f.FrameInterval)
			}
		}
		if d, ok := ParseDisplayed(msg); ok && (d.Component == "" || d.Duration < 0 || d.Total < 0) {
			t.Fatalf("bad startup %+v", d)
		}
		if v, ok := ParseDuration(msg); ok && v < 0 {
			t.Fatalf("negative duration %v from %q", v, msg)
		}
	})
}

func TestParseLogcatLineFormats(t *testing.T) {
	// Formats the corpus has no capture of, written as logcat prints them.
	tests := []struct {
		in   string
		want Entry
	}{
		{"05-16 13:34:02.594 I/Choreographer( 4036): Skipped 89 frames!",
			Entry{Time: stamp(5, 16, 13, 34, 2, 594), PID: 4036, TID: -1, Level: 'I', Tag: "Choreographer", Message: "Skipped 89 frames!"}},
		{"2018-05-16 13:34:02.594123  4036  4050 W ActivityTaskManager: Displayed a.b/.C: +1s",
			Entry{Time: time.Date(2018, 5, 16, 13, 34, 2, 594123000, time.UTC), PID: 4036, TID: 4050, Level: 'W', Tag: "ActivityTaskManager", Message: "Displayed a.b/.C: +1s"}},
		{"E/AndroidRuntime(  123:  456): FATAL EXCEPTION: main",
			Entry{PID: 123, TID: 456, Level: 'E', Tag: "AndroidRuntime", Message: "FATAL EXCEPTION: main"}},
		{"2020-04-08 10:11:12.345 20834-20834/com.example I/Choreographer: Skipped 3 frames!",
			Entry{Time: time.Date(2020, 4, 8, 10, 11, 12, 345e6, time.UTC), PID: 20834, TID: 20834, Level: 'I', Tag: "Choreographer", Message: "Skipped 3 frames!"}},
	}
	for _, tc := range tests {
		got, ok := ParseLine(tc.in)
		if !ok || got != tc.want {
			t.Errorf("%q:\n%+v %v, want\n%+v", tc.in, got, ok, tc.want)
		}
	}
	entries, err := Parse([]byte("[ 05-18 00:42:29.500  1234: 5678 I/Choreographer ]\nSkipped 7 frames!\nsecond line\n\n"))
	if err != nil || len(entries) != 1 || entries[0].PID != 1234 || entries[0].TID != 5678 || entries[0].Message != "Skipped 7 frames!\nsecond line" {
		t.Errorf("padded -v long: %v %+v", err, entries)
	}
	entries, err = Parse([]byte("[ 05-18 00:42:29.500 1:2 I/A ]\nmsg\n05-18 00:42:30.000  3  4 I Choreographer: Skipped 5 frames!\n"))
	if err != nil || len(entries) != 2 || entries[0].Message != "msg" || entries[1].PID != 3 {
		t.Errorf("-v long entry without its closing blank line: %v %+v", err, entries)
	}
	for _, bad := range []string{"", "hello", "13-40 10:00:00.000  1 2 I T: m", "I/: empty tag"} {
		if e, ok := ParseLine(bad); ok {
			t.Errorf("%q parsed as %+v", bad, e)
		}
	}
}
