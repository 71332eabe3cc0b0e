package frames

import (
	"math"
	"testing"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func logcatFixture(t *testing.T, name string) []logcat.Entry {
	t.Helper()
	e, err := logcat.Parse(fixtures.Read(t, name))
	if err != nil {
		t.Fatalf("ParseLogcat(%s): %v", name, err)
	}
	return e
}

func TestLogcatDaveys(t *testing.T) {
	t.Run("API 24-28 fields", func(t *testing.T) {
		d := logcat.Daveys(logcatFixture(t, "logcat_choreographer/celadon188_threadtime_davey_skipped79.txt"))
		if len(d) != 1 || d[0].DurationMillis != 1354 || d[0].PID != 1012 || d[0].LabelSwapped || len(d[0].Fields) != 16 {
			t.Fatalf("daveys = %+v", d)
		}
		f := d[0].Frame()
		if f.IntendedVsync != 1966484195404271 || f.FrameCompleted != 1966485549896897 || d[0].Fields["QueueBufferDuration"] != 142000 ||
			d[0].Fields["OldestInputEvent"] != math.MaxInt64 {
			t.Errorf("fields = %v", d[0].Fields)
		}
		// hwui's duration is FrameCompleted − IntendedVsync, truncated to ms.
		if got := f.Duration() / 1e6; got != d[0].DurationMillis {
			t.Errorf("duration from fields %d ms, logged %d ms", got, d[0].DurationMillis)
		}
	})
	t.Run("brief", func(t *testing.T) {
		d := logcat.Daveys(logcatFixture(t, "logcat_choreographer/davey_flutterhtml57_brief_api24to28.txt"))
		if len(d) != 2 || d[0].DurationMillis != 2218 || d[1].DurationMillis != 2223 || d[1].Fields["DrawStart"] != 134207343107770 {
			t.Errorf("daveys = %+v", d)
		}
	})
	t.Run("Android 12 label swap, Flags=1", func(t *testing.T) {
		d := logcat.Daveys(logcatFixture(t, "logcat_choreographer/davey_revanced634_android12_flags1.txt"))
		if len(d) != 1 || !d[0].LabelSwapped || d[0].DurationMillis != 34192 || len(d[0].Fields) != 22 {
			t.Fatalf("daveys = %+v", d)
		}
		f := d[0].Frame()
		if f.Flags != 1 || f.FrameInterval != 16666666 || f.FrameStartTime != 58055297328840 || f.FrameDeadline != 58055346526992 ||
			d[0].Fields["InputEventId"] != 590476543 {
			t.Errorf("frame = %+v", f)
		}
	})
	t.Run("INT64_MAX FrameCompleted, truncated second line", func(t *testing.T) {
		d := logcat.Daveys(logcatFixture(t, "logcat_choreographer/davey_reveny117_android12_sdk32_los19_int64max_excerpt.txt"))
		if len(d) != 2 {
			t.Fatalf("daveys = %d", len(d))
		}
		f := d[0].Frame()
		if d[0].DurationMillis != 9223360591227 || f.FrameCompleted != math.MaxInt64 || f.GpuCompleted != math.MaxInt64 ||
			f.FrameInterval != 16666667 || f.FrameStartTime != 11445625602016 {
			t.Errorf("first = %+v", d[0])
		}
		if _, ok := d[1].Fields["QueueBufferDuration"]; ok || d[1].Fields["DequeueBufferDuration"] != 5702656 || d[1].DurationMillis != 9223360591209 {
			t.Errorf("second (cut in QueueBufferDuration) = %v", d[1].Fields)
		}
		// The Davey frame is not usable for frame math: no real completion time.
		if len(UsableGfxInfo([]gfxinfo.FrameStats{f})) != 0 {
			t.Error("a frame with FrameCompleted = INT64_MAX was kept")
		}
	})
}

func TestLogcatGTSmoothnessFromCaptures(t *testing.T) {
	// Skips at 29.500 (7), 29.759 (14), 29.844 (4), 31.804 (2), 33.029 (1).
	sm := GTSmoothness(logcat.Skipped(logcatFixture(t, "logcat_choreographer/esteem306_long_format_2018.txt")), 60)
	want := []float64{60 - 25, 60, 60 - 2, 60, 60 - 1}
	if len(sm) != len(want) {
		t.Fatalf("seconds = %d, want %d", len(sm), len(want))
	}
	for i, w := range want {
		if sm[i].SM != w {
			t.Errorf("second %d: SM %v, want %v", i, sm[i].SM, w)
		}
	}
	// Five skips within 09:42:39: 47+41+39+42+43 = 212 > 60, so SM is 0.
	sm = GTSmoothness(logcat.Skipped(logcatFixture(t, "logcat_choreographer/tablefixheaders61_android_studio_format_small_colon_2014.txt")), 60)
	if len(sm) != 1 || sm[0].Skipped != 212 || sm[0].SM != 0 {
		t.Errorf("tablefixheaders = %+v", sm)
	}
}

func FuzzParseLogcat(f *testing.F) {
	for _, name := range []string{
		"logcat_choreographer/celadon188_threadtime_davey_skipped79.txt",
		"logcat_choreographer/esteem306_long_format_2018.txt",
		"logcat_choreographer/mythtv193_ddms_time_format_2013.txt",
		"logcat_choreographer/tablefixheaders61_android_studio_format_small_colon_2014.txt",
		"logcat_choreographer/justified5_studio_tag_only_format.txt",
		"logcat_choreographer/davey_reveny117_android12_sdk32_los19_int64max_excerpt.txt",
	} {
		f.Add(fixtures.Read(f, name))
	}
	f.Add([]byte("11-22 08:00:02.000  1234  1300 I ActivityManager: Displayed com.example/.Main: +850ms (total +2s10ms)\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		entries, err := logcat.Parse(in)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Tag == "" && e.Level != 0 && e.Line == 0 {
				t.Fatalf("entry without a line: %+v", e)
			}
		}
		GTSmoothness(logcat.Skipped(entries), 60)
		logcat.Daveys(entries)
		logcat.Startups(entries)
	})
}
