package logcat

import (
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestLooperLinesCaptures(t *testing.T) {
	type line struct {
		entry   int
		slow    LooperSlow
		drained bool
	}
	tests := []struct {
		file  string
		lines []line
	}{
		{"looper_slow/focus7239_time_format_slow_dispatch_delivery_android_fg_system_server.txt", []line{
			{2, LooperSlow{Kind: LooperDispatch, Millis: 148, Thread: "main", Handler: "android.app.ActivityThread$H",
				Callback: "android.app.-$$Lambda$LoadedApk$ReceiverDispatcher$Args$_BumDX2UKsnxLVrE6UJsJZkotuA@ed42cc7"}, false},
			{3, LooperSlow{Kind: LooperDispatch, Millis: 210, Thread: "android.fg", Handler: "android.os.Handler", Callback: "<recycled PooledLambda@f455bb1>"}, false},
			{5, LooperSlow{Kind: LooperDelivery, Millis: 335, Thread: "android.fg", Handler: "android.os.Handler", Callback: "<recycled PooledLambda@eabbcab>"}, false},
		}},
		{"looper_slow/ehviewer1017_oem_debuglooper_slow_delivery_drained_a.txt", []line{
			{5, LooperSlow{Kind: LooperDelivery, Millis: 6530, Thread: "main", Handler: "android.os.Handler"}, false},
			{6, LooperSlow{}, true},
		}},
		{"looper_slow/ehviewer1017_oem_debuglooper_slow_delivery_drained_b.txt", []line{
			{0, LooperSlow{Kind: LooperDelivery, Millis: 7319, Thread: "main", Handler: "android.view.Choreographer$FrameHandler",
				Callback: "android.view.Choreographer$FrameDisplayEventReceiver@ffd9dfb"}, false},
			{1, LooperSlow{}, true},
			{7, LooperSlow{Kind: LooperDelivery, Millis: 7015, Thread: "main", Handler: "android.view.Choreographer$FrameHandler",
				Callback: "android.view.Choreographer$FrameDisplayEventReceiver@11c2dce"}, false},
			{8, LooperSlow{}, true},
		}},
		{"looper_slow/glassai_emulator_api31_system_server_slow_delivery_52s_then_anr.txt", []line{
			{1, LooperSlow{Kind: LooperDelivery, Millis: 52287, Thread: "main", Handler: "android.os.Handler", Callback: "com.android.internal.os.BinderCallsStats$1@f968b4e"}, false},
			{2, LooperSlow{Kind: LooperDispatch, Millis: 11482, Thread: "android.fg", Handler: "android.os.Handler", Callback: "com.android.server.Watchdog$HandlerChecker@ca3f86"}, false},
		}},
		{"looper_slow/android17_canary_pixel7pro_system_server_new_fields_main.txt", []line{
			{0, LooperSlow{Kind: LooperDispatch, Millis: 49415, Thread: "main", Process: "system_server", Main: "true", Group: "FOREGROUND",
				Handler: "android.app.ActivityThread$H", What: 114}, false},
			{31, LooperSlow{Kind: LooperDispatch, Millis: 891, Thread: "main", Process: "system_server", Main: "true", Group: "FOREGROUND",
				Handler: "android.app.ActivityThread$H", What: 121}, false},
		}},
		{"looper_slow/android17_canary_pixel7pro_system_server_new_fields_android_bg.txt", []line{
			{2, LooperSlow{Kind: LooperDispatch, Millis: 20807, Thread: "android.bg", Process: "system_server", Main: "false", Group: "SYSTEM",
				Handler: "android.os.Handler", Callback: "com.android.server.print.PrintManagerService$PrintManagerImpl$3@dab9a43"}, false},
		}},
		// OEM shapes under the same tag: TestLooperReportCaptures.
	}
	for _, tt := range tests {
		entries, err := Parse(fixtures.Read(t, tt.file))
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		var got []line
		for _, l := range LooperLines(entries) {
			if l.OEM != nil {
				t.Errorf("%s: line %d read as an OEM's: %+v", tt.file, l.Entry, *l.OEM)
				continue
			}
			got = append(got, line{l.Entry, l.LooperSlow, l.Drained})
		}
		if !slices.Equal(got, tt.lines) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.file, got, tt.lines)
		}
	}
}

func TestParseLooperSlow(t *testing.T) {
	tests := []struct {
		msg  string
		ok   bool
		want LooperSlow
		cb   string
	}{
		{"Slow dispatch took 18ms main h=android.view.Choreographer$FrameHandler c=android.view.Choreographer$FrameDisplayEventReceiver@9a1b2c m=0", true,
			LooperSlow{Kind: LooperDispatch, Millis: 18, Thread: "main", Handler: "android.view.Choreographer$FrameHandler", Callback: "android.view.Choreographer$FrameDisplayEventReceiver@9a1b2c"},
			"android.view.Choreographer$FrameDisplayEventReceiver"},
		{"Slow dispatch took 0ms Thread with spaces h=a.B c=null m=-3", true,
			LooperSlow{Kind: LooperDispatch, Thread: "Thread with spaces", Handler: "a.B", What: -3}, ""},
		{"Slow delivery took 12ms main h=a.B c=<recycled PooledLambda@e1> m=7", true,
			LooperSlow{Kind: LooperDelivery, Millis: 12, Thread: "main", Handler: "a.B", Callback: "<recycled PooledLambda@e1>", What: 7}, "<recycled PooledLambda>"},
		{"Slow dispatch took 5ms main h=a.B c=com.x.Y@notHex m=0", true,
			LooperSlow{Kind: LooperDispatch, Millis: 5, Thread: "main", Handler: "a.B", Callback: "com.x.Y@notHex"}, "com.x.Y@notHex"},
		{"Slow Looper main: Long Msg: seq=2 plan=08:36:22.124  late=3ms wall=9599ms running=0ms h=android.app.ActivityThread$H w=110", false, LooperSlow{}, ""},
		{"Slow dispatch took -5ms main h=a.B c=null m=0", false, LooperSlow{}, ""},
		{"Slow dispatch took 5ms main h=a.B c=null", false, LooperSlow{}, ""},
		{"Slow dispatch took 5ms main h=a.B c=null m=x", false, LooperSlow{}, ""},
		{"Slow dispatch took 5ms h=a.B c=null m=1", false, LooperSlow{}, ""},
		{"Slow dispatch took 5ms main bogus=1 h=a.B c=null m=1", false, LooperSlow{}, ""},
		{"Slow binder took 5ms main h=a.B c=null m=1", false, LooperSlow{}, ""},
		{"Drained", false, LooperSlow{}, ""},
	}
	for _, tt := range tests {
		got, ok := ParseLooperSlow(tt.msg)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseLooperSlow(%q) = %+v, %v; want %+v, %v", tt.msg, got, ok, tt.want, tt.ok)
		}
		if ok && got.CallbackClass() != tt.cb {
			t.Errorf("CallbackClass of %q = %q, want %q", tt.msg, got.CallbackClass(), tt.cb)
		}
	}
	if p := LooperSlowProperty(10123, "main"); p != "log.looper.10123.main.slow" {
		t.Errorf("LooperSlowProperty = %q", p)
	}
}

func FuzzParseLooperSlow(f *testing.F) {
	for _, name := range []string{
		"looper_slow/focus7239_time_format_slow_dispatch_delivery_android_fg_system_server.txt",
		"looper_slow/android17_canary_pixel7pro_system_server_new_fields_main.txt",
		"looper_slow/deltachat2014_miui_slow_looper_main_variant.txt",
		"looper_slow/ehviewer1017_oem_debuglooper_slow_delivery_drained_b.txt",
	} {
		for _, ln := range strings.Split(string(fixtures.Read(f, name)), "\n") {
			if _, msg, ok := strings.Cut(ln, "Looper"); ok {
				f.Add(strings.TrimLeft(msg, " :()0123456789"))
			}
		}
	}
	f.Fuzz(func(t *testing.T, msg string) {
		l, ok := ParseLooperSlow(msg)
		if !ok {
			return
		}
		if l.Millis < 0 || l.Thread == "" || l.Handler == "" || (l.Kind != LooperDispatch && l.Kind != LooperDelivery) {
			t.Fatalf("bad line %+v from %q", l, msg)
		}
		if cc := l.CallbackClass(); len(cc) > len(l.Callback) {
			t.Fatalf("callback class %q longer than %q", cc, l.Callback)
		}
	})
}
