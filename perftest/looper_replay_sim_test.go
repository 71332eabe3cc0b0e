package perftest_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// replayBlock is a block a captured Looper line stands for: the line
// (its index among the capture's entries), the ms before the line's time
// the block ended (the line's own message's run, for a message it lists
// as run before that one) and the message.
type replayBlock struct {
	entry     int
	endBefore int64
	ms        int64
	handler   string
	callback  string
	what      int
	kind      string
}

const (
	ath        = "android.app.ActivityThread$H"
	osHandler  = "android.os.Handler"
	frameH     = "android.view.Choreographer$FrameHandler"
	frameRecv  = "android.view.Choreographer$FrameDisplayEventReceiver"
	deliveryBl = causes.BlockDelivery
)

// The blocks of the app's main thread each capture of looper_slow tells
// of, read from its lines by hand (see SOURCES.md of the captures).
// Lines of other loopers (android.fg, android.bg) are no main-thread
// block; a "Slow delivery" line is the wait before its message, ending
// at the line; a MIUI "Long Msg" is its message; a MIUI or HyperOS line's
// own late message is none, the message listed right before it is, and
// so is a HyperOS doFrame's frame.
var looperCaptures = []struct {
	file   string
	blocks []replayBlock
}{
	{"focus7239_time_format_slow_dispatch_delivery_android_fg_system_server.txt", []replayBlock{
		{2, 0, 148, ath, "android.app.-$$Lambda$LoadedApk$ReceiverDispatcher$Args$_BumDX2UKsnxLVrE6UJsJZkotuA", 0, ""}}},
	{"ehviewer1017_oem_debuglooper_slow_delivery_drained_a.txt", []replayBlock{{5, 0, 6530, osHandler, "", 0, deliveryBl}}},
	{"ehviewer1017_oem_debuglooper_slow_delivery_drained_b.txt", []replayBlock{
		{0, 0, 7319, frameH, frameRecv, 0, deliveryBl}, {7, 0, 7015, frameH, frameRecv, 0, deliveryBl}}},
	{"glassai_emulator_api31_system_server_slow_delivery_52s_then_anr.txt", []replayBlock{
		{1, 0, 52287, osHandler, "com.android.internal.os.BinderCallsStats$1", 0, deliveryBl}}},
	{"android17_canary_pixel7pro_system_server_new_fields_main.txt", []replayBlock{
		{0, 0, 49415, ath, "", 114, ""}, {31, 0, 891, ath, "", 121, ""}}},
	{"android17_canary_pixel7pro_system_server_new_fields_android_bg.txt", nil},
	{"deltachat2014_miui_slow_looper_main_variant.txt", []replayBlock{
		{1, 0, 9599, ath, "", 110, ""}, {4, 1, 801, ath, "", 159, ""}}},
	{"revanced185_hyperos_perfmonitor_variant.txt", []replayBlock{
		{0, 1, 3405, ath, "", 159, ""}, {2, 0, 865, frameH, frameRecv, 0, ""}}},
}

// Every Looper capture of looper_slow, replayed by the simulated phone as
// its app's log during a step, yields in the step the blocks its lines
// tell of: their count, lengths, messages and ends.
func TestLooperCapturesYieldBlocks(t *testing.T) {
	fixtures.Dir(t)
	t.Parallel()
	for _, c := range looperCaptures {
		capture := fixtures.Read(t, "looper_slow/"+c.file)
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			simtest.Bubble(t, func(t *testing.T) { looperCaptureBlocks(t, capture, c.blocks) })
		})
	}
}

func looperCaptureBlocks(t *testing.T, capture []byte, want []replayBlock) {
	wl, err := simdevice.Preset("smooth-scroll")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := simdevice.New(simdevice.Config{API: 33, RefreshHz: 60, Workload: wl, Serial: "sim-looper-replay"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	d, _ := openHost(t, dev, nil)
	s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir(), WaitForApp: true}))
	launchCold(t, s, d, dev)
	var lines []simdevice.ReplayedLine
	s.Step("replay", func() {
		var err error
		lines, err = dev.World().ReplayLooperLog(capture, dev.World().Uptime()+500*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		last := time.Duration(lines[len(lines)-1].AtNs)
		for dev.World().Uptime() < last+300*time.Millisecond {
			time.Sleep(50 * time.Millisecond)
		}
	})
	r := s.Stop()
	st := r.Step("replay")
	if st.Causes == nil || st.Causes.NotMeasured[causes.SourceBlocks] != "" {
		t.Fatalf("blocks not measured: %+v", st.Causes)
	}
	at := map[int]int64{}
	for _, l := range lines {
		at[l.Entry] = l.AtNs
	}
	var wantBlocks, got []string
	for _, b := range want {
		wantBlocks = append(wantBlocks, fmt.Sprintf("%d ms %s %s m=%d %q ending %d", b.ms, b.handler, b.callback, b.what, b.kind, at[b.entry]-b.endBefore*1e6))
	}
	for _, b := range st.Causes.Blocks {
		got = append(got, fmt.Sprintf("%d ms %s %s m=%d %q ending %d", b.Ms, b.Handler, b.Callback, b.What, b.Kind, b.EndNs))
	}
	if !slices.Equal(got, wantBlocks) {
		t.Errorf("blocks of the replayed capture:\n got %q\nwant %q", got, wantBlocks)
	}
}
