package causesrc

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/simdevice"
)

// looperLog is the simulated phone's system-buffer Looper lines after
// janky-feed scrolled for 4 s with the Looper property at 16 ms, as the
// session reads them, and the truth's main-thread messages logged by
// then.
func looperLog(t *testing.T) ([]logcat.Entry, []simdevice.TruthBlock) {
	wl, err := simdevice.Preset("janky-feed")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := simdevice.New(simdevice.Config{API: 33, RefreshHz: 60, Workload: wl})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	w := dev.World()
	if st := w.Setprop([]string{logcat.LooperSlowProperty(wl.UID, "main"), "16"}, io.Discard, io.Discard); st != 0 {
		t.Fatal("setprop failed")
	}
	var o, e bytes.Buffer
	if st := w.Monkey(context.Background(), strings.Fields("-p "+wl.Package+" -c android.intent.category.LAUNCHER 1"), &o, &e); st != 0 {
		t.Fatalf("monkey: %s %s", o.String(), e.String())
	}
	time.Sleep(4 * time.Second)
	now := int64(w.Uptime())
	o.Reset()
	if st := w.Logcat(context.Background(), strings.Fields(causeLogCmds()[0])[1:], &o, &e); st != 0 {
		t.Fatalf("logcat: %s", e.String())
	}
	var entries []logcat.Entry
	for _, raw := range strings.Split(o.String(), "\n") {
		if en, ok := logcat.ParseLine(raw); ok {
			entries = append(entries, en)
		}
	}
	var truth []simdevice.TruthBlock
	for _, b := range w.TruthBlocks() {
		if b.EndNs <= now {
			truth = append(truth, b)
		}
	}
	return entries, truth
}

// Every message the phone logged as slow is a block, with its length,
// message and end; the frame delivered late behind the decode's message
// adds no block of its wait, which the decode's block explains. On a
// phone that logs deliveries only, that wait is a delivery block over
// the decode's message.
func TestLooperBlocksMatchTruth(t *testing.T) {
	simtest.Bubble(t, func(t *testing.T) {
		entries, truth := looperLog(t)
		pid := truth[0].Pid
		blocks := looperBlocks(entries, []int{pid}, 16)
		var want, got []causes.Block
		var decode simdevice.TruthBlock
		for _, b := range truth {
			if b.LoggedMs > 0 {
				want = append(want, causes.Block{EndNs: b.EndNs / 1e3 * 1e3, Ms: b.LoggedMs, Handler: b.Handler,
					Callback: logcat.LooperSlow{Callback: b.Callback}.CallbackClass(), What: b.What})
			}
			if b.Cause == "decode" && b.Handler != "android.view.Choreographer$FrameHandler" {
				decode = b
			}
		}
		for _, b := range blocks {
			b.StartNs = 0
			got = append(got, b)
		}
		if len(want) == 0 || decode.EndNs == 0 || !slices.Equal(got, want) {
			t.Errorf("blocks:\n got %+v\nwant %+v", got, want)
		}

		// The same log without its dispatch lines.
		var deliveries []logcat.Entry
		for _, e := range entries {
			if !strings.Contains(e.Message, "Slow dispatch") {
				deliveries = append(deliveries, e)
			}
		}
		blocks = looperBlocks(deliveries, []int{pid}, 16)
		if len(blocks) != 1 || blocks[0].Kind != causes.BlockDelivery {
			t.Fatalf("delivery blocks %+v, want the wait behind the decode", blocks)
		}
		b := blocks[0]
		overlap := min(b.EndNs, decode.EndNs) - max(b.StartNs, decode.StartNs)
		if 10*overlap < 8*(decode.EndNs-decode.StartNs) || b.Ms > (decode.EndNs-decode.StartNs)/1e6+17 {
			t.Errorf("delivery block %+v, want the decode's message %d…%d", b, decode.StartNs, decode.EndNs)
		}
	})
}

// A real traces.txt holds one dump of WeChat (pid 21753, 17:37:10): of
// two ANRs of that process, the one reported 3 s after the dump gets its
// stack, the one reported 5 min later none, with a note saying why.
func TestMatchANRDumps(t *testing.T) {
	secs := logcat.ParseANRTraces(fixtures.Read(t, "anr/boom618_huawei_mate8_nxt_al10_android7_data_anr_traces_full.txt"))
	wechat := slices.IndexFunc(secs, func(s logcat.ANRTrace) bool { return s.PID == 21753 })
	if wechat < 0 || secs[wechat].Main() == nil {
		t.Fatal("no main thread of pid 21753 in the capture")
	}
	anrs := []causes.ANR{{TimeNs: 1e9, PID: 21753, Reason: "a"}, {TimeNs: 300e9, PID: 21753, Reason: "b"}}
	at := time.Date(2017, 9, 25, 17, 37, 13, 0, time.UTC)
	walls := []logcat.ANR{{PID: 21753, Reason: "a", Entry: logcat.Entry{Time: at}}, {PID: 21753, Reason: "b", Entry: logcat.Entry{Time: at.Add(5 * time.Minute)}}}
	notes := matchANRDumps(anrs, walls, secs, "traces.txt")
	if !slices.Equal(anrs[0].MainStack, secs[wechat].Main().Frames) || anrs[1].MainStack != nil {
		t.Errorf("stacks %q / %q", anrs[0].MainStack, anrs[1].MainStack)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "no stack dump of pid 21753") || !strings.Contains(notes[0], "17:42:13") {
		t.Errorf("notes %q", notes)
	}
}

// When both stack dump reads fail, the note of an ANR left without a
// stack quotes each: its command, exit status and stderr.
func TestANRStacksQuoteFailedReads(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 5, 0, time.UTC)
	batch := func(_ context.Context, cmds []string) ([]adbx.Result, error) {
		out := make([]adbx.Result, len(cmds))
		for i, c := range cmds {
			switch {
			case strings.HasPrefix(c, "dumpsys dropbox"):
				out[i] = adbx.Result{ExitCode: 1, Stderr: []byte("Permission Denial: can't access dropbox\n")}
			case strings.HasPrefix(c, "cat /data/anr"):
				out[i] = adbx.Result{ExitCode: 1, Stderr: []byte("cat: /data/anr/traces.txt: Permission denied\n")}
			default:
				out[i] = adbx.Result{Stdout: []byte(at.Format("2006-01-02 15:04:05.000000") + "  1200  1300 E ActivityManager: ANR in com.example (com.example/.Main)\n" +
					at.Format("2006-01-02 15:04:05.000000") + "  1200  1300 E ActivityManager: PID: 4321\n" +
					at.Format("2006-01-02 15:04:05.000000") + "  1200  1300 E ActivityManager: Reason: Input dispatching timed out\n")}
			}
		}
		return out, nil
	}
	s := New(Config{Batch: batch, Package: "com.example", On: true})
	anrs := []causes.ANR{{TimeNs: 5e9, PID: 4321, Reason: "Input dispatching timed out"}}
	notes := s.readANRStacks(context.Background(), anrs)
	want := []string{"dumpsys dropbox --print data_app_anr: exit status 1", "Permission Denial: can't access dropbox",
		"cat /data/anr/traces.txt: exit status 1", "Permission denied"}
	if len(notes) != 1 || anrs[0].MainStack != nil {
		t.Fatalf("notes %q, stack %q", notes, anrs[0].MainStack)
	}
	for _, w := range want {
		if !strings.Contains(notes[0], w) {
			t.Errorf("note %q lacks %q", notes[0], w)
		}
	}
}
