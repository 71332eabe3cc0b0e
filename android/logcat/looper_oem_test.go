package logcat

import (
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/fixtures"
)

// Every OEM line of the captures, read field by field.
func TestLooperReportCaptures(t *testing.T) {
	ath := "android.app.ActivityThread$H"
	msg := func(idx int, seq, wall, late int64, what int) LooperMsg {
		return LooperMsg{Index: idx, Seq: seq, WallMs: wall, LateMs: late, Handler: ath, What: what}
	}
	miui := "looper_slow/deltachat2014_miui_slow_looper_main_variant.txt"
	hyper := "looper_slow/revanced185_hyperos_perfmonitor_variant.txt"
	routing := "Activity chat.delta.beta/org.thoughtcrime.securesms.RoutingActivity"
	tests := []struct {
		file  string
		entry []int
		want  []LooperReport
	}{
		{miui, []int{1, 3, 4}, []LooperReport{
			{Shape: LooperLongMsg, Thread: "main", Subject: "Long Msg", Own: msg(0, 2, 9599, 3, 110)},
			{Shape: LooperLate, Thread: "main", Subject: routing, Own: LooperMsg{Seq: -1, WallMs: 801, LateMs: 9503},
				Count: 1, History: []LooperMsg{msg(1, 2, 9599, 3, 110)}},
			{Shape: LooperLate, Thread: "main", Subject: routing, Own: LooperMsg{Seq: -1, WallMs: 1, LateMs: 10303},
				Count: 2, History: []LooperMsg{msg(1, 2, 9599, 3, 110), msg(2, 3, 801, 9503, 159)}},
		}},
		{hyper, []int{0, 1, 2}, []LooperReport{
			{Shape: LooperPerfMonitor, Subject: "looperActivity", Own: LooperMsg{Seq: -1, WallMs: 1, LateMs: 3414},
				Count: 3, History: []LooperMsg{msg(1, 321, 979, -1, 159), msg(3, 323, 3405, 8, 159)}},
			{Shape: LooperPerfMonitor, Subject: "looperActivity", Own: LooperMsg{Seq: -1, WallMs: 5, LateMs: 1029},
				Count: 7, History: []LooperMsg{msg(1, 323, 3405, 8, 159)}},
			{Shape: LooperPerfMonitor, Subject: "doFrame", Own: LooperMsg{Seq: -1, WallMs: 865, LateMs: 906},
				Count: 9, History: []LooperMsg{msg(1, 323, 3405, 8, 159)}},
		}},
	}
	for _, tt := range tests {
		entries, err := Parse(fixtures.Read(t, tt.file))
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		var entry []int
		var got []LooperReport
		for _, l := range LooperLines(entries) {
			if l.OEM == nil {
				t.Errorf("%s: line %d read as AOSP's: %+v", tt.file, l.Entry, l)
				continue
			}
			entry = append(entry, l.Entry)
			got = append(got, *l.OEM)
		}
		if !reflect.DeepEqual(entry, tt.entry) || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: lines %v\n got %+v\nwant %v %+v", tt.file, entry, got, tt.entry, tt.want)
		}
	}
}

func TestParseLooperReport(t *testing.T) {
	for _, bad := range []string{
		"Slow dispatch took 5ms main h=a.B c=null m=1",
		"Slow Looper main: Long Msg: seq=2 late=3ms running=0ms h=a.B w=1",                              // no wall
		"Slow Looper main: Long Msg: seq=x late=3ms wall=5ms h=a.B w=1",                                 // bad seq
		"Slow Looper main: Long Msg: seq=2 late=3ms wall=-5ms h=a.B w=1",                                // negative
		"Slow Looper main: Activity a/.B is 5s late",                                                    // no ms
		"Slow Looper main: Activity a/.B is 9ms late because of 1 msg, msg 1 took 5ms (seq=2 w=1)",      // no handler
		"Slow Looper main: Activity a/.B is 9ms late because of 1 msg, msg 1 took 5ms (seq=2 h=a.B w=1", // cut
		"PerfMonitor doFrame : vsyncFrame=489837 procState=2",                                           // no time, no latency
		"PerfMonitor doFrame : time=8ms historyMsgCount=2 (wall=3ms seq=1 h=a.B w=1)",                   // no msgIndex
		"PerfMonitor  : time=8ms",
		"DebugLooper: set default mSlowDispatchThresholdMs = 0, mSlowDeliveryThresholdMs = 2000",
		"Drained",
	} {
		if r, ok := ParseLooperReport(bad); ok {
			t.Errorf("ParseLooperReport(%q) = %+v, want no report", bad, r)
		}
	}
	r, ok := ParseLooperReport("Slow Looper main: Long Msg: seq=7 plan=1:2:3.4 late=0ms wall=40ms running=30ms h=a.B c=a.C$1@3f w=2")
	if want := (LooperReport{Shape: LooperLongMsg, Thread: "main", Subject: "Long Msg",
		Own: LooperMsg{Seq: 7, WallMs: 40, LateMs: 0, Handler: "a.B", Callback: "a.C$1@3f", What: 2}}); !ok || !reflect.DeepEqual(r, want) {
		t.Errorf("long msg with a callback: %+v, %v", r, ok)
	}
}

func FuzzParseLooperReport(f *testing.F) {
	for _, name := range []string{
		"looper_slow/deltachat2014_miui_slow_looper_main_variant.txt",
		"looper_slow/revanced185_hyperos_perfmonitor_variant.txt",
	} {
		for _, ln := range strings.Split(string(fixtures.Read(f, name)), "\n") {
			if _, msg, ok := strings.Cut(ln, "Looper  : "); ok {
				f.Add(msg)
			}
		}
	}
	f.Fuzz(func(t *testing.T, msg string) {
		r, ok := ParseLooperReport(msg)
		if !ok {
			return
		}
		if r.Shape != LooperLongMsg && r.Shape != LooperLate && r.Shape != LooperPerfMonitor || r.Subject == "" || r.Count < 0 {
			t.Fatalf("bad report %+v from %q", r, msg)
		}
		if r.Shape == LooperLongMsg && (r.Own.WallMs < 0 || r.Own.Handler == "") {
			t.Fatalf("long msg without wall or handler %+v from %q", r, msg)
		}
		for _, m := range r.History {
			if m.Index <= 0 || m.WallMs < 0 || m.Handler == "" {
				t.Fatalf("bad history message %+v from %q", m, msg)
			}
		}
	})
}
