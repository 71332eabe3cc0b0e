package simdevice

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// frameRows returns the PROFILEDATA rows of a framestats dump as maps from
// header name to value.
func frameRows(t *testing.T, dump string) []map[string]int64 {
	t.Helper()
	_, rest, ok := strings.Cut(dump, "---PROFILEDATA---\n")
	if !ok {
		t.Fatalf("no PROFILEDATA in\n%s", dump)
	}
	block, _, _ := strings.Cut(rest, "---PROFILEDATA---")
	lines := strings.Split(strings.TrimSpace(block), "\n")
	hdr := strings.Split(strings.TrimSuffix(lines[0], ","), ",")
	var rows []map[string]int64
	for _, ln := range lines[1:] {
		f := strings.Split(strings.TrimSuffix(ln, ","), ",")
		if len(f) != len(hdr) {
			t.Fatalf("row has %d fields, header %d: %q", len(f), len(hdr), ln)
		}
		r := map[string]int64{}
		for i, h := range hdr {
			n, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				t.Fatalf("field %s: %v", h, err)
			}
			r[h] = n
		}
		rows = append(rows, r)
	}
	return rows
}

// latencyRows returns the non-zero rows of `dumpsys SurfaceFlinger --latency`
// and the number of rows in all.
func latencyRows(t *testing.T, out string) (period int64, rows [][3]int64, total int) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	period, err := strconv.ParseInt(lines[0], 10, 64)
	if err != nil {
		t.Fatalf("first line %q: %v", lines[0], err)
	}
	for _, ln := range lines[1:] {
		f := strings.Split(ln, "\t")
		if len(f) != 3 {
			t.Fatalf("latency row %q: want 3 tab-separated numbers", ln)
		}
		var r [3]int64
		for i := range f {
			r[i], _ = strconv.ParseInt(f[i], 10, 64)
		}
		total++
		if r[1] != 0 {
			rows = append(rows, r)
		}
	}
	return period, rows, total
}

// Janky scroll at 60 Hz, one 3 s loop (hand count): 180 vsyncs; frame 30
// spans 6 vsyncs, frame 90 spans 8 and frame 150 spans 3, so 5+7+2 vsyncs
// render nothing and the loop has 180 − 14 = 166 frames, 3 of them slow.
func TestFrameTimelineJankyScroll(t *testing.T) {
	for _, api := range []int{28, 30, 33, 34} {
		t.Run(fmt.Sprint("api", api), func(t *testing.T) {
			w, clk := newTestWorld(t, Config{API: api, Workload: mustPreset(t, "janky-scroll")})
			wlaunch(t, w)
			// Past the loop's end, so its last frame has been presented.
			clk.advance(650*time.Millisecond + 3000*time.Millisecond + 50*time.Millisecond)
			var loop []TruthFrame
			for _, f := range w.TruthFrames() {
				if f.IntendedVsync < int64(testBoot+3650*time.Millisecond) && !f.First { // the loop's, not the launch's
					loop = append(loop, f)
				}
			}
			if len(loop) != 166 {
				t.Fatalf("frames in first loop = %d, want 166", len(loop))
			}
			var slow, missed []int
			for i, f := range loop {
				if f.Slow {
					slow = append(slow, i)
				}
				if f.Missed {
					missed = append(missed, i)
				}
				if f.IntendedVsync%16666667 != 0 {
					t.Fatalf("frame %d intended vsync %d is off the 60 Hz grid", i, f.IntendedVsync)
				}
				if i > 0 && f.Present <= loop[i-1].Present {
					t.Fatalf("frame %d presents at %d, not after frame %d (%d)", i, f.Present, i-1, loop[i-1].Present)
				}
			}
			if fmt.Sprint(slow) != "[30 90 150]" || fmt.Sprint(missed) != "[30 90 150]" {
				t.Errorf("slow frames %v, missed %v; want [30 90 150] both", slow, missed)
			}
			// Present intervals in vsyncs: the frame after each slow one shows
			// k periods after it (k = 6, 8, 3); all others one period.
			var long []int64
			for i := 1; i < len(loop); i++ {
				if d := loop[i].Present - loop[i-1].Present; d != 16666667 {
					long = append(long, (d+8_000_000)/16666667)
				}
			}
			if fmt.Sprint(long) != "[6 8 3]" {
				t.Errorf("long present intervals (vsyncs) = %v, want [6 8 3]", long)
			}
			tr := w.Truth()
			if tr.Frames < 166 || tr.Missed < 3 {
				t.Errorf("truth totals frames=%d missed=%d", tr.Frames, tr.Missed)
			}
		})
	}
}

func TestPerfDogJanksOnPresentTimes(t *testing.T) {
	// At 60 Hz the 6- and 8-vsync frames (100 ms and 133 ms between
	// presents) exceed 2 × 1000/24 ms and twice the previous three frames;
	// only the 133 ms one exceeds 3 × 1000/24 ms (BigJank).
	w, clk := newTestWorld(t, Config{API: 33, Workload: mustPreset(t, "janky-scroll")})
	wlaunch(t, w)
	clk.advance(3650 * time.Millisecond)
	fr := w.TruthFrames()
	jank, big := 0, 0
	for i := 4; i < len(fr); i++ {
		F := func(k int) float64 { return float64(fr[k].Present-fr[k-1].Present) / 1e6 }
		mean := (F(i-1) + F(i-2) + F(i-3)) / 3
		if F(i) > 2*mean && F(i) > 2*1000.0/24 {
			jank++
			if F(i) > 3*1000.0/24 {
				big++
			}
		}
	}
	if jank != 2 || big != 1 {
		t.Errorf("PerfDog jank=%d big=%d, want 2 and 1", jank, big)
	}
}

func TestNoFramesBeforeLaunchOrWhileIdle(t *testing.T) {
	w, clk := newTestWorld(t, Config{API: 33})
	clk.advance(2 * time.Second)
	if n := len(w.TruthFrames()); n != 0 {
		t.Fatalf("%d frames before launch", n)
	}
	if out := wdumpsys(w, "gfxinfo", PresetPackage); out != "No process found for: com.perfgate.demo\n" {
		t.Errorf("gfxinfo before launch = %q", out)
	}
	var o, e bytes.Buffer
	if st := w.Pidof([]string{PresetPackage}, &o, &e); st != 1 || o.Len() != 0 {
		t.Errorf("pidof before launch: status %d, %q", st, o.String())
	}
	wlaunch(t, w)
	clk.advance(time.Second)
	if len(w.TruthFrames()) == 0 {
		t.Fatal("no frames 1 s after launch")
	}
	// Tap "Stop" (its bounds are 380,2200-700,2340): the idle phase renders
	// nothing once the last frame in flight is presented.
	w.Screen().Tap(500, 2270)
	clk.advance(100 * time.Millisecond)
	n := len(w.TruthFrames())
	clk.advance(5 * time.Second)
	if m := len(w.TruthFrames()); m != n {
		t.Errorf("idle app rendered %d frames in 5 s", m-n)
	}
	// A swipe starts scrolling again.
	w.Screen().Swipe(500, 1800, 500, 600, 200*time.Millisecond)
	clk.advance(time.Second)
	if m := len(w.TruthFrames()); m-n < 55 || m-n > 61 {
		t.Errorf("1 s of scrolling after a swipe rendered %d frames, want about 60", m-n)
	}
	// HOME leaves the app: it keeps its pid but renders nothing.
	w.Screen().Key(3)
	clk.advance(100 * time.Millisecond)
	n = len(w.TruthFrames())
	clk.advance(2 * time.Second)
	if m := len(w.TruthFrames()); m != n {
		t.Errorf("app in background rendered %d frames", m-n)
	}
}

func TestRingBuffers(t *testing.T) {
	for _, api := range []int{28, 33} {
		w, clk := newTestWorld(t, Config{API: api})
		wlaunch(t, w)
		clk.advance(5 * time.Second) // about 260 frames
		rows := frameRows(t, wdumpsys(w, "gfxinfo", PresetPackage, "framestats"))
		if len(rows) != gfxRingFrames {
			t.Errorf("api %d: framestats rows = %d, want 120", api, len(rows))
		}
		// Dumping does not clear: the same 120 rows come back.
		if again := frameRows(t, wdumpsys(w, "gfxinfo", PresetPackage, "framestats")); len(again) != 120 || again[0]["IntendedVsync"] != rows[0]["IntendedVsync"] {
			t.Errorf("api %d: second dump differs", api)
		}
		truth := w.TruthFrames()
		last := truth[len(truth)-1]
		if got := rows[len(rows)-1]["IntendedVsync"]; got != last.IntendedVsync {
			t.Errorf("api %d: newest row IntendedVsync %d, truth %d", api, got, last.IntendedVsync)
		}
		period, lat, total := latencyRows(t, wdumpsys(w, "SurfaceFlinger", "--latency", w.appLayer()))
		if period != 16666667 || len(lat) != sfRingFrames || total != sfRingFrames {
			t.Errorf("api %d: latency period %d rows %d/%d, want 16666667 127/127", api, period, len(lat), total)
		}
		if lat[len(lat)-1][1] != last.Present {
			t.Errorf("api %d: newest latency B %d, truth present %d", api, lat[len(lat)-1][1], last.Present)
		}
		// reset dumps then clears stats and history.
		wdumpsys(w, "gfxinfo", PresetPackage, "reset")
		if rows := frameRows(t, wdumpsys(w, "gfxinfo", PresetPackage, "framestats")); len(rows) != 0 {
			t.Errorf("api %d: %d rows right after reset", api, len(rows))
		}
		if !strings.Contains(wdumpsys(w, "gfxinfo", PresetPackage), "Total frames rendered: 0\n") {
			t.Errorf("api %d: stats not cleared by reset", api)
		}
		wdumpsys(w, "SurfaceFlinger", "--latency-clear")
		if _, lat, total := latencyRows(t, wdumpsys(w, "SurfaceFlinger", "--latency", w.appLayer())); len(lat) != 0 || total != 127 {
			t.Errorf("api %d: after --latency-clear %d frames of %d rows", api, len(lat), total)
		}
		clk.advance(time.Second)
		if rows := frameRows(t, wdumpsys(w, "gfxinfo", PresetPackage, "framestats")); len(rows) < 55 || len(rows) > 61 {
			t.Errorf("api %d: %d rows 1 s after reset, want about 60", api, len(rows))
		}
	}
}

func TestFramestatsMatchTruth(t *testing.T) {
	w, clk := newTestWorld(t, Config{API: 34, RefreshHz: 120, Workload: mustPreset(t, "janky-scroll")})
	wlaunch(t, w)
	clk.advance(1500 * time.Millisecond)
	rows := frameRows(t, wdumpsys(w, "gfxinfo", PresetPackage, "framestats"))
	truth := w.TruthFrames()
	truth = truth[len(truth)-len(rows):]
	for i, r := range rows {
		f := truth[i]
		if r["IntendedVsync"] != f.IntendedVsync || r["FrameCompleted"] != f.Completed || r["FrameDeadline"] != f.Deadline || r["DisplayPresentTime"] != f.Present {
			t.Fatalf("row %d = %v, truth %+v", i, r, f)
		}
		// The label swap of API 31+: "FrameStartTime" holds the period.
		if r["FrameStartTime"] != 8333333 || r["FrameInterval"] < f.IntendedVsync {
			t.Fatalf("row %d FrameStartTime=%d FrameInterval=%d", i, r["FrameStartTime"], r["FrameInterval"])
		}
		if want := map[bool]int64{true: 1}[f.First]; r["Flags"] != want { // WindowLayoutChanged on the launch's first
			t.Fatalf("row %d Flags %d, want %d", i, r["Flags"], want)
		}
	}
}

// lockedBuffer is a bytes.Buffer safe for the ticker goroutine.
type truthBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *truthBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *truthBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func TestTruthWriterLinesMatchFrames(t *testing.T) {
	var buf truthBuffer
	w, clk := newTestWorld(t, Config{API: 33, Truth: &buf, Workload: mustPreset(t, "janky-scroll")})
	wlaunch(t, w)
	clk.advance(2 * time.Second)
	frames := w.TruthFrames()
	w.Close()
	sc := bufio.NewScanner(strings.NewReader(buf.String()))
	i := 0
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for _, k := range []string{"package", "window", "layer", "intended_vsync_ns", "vsync_ns", "completed_ns", "deadline_ns",
			"present_ns", "sf_desired_ns", "sf_actual_ns", "sf_ready_ns", "phase"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("line %d lacks %q", i+1, k)
			}
		}
		var f TruthFrame
		json.Unmarshal(sc.Bytes(), &f)
		if i >= len(frames) || !reflect.DeepEqual(f, frames[i]) {
			t.Fatalf("line %d = %+v, frame %+v", i+1, f, frames[min(i, len(frames)-1)])
		}
		i++
	}
	if i != len(frames) || i == 0 {
		t.Errorf("%d truth lines, %d frames", i, len(frames))
	}
}

// The truth file is flushed by the background ticker, on the real clock:
// nothing queries the phone after the launch, and its frames reach the
// file all the same. The test waits for them (a busy host delays the
// ticker) instead of reading the file after a fixed time.
func TestTruthFlushedWithoutQueries(t *testing.T) {
	t.Parallel()
	var buf truthBuffer
	w, err := newWorld(Config{API: 33, Cores: 8, Truth: &buf})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var o, e bytes.Buffer
	w.Monkey(context.Background(), []string{"-p", PresetPackage, "1"}, &o, &e)
	deadline := time.Now().Add(time.Minute)
	for strings.Count(buf.String(), "\n") < 20 {
		if time.Now().After(deadline) {
			t.Fatalf("truth has %d lines a minute after the launch; want the ticker to flush them", strings.Count(buf.String(), "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCPUTicksFollowWorkload(t *testing.T) {
	w, clk := newTestWorld(t, Config{API: 33, Cores: 8})
	wlaunch(t, w)
	clk.advance(time.Second) // past Displayed (650 ms)
	pid := w.Truth().Pids[0]
	read := func(p string) string {
		b, err := w.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	appTicks := func() int64 {
		s := read(fmt.Sprintf("/proc/%d/stat", pid))
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		return u + st
	}
	cpu := func() (busy, total int64) {
		f := strings.Fields(strings.SplitN(read("/proc/stat"), "\n", 2)[0])
		var v [10]int64
		for i := range v {
			v[i], _ = strconv.ParseInt(f[i+1], 10, 64)
		}
		total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]
		return total - v[3] - v[4], total
	}
	a0 := appTicks()
	b0, t0 := cpu()
	clk.advance(2 * time.Second) // still inside the first 3 s scroll loop
	a1 := appTicks()
	b1, t1 := cpu()
	// smooth-scroll: main 35% + RenderThread 20% + Jit 2% of one core for
	// 2 s at 100 Hz = 114 ticks; the device: 8 cores × 200 = 1600 ticks,
	// busy = app + 4% background of 1600 = 114 + 64 = 178.
	if d := a1 - a0; d < 113 || d > 115 {
		t.Errorf("app ticks in 2 s = %d, want 114±1", d)
	}
	if d := t1 - t0; d < 1593 || d > 1607 {
		t.Errorf("device total ticks in 2 s = %d, want 1600±7", d)
	}
	if d := b1 - b0; d < 174 || d > 182 {
		t.Errorf("device busy ticks in 2 s = %d, want 178±4", d)
	}
	tr := w.Truth()
	if tr.AppTicks != a1 || tr.DeviceTotal != t1 || tr.DeviceBusy != b1 {
		t.Errorf("truth %d/%d/%d, files %d/%d/%d", tr.AppTicks, tr.DeviceBusy, tr.DeviceTotal, a1, b1, t1)
	}
	// Thread stats add up to the process's (within flooring per thread).
	names, err := w.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, tid := range names {
		s := read(fmt.Sprintf("/proc/%d/task/%s/stat", pid, tid))
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		sum += u + st
	}
	if sum > a1 || a1-sum > int64(2*len(names)) {
		t.Errorf("threads sum %d ticks, process %d", sum, a1)
	}
	if !strings.Contains(read(fmt.Sprintf("/proc/%d/task/%d/stat", pid, pid)), "(m.perfgate.demo)") {
		t.Errorf("main thread comm is not the package tail")
	}
}

func TestMemoryLeakGrowth(t *testing.T) {
	w, clk := newTestWorld(t, Config{API: 33, Workload: mustPreset(t, "memory-leak")})
	wlaunch(t, w)
	clk.advance(time.Second)
	pss := func() (int64, int64) {
		out := wdumpsys(w, "meminfo", PresetPackage)
		var p, r int64
		for _, ln := range strings.Split(out, "\n") {
			if f := strings.Fields(ln); len(f) >= 6 && f[0] == "TOTAL" && f[1] == "PSS:" {
				p, _ = strconv.ParseInt(f[2], 10, 64)
				r, _ = strconv.ParseInt(f[5], 10, 64)
			}
		}
		return p, r
	}
	p0, r0 := pss()
	clk.advance(2 * time.Second)
	p1, r1 := pss()
	// 512 + 256 KiB/s for 2 s.
	if d := p1 - p0; d < 1535 || d > 1537 {
		t.Errorf("PSS grew %d KiB in 2 s, want 1536", d)
	}
	if r1-r0 != p1-p0 {
		t.Errorf("RSS grew %d, PSS %d", r1-r0, p1-p0)
	}
	tr := w.Truth()
	if tr.PSSKiB != p1 || tr.RSSKiB != r1 {
		t.Errorf("truth PSS/RSS %d/%d, meminfo %d/%d", tr.PSSKiB, tr.RSSKiB, p1, r1)
	}
	b, _ := w.ReadFile(fmt.Sprintf("/proc/%d/status", tr.Pids[0]))
	if !strings.Contains(string(b), fmt.Sprintf("VmRSS:\t%8d kB\n", r1)) {
		t.Errorf("status VmRSS does not show %d kB:\n%s", r1, b)
	}
}

func TestTrafficPerUID(t *testing.T) {
	for _, api := range []int{28, 33} {
		w, clk := newTestWorld(t, Config{API: api, Workload: mustPreset(t, "chatty-network")})
		wlaunch(t, w)
		clk.advance(time.Second)
		rx0 := w.Truth().RxBytes[PresetUID]
		tx0 := w.Truth().TxBytes[PresetUID]
		clk.advance(2 * time.Second)
		tr := w.Truth()
		// 200 000 B/s down, 50 000 B/s up for 2 s.
		if d := tr.RxBytes[PresetUID] - rx0; d < 399_999 || d > 400_001 {
			t.Errorf("api %d: rx grew %d, want 400000", api, d)
		}
		if d := tr.TxBytes[PresetUID] - tx0; d < 99_999 || d > 100_001 {
			t.Errorf("api %d: tx grew %d, want 100000", api, d)
		}
		var rx, tx int64
		if api <= 28 {
			b, err := w.ReadFile("/proc/net/xt_qtaguid/stats")
			if err != nil {
				t.Fatal(err)
			}
			for _, ln := range strings.Split(string(b), "\n")[1:] {
				f := strings.Fields(ln)
				if len(f) == 21 && f[2] == "0x0" && f[3] == strconv.Itoa(PresetUID) {
					r, _ := strconv.ParseInt(f[5], 10, 64)
					x, _ := strconv.ParseInt(f[7], 10, 64)
					rx, tx = rx+r, tx+x
				}
			}
		} else {
			if _, err := w.ReadFile("/proc/net/xt_qtaguid/stats"); err == nil {
				t.Errorf("api %d has xt_qtaguid", api)
			}
			out := wdumpsys(w, "netstats", "detail")
			_, m, _ := strings.Cut(out, "mAppUidStatsMap:\n")
			for _, ln := range strings.Split(m, "\n") {
				f := strings.Fields(ln)
				if len(f) == 5 && f[0] == strconv.Itoa(PresetUID) {
					rx, _ = strconv.ParseInt(f[1], 10, 64)
					tx, _ = strconv.ParseInt(f[3], 10, 64)
				}
			}
		}
		if rx != tr.RxBytes[PresetUID] || tx != tr.TxBytes[PresetUID] {
			t.Errorf("api %d: device shows rx %d tx %d, truth %d %d", api, rx, tx, tr.RxBytes[PresetUID], tr.TxBytes[PresetUID])
		}
	}
}

func TestCrashChangesPid(t *testing.T) {
	for _, restart := range []bool{true, false} {
		wl := mustPreset(t, "crash-on-tap")
		wl.Phases[2].Crash.Restart = restart
		w, clk := newTestWorld(t, Config{API: 33, Workload: wl})
		wlaunch(t, w)
		clk.advance(time.Second)
		before := w.Truth().Pids
		w.Screen().Tap(880, 2270) // "Crash"
		clk.advance(150 * time.Millisecond)
		if got := w.Truth().Pids; fmt.Sprint(got) != fmt.Sprint(before) {
			t.Fatalf("pid changed before the crash: %v → %v", before, got)
		}
		clk.advance(100 * time.Millisecond)
		after := w.Truth().Pids
		var o, e bytes.Buffer
		st := w.Pidof([]string{PresetPackage}, &o, &e)
		if restart {
			if len(after) != 1 || after[0] == before[0] || st != 0 || strings.TrimSpace(o.String()) != strconv.Itoa(after[0]) {
				t.Errorf("restart: pids %v → %v, pidof %d %q", before, after, st, o.String())
			}
		} else if len(after) != 0 || st != 1 {
			t.Errorf("no restart: pids %v → %v, pidof status %d", before, after, st)
		}
		o.Reset()
		w.Logcat(context.Background(), []string{"-d", "-b", "crash"}, &o, &e)
		if !strings.Contains(o.String(), " E AndroidRuntime: FATAL EXCEPTION: main\n") ||
			!strings.Contains(o.String(), fmt.Sprintf("Process: com.perfgate.demo, PID: %d", before[0])) {
			t.Errorf("crash log:\n%s", o.String())
		}
		if w.Truth().Crashes != 1 {
			t.Errorf("crashes = %d", w.Truth().Crashes)
		}
	}
}

func TestAmStartTimes(t *testing.T) {
	cases := []struct {
		api  int
		want []string // am start -W output after "Starting:"
		tag  string
	}{
		{28, []string{"Status: ok", "Activity: com.perfgate.demo/.MainActivity", "ThisTime: 2500", "TotalTime: 2500", "WaitTime: 2512", "Complete"}, "ActivityManager"},
		{30, []string{"Status: ok", "LaunchState: COLD", "Activity: com.perfgate.demo/.MainActivity", "TotalTime: 2500", "WaitTime: 2512", "Complete"}, "ActivityTaskManager"},
		{34, []string{"Status: ok", "LaunchState: COLD", "Activity: com.perfgate.demo/.MainActivity", "TotalTime: 2500", "WaitTime: 2512", "Complete"}, "ActivityTaskManager"},
	}
	for _, c := range cases {
		w, clk := newTestWorld(t, Config{API: c.api, Workload: mustPreset(t, "slow-start")})
		start := clk.now()
		var o, e bytes.Buffer
		if st := w.Am(context.Background(), []string{"start", "-W", "-n", "com.perfgate.demo/.MainActivity"}, &o, &e); st != 0 {
			t.Fatalf("api %d: am start: %d %s", c.api, st, e.String())
		}
		if waited := clk.now().Sub(start); waited != 2500*time.Millisecond {
			t.Errorf("api %d: am start -W returned after %v, want 2.5s", c.api, waited)
		}
		lines := strings.Split(strings.TrimSpace(o.String()), "\n")
		if lines[0] != "Starting: Intent { cmp=com.perfgate.demo/.MainActivity }" || strings.Join(lines[1:], "|") != strings.Join(c.want, "|") {
			t.Errorf("api %d: am start -W:\n%s", c.api, o.String())
		}
		o.Reset()
		w.Logcat(context.Background(), []string{"-d", "-s", c.tag}, &o, &e)
		if !strings.Contains(o.String(), " I "+c.tag+": Displayed com.perfgate.demo/.MainActivity: +2s500ms\n") {
			t.Errorf("api %d: no Displayed line:\n%s", c.api, o.String())
		}
		// HOME then am start again: a hot start (250 ms).
		w.Screen().Key(3)
		o.Reset()
		w.Am(context.Background(), []string{"start", "-W", "-n", "com.perfgate.demo/.MainActivity"}, &o, &e)
		if !strings.Contains(o.String(), "TotalTime: 250\n") || (c.api >= 29 && !strings.Contains(o.String(), "LaunchState: HOT\n")) {
			t.Errorf("api %d: hot start:\n%s", c.api, o.String())
		}
		// BACK destroys the activity: a warm start (900 ms).
		w.Screen().Key(4)
		o.Reset()
		w.Am(context.Background(), []string{"start", "-W", "-n", "com.perfgate.demo/.MainActivity"}, &o, &e)
		if !strings.Contains(o.String(), "TotalTime: 900\n") {
			t.Errorf("api %d: warm start:\n%s", c.api, o.String())
		}
		st := w.Truth().Startups
		if len(st) != 3 || st[0].Kind != "COLD" || st[1].Kind != "HOT" || st[2].Kind != "WARM" || st[0].Displayed != 2500*time.Millisecond || st[0].FullyDrawn != 3100*time.Millisecond {
			t.Errorf("api %d: startups %+v", c.api, st)
		}
		// -S force-stops first: cold again, new pid.
		pid := w.Truth().Pids[0]
		o.Reset()
		w.Am(context.Background(), []string{"start", "-W", "-S", "-n", "com.perfgate.demo/.MainActivity"}, &o, &e)
		if !strings.HasPrefix(o.String(), "Stopping: com.perfgate.demo\n") || !strings.Contains(o.String(), "TotalTime: 2500\n") || w.Truth().Pids[0] == pid {
			t.Errorf("api %d: am start -S:\n%s", c.api, o.String())
		}
	}
}

func TestAmErrors(t *testing.T) {
	w, _ := newTestWorld(t, Config{})
	var o, e bytes.Buffer
	if st := w.Am(context.Background(), []string{"start", "-n", "com.example/.Nope"}, &o, &e); st == 0 || !strings.Contains(e.String(), "does not exist") {
		t.Errorf("unknown activity: %d %q", st, e.String())
	}
	o.Reset()
	e.Reset()
	if st := w.Am(context.Background(), []string{"frobnicate"}, &o, &e); st == 0 {
		t.Errorf("unknown subcommand accepted")
	}
	w.Am(context.Background(), []string{"force-stop", PresetPackage}, &o, &e) // not running: no-op
	if len(w.Truth().Pids) != 0 {
		t.Error("force-stop started something")
	}
}

func TestAmStartCancel(t *testing.T) {
	w, err := newWorldWith(Config{API: 33, Workload: mustPreset(t, "slow-start")}, worldOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var o, e bytes.Buffer
	start := time.Now()
	if st := w.Am(ctx, []string{"start", "-W", "-n", PresetPackage + "/.MainActivity"}, &o, &e); st == 0 {
		t.Errorf("cancelled am start -W returned 0")
	}
	if time.Since(start) > time.Second {
		t.Errorf("am start ignored its context")
	}
}

func TestLogcatChoreographerAndDavey(t *testing.T) {
	wl := mustPreset(t, "smooth-scroll")
	wl.Phases[0].Janks = []Jank{{At: []int{10}, Ms: 750}}
	w, clk := newTestWorld(t, Config{API: 33, Workload: wl})
	wlaunch(t, w)
	clk.advance(3 * time.Second)
	var o, e bytes.Buffer
	w.Logcat(context.Background(), []string{"-d", "-v", "threadtime"}, &o, &e)
	out := o.String()
	// 750 ms at 60 Hz is 44.99998 periods, 44 whole ones: over the limit of 30.
	if !strings.Contains(out, " I Choreographer: Skipped 44 frames!  The application may be doing too much work on its main thread.\n") {
		t.Errorf("no Skipped line:\n%s", out)
	}
	if !strings.Contains(out, " I OpenGLRenderer: Davey! duration=750ms; Flags=0, FrameTimelineVsyncId=") {
		t.Errorf("no Davey line:\n%s", out)
	}
	o.Reset()
	w.Logcat(context.Background(), []string{"-d", "-v", "time", "Choreographer:I", "*:S"}, &o, &e)
	if lines := strings.Split(strings.TrimSpace(o.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], " I/Choreographer(") {
		t.Errorf("filtered -v time: %q", o.String())
	}
	// -c clears; -T N shows the last N.
	o.Reset()
	w.Logcat(context.Background(), []string{"-d", "-t", "2"}, &o, &e)
	if n := strings.Count(o.String(), "\n"); n != 2 {
		t.Errorf("-t 2 printed %d lines", n)
	}
	w.Logcat(context.Background(), []string{"-c"}, &o, &e)
	o.Reset()
	w.Logcat(context.Background(), []string{"-d"}, &o, &e)
	if o.Len() != 0 {
		t.Errorf("after -c: %q", o.String())
	}
	if st := w.Logcat(context.Background(), []string{"-v", "bogus"}, &o, &e); st == 0 {
		t.Error("bad format accepted")
	}
}

func TestLogcatFollowAndSince(t *testing.T) {
	w, clk := newTestWorld(t, Config{API: 33})
	since := w.bootWall.Add(time.Duration(w.Uptime())).UTC().Format("01-02 15:04:05.000")
	ctx, cancel := context.WithCancel(context.Background())
	pr := &truthBuffer{}
	done := make(chan int)
	go func() {
		var e bytes.Buffer
		done <- w.Logcat(ctx, []string{"-T", since}, pr, &e)
	}()
	wlaunch(t, w)
	clk.advance(time.Second)
	deadline := time.Now().Add(3 * time.Second)
	for !strings.Contains(pr.String(), "Displayed com.perfgate.demo") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	out := pr.String()
	if !strings.Contains(out, "Start proc") || !strings.Contains(out, "Displayed com.perfgate.demo/.MainActivity: +650ms") {
		t.Errorf("followed log:\n%s", out)
	}
	if strings.Contains(out, "Killing 2871") {
		t.Errorf("-T printed lines before its time:\n%s", out)
	}
	if strings.Count(out, "Start proc") != 1 {
		t.Errorf("a line printed twice:\n%s", out)
	}
}

func TestScreenLauncherAndApp(t *testing.T) {
	w, clk := newTestWorld(t, Config{API: 33})
	s := w.Screen()
	if wd, ht := s.Size(); wd != 1080 || ht != 2400 {
		t.Errorf("size %dx%d", wd, ht)
	}
	els := s.Elements()
	icon := els[len(els)-1]
	if icon.Package != "com.android.launcher3" || icon.Text != "perfgate demo" {
		t.Fatalf("launcher elements %+v", els)
	}
	c := icon.Bounds.Min.Add(icon.Bounds.Size().Div(2))
	s.Tap(c.X, c.Y)
	clk.advance(700 * time.Millisecond)
	var texts []string
	for _, e := range s.Elements() {
		if e.Package == PresetPackage && e.Text != "" {
			texts = append(texts, e.Text)
		}
	}
	if fmt.Sprint(texts) != "[perfgate demo Scroll Stop]" {
		t.Errorf("app texts %v", texts)
	}
	if st := w.Truth().Startups; len(st) != 1 || st[0].Kind != "COLD" {
		t.Errorf("startups %+v", st)
	}
	if info := s.Info(); info.APILevel != 33 || info.Model != "Pixel 7" && info.Model != "" {
		t.Errorf("info %+v", info)
	}
}

// TestLogcatEpochAndModifiers prints the log with liblog's format
// modifiers: -v epoch gives seconds since 1970 in a 19-wide field, in one
// -v with commas or in several; year and usec widen the time.
func TestLogcatEpochAndModifiers(t *testing.T) {
	w, _ := newTestWorld(t, Config{API: 33})
	wall := w.Wall()
	epoch := regexp.MustCompile(`^ +(\d+)\.(\d{3}) +1000 +1310 I BatteryService: Battery level changed: 78$`)
	for _, args := range [][]string{{"-v", "threadtime", "-v", "epoch"}, {"-v", "threadtime,epoch"}, {"-vepoch"}} {
		var o, e bytes.Buffer
		if st := w.Logcat(context.Background(), append([]string{"-d", "BatteryService:I", "*:S"}, args...), &o, &e); st != 0 {
			t.Fatalf("logcat %v: %d %q", args, st, e.String())
		}
		m := epoch.FindStringSubmatch(strings.TrimSuffix(o.String(), "\n"))
		if m == nil || len(m[0]) < 20 {
			t.Fatalf("logcat %v printed %q", args, o.String())
		}
		sec, _ := strconv.ParseInt(m[1], 10, 64)
		msec, _ := strconv.Atoi(m[2])
		// bootLogs stamped it 1.1 s before the device was created.
		got := time.Unix(sec, int64(msec)*1e6)
		if d := wall.Sub(got); d < time.Second || d > 1200*time.Millisecond {
			t.Errorf("logcat %v: line at %v, %v before the wall clock %v", args, got, d, wall)
		}
	}
	var o, e bytes.Buffer
	w.Logcat(context.Background(), []string{"-d", "-v", "year,usec", "BatteryService:I", "*:S"}, &o, &e)
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6} `).MatchString(o.String()) {
		t.Errorf("-v year,usec printed %q", o.String())
	}
	if st := w.Logcat(context.Background(), []string{"-d", "-v", "threadtime,bogus"}, &o, &e); st == 0 {
		t.Error("bad modifier accepted")
	}
}

// TestLogHistoryAndForceStop: with LogHistory the log holds old crashes of
// other apps and of the app's pid's last owner; a force-stop logs
// ActivityManager's force-stop and kill lines, and no crash.
func TestLogHistoryAndForceStop(t *testing.T) {
	w, clk := newTestWorld(t, Config{API: 33, Quirks: Quirks{LogHistory: true}})
	wlaunch(t, w)
	clk.advance(time.Second)
	pid := w.Truth().Pids[0]
	var o, e bytes.Buffer
	w.Am(context.Background(), []string{"force-stop", PresetPackage}, &o, &e)
	o.Reset()
	w.Logcat(context.Background(), []string{"-d", "-v", "threadtime"}, &o, &e)
	log := o.String()
	for _, want := range []string{
		" 2871  2871 E AndroidRuntime: Process: com.android.vending, PID: 2871\n",
		" F libc    : Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x18 in tid 3120 (RenderThread), pid 3101 (com.google.android.youtube)\n",
		fmt.Sprintf(" %5d %5d E AndroidRuntime: Process: %s, PID: %d\n", pid, pid, PresetPackage, pid),
		fmt.Sprintf(" I ActivityManager: Force stopping %s appid=%d user=0: from pid 0\n", PresetPackage, PresetUID),
		fmt.Sprintf(" I ActivityManager: Killing %d:%s/u0a%d (adj 0): stop %s due to from pid 0\n", pid, PresetPackage, PresetUID-10000, PresetPackage),
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if c := w.Truth().Crashes; c != 0 {
		t.Errorf("a force-stop counted %d crashes", c)
	}
	// The old crash of the pid's last owner is stamped before the process
	// started, and the log is in time order.
	var lastT string
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		if ts := l[:18]; ts < lastT {
			t.Fatalf("log out of order at %q", l)
		} else {
			lastT = ts
		}
	}
}
